"""A long-running sim perception (the memory writer's) sees many sessions: it keeps only a few open, so its
memory stays bounded (each open session holds a scene model and a segmentation renderer), and a session
closed meanwhile is observed the same when it comes back."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from memora_core.perception import PerceptionConfig, PerceptionInput
from sim.demonstrator import DemoSession
from sim.perception import SimPerception, demo_segments
from tests.sim.test_demonstrator import short_demo  # noqa: F401  (session fixture: one render per run)

SESSIONS = 8


# Measured in a fresh interpreter: in the test process, RSS also moves with whatever earlier tests left in the
# allocator's arenas (seen: 64 MB steps in a 5 GB pytest process), which says nothing about this code.
_MEASURE = """
import json, sys
from pathlib import Path
from memora_core.perception import PerceptionConfig, PerceptionInput
from sim.demonstrator import DemoSession
from sim.perception import SimPerception, demo_segments

def rss_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")

root, max_views, ids = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
options = {"demo_root": str(root)} | ({"max_views": int(max_views)} if max_views else {})
perception = SimPerception(PerceptionConfig(backend="sim", options=options))
rss = []
for vid in ids:
    perception.observe(PerceptionInput(segment=demo_segments(DemoSession(root / vid, vid), "P")[0]))
    rss.append(rss_mb())
print(json.dumps({"rss": rss, "open": len(perception._views), "max_views": perception.cfg.max_views}))
perception.close()
"""


def _copy(session: DemoSession, root: Path, video_id: str) -> DemoSession:
    """The same recording as a session of its own (its own files, its own video id)."""
    out = DemoSession(root / video_id, video_id)
    out.directory.mkdir(parents=True)
    shutil.copy(session.video, out.video)
    shutil.copy(session.trace_path, out.trace_path)
    for src, dst in ((session.events_path, out.events_path), (session.meta_path, out.meta_path)):
        dst.write_text(json.dumps(json.loads(src.read_text()) | {"video_id": video_id}))
    return out


def _growth(root: Path, ids: list[str], max_views: int | None) -> tuple[float, dict]:
    """RSS growth per session seen once the open sessions have settled, in a fresh interpreter."""
    res = subprocess.run([sys.executable, "-c", _MEASURE, str(root), str(max_views or ""), *ids],
                         capture_output=True, text=True, timeout=600, cwd=Path(__file__).resolve().parents[2])
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.splitlines()[-1])
    settled = out["max_views"] + 1 if max_views is None else 3
    rss = out["rss"]
    return (rss[-1] - rss[settled]) / (len(rss) - 1 - settled), out


def test_many_sessions_keep_memory_bounded(short_demo: DemoSession, tmp_path: Path) -> None:  # noqa: F811
    ids = [_copy(short_demo, tmp_path, f"copy{i}").video_id for i in range(SESSIONS)]
    bounded, out = _growth(tmp_path, ids, None)
    assert out["open"] == out["max_views"]  # the least recently used sessions were closed
    # The same sessions with every one kept open: each adds its scene model and renderer (measured here: ~105 MB
    # per session kept open, ~1.5 MB bounded). Bounded, a new session only replaces one.
    unbounded, _ = _growth(tmp_path, ids, 1000)
    assert bounded < unbounded / 3, f"RSS per session seen: {bounded:.1f} MB bounded vs {unbounded:.1f} MB unbounded"


def test_a_closed_session_is_observed_the_same_when_it_comes_back(short_demo: DemoSession, tmp_path: Path) -> None:  # noqa: F811
    sessions = [_copy(short_demo, tmp_path, f"copy{i}") for i in range(4)]
    perception = SimPerception(PerceptionConfig(backend="sim", options={"demo_root": str(tmp_path)}))
    seen = [perception.observe(PerceptionInput(segment=demo_segments(s, "P")[0])) for s in sessions]
    assert len(perception._views) == perception.cfg.max_views
    again = perception.observe(PerceptionInput(segment=demo_segments(sessions[0], "P")[0]))
    assert again == seen[0]
    perception.close()
