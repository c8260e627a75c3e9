"""One soak run: the graph under the Supervisor (its own process), the ROS client (its own process) and the
sampler (a thread here), until the memory writer has written every episode the camera plays.

Files under `out`: specs.json, samples.jsonl (Sampler), events.jsonl (client), logs/ (one per node,
graph.log, client.log), supervisor.json (the Supervisor's report), memory/ (the store).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.benchmarks.soak.graph import soak_specs
from bench.benchmarks.soak.sampler import Sampler
from bench.benchmarks.soak.sessions import playlist
from sim.demonstrator.trace import DemoSession

HERE = Path(__file__).resolve().parent


@dataclass
class SoakSettings:
    video_s: float                 # seconds of video the camera plays
    speed: float                   # camera playback speed (multiple of real time)
    sample_s: float = 5.0          # sampler period (wall seconds)
    query_period_s: float = 2.0    # one planner call every this many wall seconds
    consolidate_period_s: float = 60.0
    participant: str = "P01"
    max_wall_s: float = 6 * 3600.0  # give up after this long
    settle_s: float = 0.0          # wait this long after the last episode is written (RSS after the run)


@dataclass
class SoakFiles:
    out: Path
    videos: list[str]  # video ids in play order

    @property
    def store(self) -> Path:
        return self.out / "memory"

    @property
    def samples(self) -> Path:
        return self.out / "samples.jsonl"

    @property
    def events(self) -> Path:
        return self.out / "events.jsonl"

    @property
    def supervisor_report(self) -> Path:
        return self.out / "supervisor.json"


def read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line still being written
    return rows


def _stop(proc: subprocess.Popen, timeout_s: float) -> int:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            return proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
    return proc.wait()


def run_soak(sessions: list[DemoSession], out: Path, settings: SoakSettings, env: dict[str, str] | None = None,
             progress=print) -> SoakFiles:
    """Play `settings.video_s` seconds of replays of `sessions` through the graph; the run's files."""
    env = dict(env or os.environ)
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("samples.jsonl", "events.jsonl", "supervisor.json"):
        (out / stale).unlink(missing_ok=True)
    if (out / "memory").exists():
        raise FileExistsError(f"{out / 'memory'} exists: a soak starts from an empty store (choose a new --out)")
    plays = playlist(sessions, settings.video_s, out / "replays")
    files = SoakFiles(out, [p.video_id for p in plays])
    specs, supervisor = soak_specs([p.video for p in plays], out, out / "replays", settings.speed,
                                   settings.consolidate_period_s, settings.participant)
    (out / "specs.json").write_text(json.dumps({"specs": [s.model_dump() for s in specs], "supervisor": supervisor}))
    logs = out / "logs"
    logs.mkdir(exist_ok=True)
    client_log, graph_log = (logs / "client.log").open("w"), (logs / "graph.log").open("w")
    client = subprocess.Popen([sys.executable, str(HERE / "client.py"), "--out", str(files.events),
                               "--period-s", str(settings.query_period_s), "--participant", settings.participant],
                              env=env, stdout=client_log, stderr=subprocess.STDOUT)
    graph = subprocess.Popen([sys.executable, str(HERE / "supervise.py"), str(out / "specs.json"), "--log-dir",
                              str(logs), "--report", str(files.supervisor_report)],
                             env=env, stdout=graph_log, stderr=subprocess.STDOUT)
    sampler = Sampler(graph.pid, files.store, files.samples, settings.sample_s)
    sampler.start()
    wanted, t0, done_at = set(files.videos), time.monotonic(), None
    try:
        while graph.poll() is None and time.monotonic() - t0 < settings.max_wall_s:
            written = {e["video_id"] for e in read_jsonl(files.events) if e["kind"] == "written"}
            if done_at is None and wanted <= written:
                done_at = time.monotonic()
            if done_at is not None and time.monotonic() - done_at >= settings.settle_s:
                break
            last = sampler.last or {}
            progress(f"soak: {len(written & wanted)}/{len(wanted)} episodes written, "
                     f"{last.get('video_s', 0.0) / 3600:.2f} h of video in memory, "
                     f"{time.monotonic() - t0:.0f} s wall")
            time.sleep(min(30.0, max(1.0, settings.sample_s)))
    finally:
        sampler.stop()
        if graph.poll() is None:
            with files.samples.open("a") as fh:  # the state the run ended in, before shutdown
                fh.write(json.dumps(sampler.sample()) + "\n")
        _stop(graph, 60.0)
        _stop(client, 20.0)
        client_log.close()
        graph_log.close()
    return files
