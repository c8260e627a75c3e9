"""Demonstrations for the soak: a few rendered sessions, replayed under many distinct video ids.

The memory writer skips segments already committed for a video id, so hours of video need hours of
distinct video ids. Rendering hours of MuJoCo video on a shared machine is not practical, so each rendered
session is *replayed*: replay r of session S is a complete session directory of its own,
`<alias_root>/<S>-r<r>/<S>-r<r>.{mp4,trace.npz,events.json,meta.json}`, whose video and trace are symlinks
to S's files and whose meta / event log are copies with the video id rewritten. To the camera (video id =
file stem) and to sim perception (session found by video id under demo_root) a replay is an ordinary,
self-consistent recorded session: the full perception path runs for every segment of every replay (scene
rebuilt per session, segmentation renders at each sample time), nothing is looked up by the original id.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sim.demonstrator.trace import DemoSession, find_sessions

REPO = Path(__file__).resolve().parents[3]


def render_sessions(out: Path, routines: list[str], sessions: int, seed: int, pad_to_s: float) -> list[DemoSession]:
    """`memora render-demo` once (it skips sessions already rendered); the complete sessions under out."""
    subprocess.run([sys.executable, "-m", "memora_core.cli.main", "render-demo", "--routine", *routines,
                    "--sessions", str(sessions), "--seed", str(seed), "--pad-to", str(pad_to_s), "--out", str(out)],
                   check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    found = find_sessions(out)
    if len(found) < sessions * len(routines):
        raise RuntimeError(f"expected {sessions * len(routines)} rendered sessions under {out}, found {len(found)}")
    return found


def _rewrite_video_id(src: Path, dst: Path, video_id: str) -> None:
    data = json.loads(src.read_text())
    data["video_id"] = video_id
    dst.write_text(json.dumps(data))


def replay_session(session: DemoSession, replay: int, alias_root: Path) -> DemoSession:
    """Replay number `replay` of `session` under its own video id (idempotent)."""
    video_id = f"{session.video_id}-r{replay:03d}"
    out = DemoSession(alias_root / video_id, video_id)
    if out.complete():
        return out
    out.directory.mkdir(parents=True, exist_ok=True)
    for src, dst in ((session.video, out.video), (session.trace_path, out.trace_path)):
        dst.unlink(missing_ok=True)
        dst.symlink_to(src.resolve())
    _rewrite_video_id(session.events_path, out.events_path, video_id)
    _rewrite_video_id(session.meta_path, out.meta_path, video_id)
    return out


def playlist(sessions: list[DemoSession], video_s: float, alias_root: Path) -> list[DemoSession]:
    """Replays of `sessions` in round-robin order until their total duration reaches video_s seconds."""
    if not sessions:
        raise ValueError("no rendered sessions to replay")
    out: list[DemoSession] = []
    total, n = 0.0, 0
    while total < video_s:
        session = sessions[n % len(sessions)]
        out.append(replay_session(session, n // len(sessions), alias_root))
        total += session.meta().duration_s
        n += 1
    return out
