"""`make demo`: the kitchen demo on the ROS 2 node graph (pip-only runner), end to end.

1. render the human demonstrations (sim/demonstrator via `memora render-demo`; skipped when present);
2. speak each instruction to a wav file (espeak-ng) for the voice path;
3. run launch/graph.yaml with the demo driver: camera plays the demonstrations -> memory writer (sim
   perception) -> consolidation -> planner (text and voice) -> controller (G1 in MuJoCo) under the
   execution monitor, recorder writing MCAP;
4. write runs/<name>/summary.json and report.html, print the summary. Exit 0 only when every task succeeded
   and no node crashed. No ROS import here: the graph runs in child processes.
"""
from __future__ import annotations

import argparse
import html
import json
import logging
import shutil
import subprocess
import sys
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from memora_core.config import CONFIG_DIR, load_yaml

log = logging.getLogger("memora.demo")
REPO = Path(__file__).resolve().parents[1]


class DemoTask(BaseModel):
    model_config = ConfigDict(extra="forbid")
    instruction: str
    voice: bool = False
    expected_objects: list[str] = Field(default_factory=list)


class DemoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    run_name: str = "demo"
    participant: str = "P01"
    demo_seed: int = 0
    sessions: int = Field(default=3, ge=1)
    routines: list[str]
    layout_seed: int = 1002
    regression_first_seed: int = 1000  # `make sim-regression` layouts: this seed and the next ones
    camera_speed: float = Field(default=4.0, ge=0)
    speech: dict[str, object] = Field(default_factory=lambda: {"voice": "en", "words_per_minute": 130})
    tasks: list[DemoTask]


def render_demos(cfg: DemoConfig, demo_root: Path) -> list[Path]:
    subprocess.run([sys.executable, "-m", "memora_core.cli.main", "render-demo", "--routine", *cfg.routines,
                    "--sessions", str(cfg.sessions), "--seed", str(cfg.demo_seed), "--out", str(demo_root)],
                   check=True, cwd=REPO)
    videos = sorted(p for r in cfg.routines for p in (demo_root / r).glob("*.mp4") if not p.name.startswith("."))
    if len(videos) < cfg.sessions * len(cfg.routines):
        raise RuntimeError(f"expected {cfg.sessions * len(cfg.routines)} demonstration videos, found {len(videos)}")
    return videos


def speak(text: str, path: Path, speech: dict[str, object]) -> Path:
    if shutil.which("espeak-ng") is None:
        raise RuntimeError("espeak-ng missing (scripts/apt-packages.txt; run scripts/setup.sh)")
    subprocess.run(["espeak-ng", "-v", str(speech.get("voice", "en")), "-s", str(speech.get("words_per_minute", 130)),
                    "-w", str(path), text], check=True)
    return path


def run_graph(cfg: DemoConfig, run_dir: Path, videos: list[Path], tasks: list[dict]) -> int:
    from memora_core.runtime.graph import load_graph
    from memora_core.runtime.supervisor import Supervisor

    graph = load_graph(REPO / "launch" / "graph.yaml")
    values = graph.argument_values({
        "videos": json.dumps([str(v) for v in videos]), "participant": cfg.participant, "run_dir": str(run_dir),
        "demo_root": str(run_dir / "demos"), "layout_seed": str(cfg.layout_seed), "driver": "demo",
        "tasks": json.dumps(tasks), "episodes": str(len(videos)), "camera_speed": str(cfg.camera_speed)})
    report = Supervisor(graph.process_specs(values), graph.supervisor, log_dir=run_dir / "logs").run()
    (run_dir / "supervisor.json").write_text(report.model_dump_json(indent=1))
    return report.exit_code


def demo_key_frames(videos: list[Path], out_dir: Path, per_video: int = 3) -> list[Path]:
    """`per_video` evenly spaced frames of each demonstration video as PNG (for the report)."""
    import av
    import cv2

    out_dir.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for video in videos:
        with av.open(str(video)) as c:
            frames = [f.to_ndarray(format="bgr24") for f in c.decode(video=0)]
        if not frames:
            continue
        picks = sorted({round(i * (len(frames) - 1) / max(1, per_video - 1)) for i in range(per_video)})
        for k in picks:
            path = out_dir / f"{video.stem}_{k:05d}.png"
            cv2.imwrite(str(path), frames[k])
            paths.append(path)
    return paths


