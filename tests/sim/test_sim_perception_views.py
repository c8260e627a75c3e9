"""A long-running sim perception (the memory writer's) sees many sessions: it keeps only a few open, so its
memory stays bounded (each open session holds a scene model and a segmentation renderer), and a session
closed meanwhile is observed the same when it comes back."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from memora_core.perception import PerceptionConfig, PerceptionInput
from sim.demonstrator import DemoSession
from sim.perception import SimPerception, demo_segments
from tests.sim.test_demonstrator import short_demo  # noqa: F401  (session fixture: one render per run)

SESSIONS = 8


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def _copy(session: DemoSession, root: Path, video_id: str) -> DemoSession:
    """The same recording as a session of its own (its own files, its own video id)."""
    out = DemoSession(root / video_id, video_id)
    out.directory.mkdir(parents=True)
    shutil.copy(session.video, out.video)
    shutil.copy(session.trace_path, out.trace_path)
    for src, dst in ((session.events_path, out.events_path), (session.meta_path, out.meta_path)):
        dst.write_text(json.dumps(json.loads(src.read_text()) | {"video_id": video_id}))
    return out


def test_many_sessions_keep_memory_bounded(short_demo: DemoSession, tmp_path: Path) -> None:  # noqa: F811
    sessions = [_copy(short_demo, tmp_path, f"copy{i}") for i in range(SESSIONS)]
    perception = SimPerception(PerceptionConfig(backend="sim", options={"demo_root": str(tmp_path)}))
    seen, rss = [], []
    for session in sessions:
        seen.append(perception.observe(PerceptionInput(segment=demo_segments(session, "P")[0])))
        rss.append(_rss_mb())
    # once the few open sessions are open, a new one replaces one: with every session kept open, each one
    # adds its model and renderer (~30 MB at this size; ~100 MB at the demonstrations' 320x240)
    settled = perception.cfg.max_views + 1
    per_session = (rss[-1] - rss[settled]) / (SESSIONS - 1 - settled)
    assert per_session < 3.0, f"RSS grows {per_session:.1f} MB per session seen: {[round(r) for r in rss]}"
    again = perception.observe(PerceptionInput(segment=demo_segments(sessions[0], "P")[0]))
    assert again == seen[0]
    perception.close()