def _images(paths: list[Path], run_dir: Path) -> str:
    return "<div>" + "".join(
        f"<figure style='display:inline-block;margin:4px'><img src='{html.escape(str(p.relative_to(run_dir)))}' "
        f"width=240><figcaption><small>{html.escape(p.stem)}</small></figcaption></figure>" for p in paths) + "</div>"


def write_report(run_dir: Path, summary: dict, demo_frames: list[Path] | None = None) -> Path:
    rows = "".join(
        f"<tr><td>{html.escape(t['instruction'])}</td><td>{'yes' if t.get('success') else 'NO'}</td>"
        f"<td>{html.escape(', '.join(t.get('chosen_objects', [])))}</td>"
        f"<td>{html.escape(', '.join(t.get('expected_objects', [])))}</td>"
        f"<td>{html.escape(t.get('answer') or t.get('question') or '')}</td>"
        f"<td>{html.escape('; '.join(_failed_steps(t)))}</td></tr>" for t in summary.get("tasks", []))
    plans = json.loads((run_dir / "plans.json").read_text()) if (run_dir / "plans.json").exists() else []
    plan_html = "".join(
        f"<h3>{html.escape(p['instruction'])}</h3><ol>" + "".join(
            f"<li>{html.escape(s.get('text') or s['action'])} <small>"
            f"{html.escape(', '.join(e['video_id'] for e in s.get('evidence', [])[:3]))}</small></li>"
            for s in (p.get("plan") or {}).get("steps", [])) + "</ol>"
        + (f"<p>missing: {html.escape('; '.join(p['plan']['missing']))}</p>" if (p.get('plan') or {}).get('missing') else "")
        for p in plans)
    memory = ""
    store = run_dir / "memory"
    if (store / "memory.sqlite").exists():
        from memora_core.store.sqlite_store import SQLiteStore

        s = SQLiteStore(store, readonly=True)
        pid = summary.get("participant", "P01")
        memory = ("<h2>Memory</h2><h3>Entities</h3><ul>" + "".join(
            f"<li>{html.escape(e.name)} {html.escape(json.dumps(e.attributes))} @ {html.escape(e.location or '?')}</li>"
            for e in s.entities(pid)) + "</ul><h3>Routines</h3><ul>" + "".join(
            f"<li>{html.escape(r.goal)}: {html.escape(' → '.join(r.steps))}</li>" for r in s.routines(pid))
            + "</ul><h3>Preferences</h3><ul>" + "".join(
            f"<li>{html.escape(p.statement)}</li>" for p in s.preferences(pid)) + "</ul>")
        s.close()
    exec_frames = sorted((run_dir / "execution" / "frames").glob("*.png"))
    video = run_dir / "execution" / "execution.mp4"
    counts = summary.get("recording", {}).get("topics", {})
    page = (f"<html><head><meta charset='utf-8'><title>memora demo</title></head><body><h1>memora kitchen demo</h1>"
            f"<p>wall {summary.get('wall_seconds')} s; exit {summary.get('exit_code')}</p>"
            f"<table border=1><tr><th>instruction</th><th>success</th><th>chosen</th><th>expected</th><th>answer</th>"
            f"<th>failed steps / monitor</th></tr>{rows}</table>"
            f"<h2>Demonstrations</h2>{_images(demo_frames or [], run_dir)}"
            f"<h2>Execution</h2>" + (f"<p><a href='execution/execution.mp4'>execution.mp4</a></p>" if video.exists() else "<p>no video</p>")
            + f"{_images(exec_frames, run_dir)}<h2>Plans</h2>{plan_html}{memory}"
            f"<h2>Recording</h2><ul>" + "".join(f"<li>{html.escape(t)}: {n}</li>" for t, n in counts.items())
            + "</ul></body></html>")
    path = run_dir / "report.html"
    path.write_text(page)
    return path


def _failed_steps(task: dict) -> list[str]:
    """What went wrong in a task: each monitor event (failed step, reason, what the monitor did)."""
    out = []
    for e in task.get("events", []):
        f = e.get("failed") or {}
        out.append(f"{f.get('primitive')} {f.get('object')}" + (f" -> {f.get('target')}" if f.get("target") else "")
                   + f": {f.get('reason') or e.get('message')} [{e.get('action')}]")
    return out


def recording_summary(bag: Path) -> dict:
    from memora_core.runtime.recording import topic_counts

    if not (bag / "metadata.yaml").exists():
        return {"error": f"no recording at {bag}"}
    try:
        return {"path": str(bag), "topics": topic_counts(bag)}
    except Exception as exc:  # noqa: BLE001 - a torn recording is reported, not fatal to the summary
        return {"path": str(bag), "error": f"{type(exc).__name__}: {exc}"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="memora-demo", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", type=Path, default=CONFIG_DIR / "demo.yaml")
    ap.add_argument("--runs", type=Path, default=REPO / "runs")
    ap.add_argument("--layout-seed", type=int, default=None, help="execution layout seed (overrides the config)")
    ap.add_argument("--name", default=None, help="run name (runs/<name>)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    t0 = time.monotonic()
    cfg = DemoConfig.model_validate(load_yaml(args.config))
    if args.layout_seed is not None:
        cfg.layout_seed = args.layout_seed
    run_dir = (args.runs / (args.name or cfg.run_name)).resolve()
    for stale in ("memory", "recording", "logs", "execution", "report_frames", "summary.json", "plans.json",
                  "driver_summary.json", "report.html"):
        target = run_dir / stale
        shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    videos = render_demos(cfg, run_dir / "demos")
    tasks = []
    for i, t in enumerate(cfg.tasks):
        wav = speak(t.instruction, run_dir / f"instruction_{i}.wav", cfg.speech) if t.voice else None
        tasks.append({"instruction": t.instruction, "voice_file": str(wav or ""), "expected_objects": t.expected_objects})
    code = run_graph(cfg, run_dir, videos, tasks)
    driver = run_dir / "driver_summary.json"
    summary = json.loads(driver.read_text()) if driver.exists() else {"tasks": []}
    summary.update(wall_seconds=round(time.monotonic() - t0, 1), exit_code=code, participant=cfg.participant,
                   layout_seed=cfg.layout_seed, demonstrations=[v.stem for v in videos],
                   recording=recording_summary(run_dir / "recording"),
                   execution_video=str(run_dir / "execution" / "execution.mp4")
                   if (run_dir / "execution" / "execution.mp4").exists() else None)
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    report = write_report(run_dir, summary, demo_key_frames(videos, run_dir / "report_frames"))
    print(f"\nmemora demo: {len(summary['tasks'])} tasks, wall {summary['wall_seconds']} s, graph exit {code}")
    for t in summary["tasks"]:
        print(f"  {'OK  ' if t.get('success') else 'FAIL'} {t['instruction']!r}: chose {t.get('chosen_objects')} "
              f"expected {t['expected_objects']} first motion {t.get('first_motion_s')} s"
              + (f" — {t.get('answer') or t.get('question')}" if not t.get("success") else ""))
        for line in _failed_steps(t):
            print(f"       failed step: {line}")
    rec = summary["recording"]
    print(f"  recording: " + (", ".join(f"{k} {v}" for k, v in rec["topics"].items()) if "topics" in rec else rec["error"]))
    print(f"  summary {run_dir / 'summary.json'}; report {report}; recording {run_dir / 'recording'}")
    ok = code == 0 and len(summary["tasks"]) == len(cfg.tasks) and all(t.get("success") for t in summary["tasks"])
    print(f"memora demo: {'SUCCESS' if ok else 'FAILED'} ({sum(bool(t.get('success')) for t in summary['tasks'])}"
          f"/{len(cfg.tasks)} tasks succeeded, graph exit {code})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
