"""`make demo`: the kitchen demo on the ROS 2 node graph (pip-only runner), end to end.

1. render the human demonstrations (sim/demonstrator via `memora render-demo`; skipped when present);
2. speak each instruction to a wav file (espeak-ng) for the voice path;
3. run launch/graph.yaml with the demo driver: camera plays the demonstrations -> memory writer (sim
   perception) -> consolidation -> planner (text and voice) -> controller (G1 in MuJoCo) under the
   execution monitor, recorder writing MCAP;
4. write runs/<name>/summary.json and report.html (memora_core/report), print the summary. Exit 0 only
   when every task succeeded and no node crashed. No ROS import here: the graph runs in child processes.

`ros2 launch memora demo_kitchen.launch.py` (mode:=demo, its default) takes the same steps through DemoRun:
prepare() before the graph starts, finish() after every node has exited; only the process runner differs.
"""
from __future__ import annotations

import argparse
import json
import logging
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memora_core.config import CONFIG_DIR, load_yaml
from memora_core.report import write_demo_report
from memora_core.report.tasks_view import failed_steps

log = logging.getLogger("memora.demo")
REPO = Path(__file__).resolve().parents[1]
DEFAULT_CONFIG = CONFIG_DIR / "demo.yaml"
DEFAULT_RUNS = REPO / "runs"
GRAPH_FILE = REPO / "launch" / "graph.yaml"
# A run's outputs, removed before it starts so nothing of an earlier run is reported as this one's.
_OUTPUTS = ("memory", "recording", "logs", "execution", "report_frames", "report_files", "summary.json",
            "plans.json", "driver_summary.json", "report.html")


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
    layout_seed: int = Field(description="the execution kitchen's layout seed (both tasks, one kitchen)")
    regression_first_seed: int = 1000  # `make sim-regression` layouts: this seed and the next ones
    camera_speed: float = Field(default=4.0, ge=0)
    # Who forms the memory from the demonstrations: `camera` (pixels + the video's audio track) or the `sim`
    # oracle (the recorded simulator state). The robot knows the execution kitchen from the simulator.
    perception: str = Field(default="sim", description="memory writer perception backend (camera | sim)")
    robot_perception: Literal["sim", "camera"] = Field(
        default="sim", description="where the robot's object poses come from: the simulator's ground truth (sim) or "
        "its head RGB-D camera's scene model (camera; robot_configs/robots/sim_g1_perceived.yaml)")
    robot: Literal["sim", "g1"] = Field(
        default="sim", description="which robot runs the tasks: the MuJoCo G1 driven in-process (sim) or the Unitree G1 "
        "backend over DDS (g1: LowCmd/LowState, Dex3 hands, head RGB-D scene model; here against the Unitree sim "
        "bridge, exactly the code a real G1 runs; robot_configs/robots/unitree_g1.yaml)")
    g1_domain: int | None = Field(
        default=None, ge=0, le=232, description="robot g1 only: the Unitree SDK's DDS domain between the backend and "
        "the sim bridge (None: the graph's default, 1); another one keeps two G1 runs on one machine apart")
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


def prepare_camera(demo_root: Path) -> None:
    """Camera perception needs its trained model (`memora camera-train`, once per machine) and the
    demonstrations' soundtracks (what the person said, for the transcript)."""
    from memora_core.perception import load_perception_config
    from sim.demonstrator.soundtrack import add_soundtrack
    from sim.demonstrator.trace import find_sessions

    if not Path(load_perception_config().camera.model_path).expanduser().exists():
        subprocess.run([sys.executable, "-m", "memora_core.cli.main", "camera-train"], check=True, cwd=REPO)
    for session in find_sessions(demo_root):
        add_soundtrack(session)


def speak(text: str, path: Path, speech: dict[str, object]) -> Path:
    if shutil.which("espeak-ng") is None:
        raise RuntimeError("espeak-ng missing (scripts/apt-packages.txt; run scripts/setup.sh)")
    subprocess.run(["espeak-ng", "-v", str(speech.get("voice", "en")), "-s", str(speech.get("words_per_minute", 130)),
                    "-w", str(path), text], check=True)
    return path


def load_demo_config(path: Path = DEFAULT_CONFIG, layout_seed: int | None = None,
                     perception: str | None = None, robot_perception: str | None = None,
                     robot: str | None = None, g1_domain: int | None = None) -> DemoConfig:
    """The demo's config; the command line's values, where given, replace the file's."""
    cfg = DemoConfig.model_validate(load_yaml(path))
    overrides = {"layout_seed": layout_seed, "perception": perception, "robot_perception": robot_perception,
                 "robot": robot, "g1_domain": g1_domain}
    return DemoConfig.model_validate({**cfg.model_dump(), **{k: v for k, v in overrides.items() if v is not None}})


class DemoRun:
    """One run of the kitchen demo in `run_dir`: prepare() its inputs, run the graph with graph_arguments()
    (the supervisor for `make demo`, ROS 2 launch for the launch file), then finish() with the graph's exit code."""

    def __init__(self, cfg: DemoConfig, run_dir: Path):
        self.cfg = cfg
        self.run_dir = run_dir.resolve()
        self.videos: list[Path] = []
        self.tasks: list[dict] = []
        self.started = time.monotonic()

    def prepare(self) -> "DemoRun":
        """Remove an earlier run's outputs, render the demonstrations (skipped when present), speak the
        voice instructions to wav files."""
        for stale in _OUTPUTS:
            target = self.run_dir / stale
            shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.videos = render_demos(self.cfg, self.run_dir / "demos")
        if self.cfg.perception == "camera":
            prepare_camera(self.run_dir / "demos")
        self.tasks = []
        for i, t in enumerate(self.cfg.tasks):
            wav = speak(t.instruction, self.run_dir / f"instruction_{i}.wav", self.cfg.speech) if t.voice else None
            self.tasks.append({"instruction": t.instruction, "voice_file": str(wav or ""),
                               "expected_objects": t.expected_objects})
        return self

    def graph_arguments(self) -> dict[str, str]:
        """The launch arguments of launch/graph.yaml that make it this demo (the other arguments keep theirs)."""
        return {"videos": json.dumps([str(v) for v in self.videos]), "participant": self.cfg.participant,
                "run_dir": str(self.run_dir), "demo_root": str(self.run_dir / "demos"),
                "layout_seed": str(self.cfg.layout_seed), "driver": "demo", "tasks": json.dumps(self.tasks),
                "episodes": str(len(self.videos)), "camera_speed": str(self.cfg.camera_speed),
                "perception": self.cfg.perception, "robot_perception": self.cfg.robot_perception,
                "robot": self.cfg.robot, "g1_bridge": "sim",
                **({"g1_domain": str(self.cfg.g1_domain)} if self.cfg.g1_domain is not None else {})}

    def finish(self, code: int) -> bool:
        """Write summary.json and report.html, print the summary; True when the graph exited 0 and every task
        succeeded."""
        return _finish(self, code)


def run_graph(run: DemoRun) -> int:
    from memora_core.runtime.graph import load_graph
    from memora_core.runtime.supervisor import Supervisor

    graph = load_graph(GRAPH_FILE)
    values = graph.argument_values(run.graph_arguments())
    report = Supervisor(graph.process_specs(values), graph.supervisor, log_dir=run.run_dir / "logs").run()
    (run.run_dir / "supervisor.json").write_text(report.model_dump_json(indent=1))
    return report.exit_code


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
    ap.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    ap.add_argument("--runs", type=Path, default=DEFAULT_RUNS)
    ap.add_argument("--layout-seed", type=int, default=None, help="execution layout seed (overrides the config)")
    ap.add_argument("--name", default=None, help="run name (runs/<name>)")
    ap.add_argument("--perception", choices=["camera", "sim"], default=None,
                    help="who forms the memory from the demonstrations (overrides the config)")
    ap.add_argument("--robot-perception", choices=["camera", "sim"], default=None,
                    help="where the robot's object poses come from (overrides the config)")
    ap.add_argument("--robot", choices=["sim", "g1"], default=None,
                    help="sim: the MuJoCo G1 in-process; g1: the Unitree G1 backend over DDS against the sim bridge "
                    "(overrides the config)")
    ap.add_argument("--g1-domain", type=int, default=None,
                    help="with --robot g1: the Unitree SDK DDS domain of the backend and the sim bridge (default 1)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        cfg = load_demo_config(args.config, args.layout_seed, args.perception, args.robot_perception, args.robot,
                               args.g1_domain)
    except ValidationError as e:
        ap.error(f"bad demo setting: {e.errors()[0]['loc']}: {e.errors()[0]['msg']}")
    run = DemoRun(cfg, args.runs / (args.name or cfg.run_name)).prepare()
    return 0 if run.finish(run_graph(run)) else 1


def _finish(run: DemoRun, code: int) -> bool:
    cfg, run_dir, videos = run.cfg, run.run_dir, run.videos
    driver = run_dir / "driver_summary.json"
    summary = json.loads(driver.read_text()) if driver.exists() else {"tasks": []}
    summary.update(wall_seconds=round(time.monotonic() - run.started, 1), exit_code=code, participant=cfg.participant,
                   layout_seed=cfg.layout_seed, demonstrations=[v.stem for v in videos],
                   recording=recording_summary(run_dir / "recording"),
                   perception={"memory": cfg.perception, "robot": "camera" if cfg.robot == "g1" else cfg.robot_perception},
                   robot=cfg.robot,
                   execution_video=str(run_dir / "execution" / "execution.mp4")
                   if (run_dir / "execution" / "execution.mp4").exists() else None)
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    report = write_demo_report(run_dir, summary)
    print(f"\nmemora demo: {len(summary['tasks'])} tasks, wall {summary['wall_seconds']} s, graph exit {code}")
    for t in summary["tasks"]:
        print(f"  {'OK  ' if t.get('success') else 'FAIL'} {t['instruction']!r}: chose {t.get('chosen_objects')} "
              f"expected {t['expected_objects']} first motion {t.get('first_motion_s')} s"
              + (f" — {t.get('answer') or t.get('question')}" if not t.get("success") else ""))
        for line in failed_steps(t):
            print(f"       failed step: {line}")
    rec = summary["recording"]
    print(f"  recording: " + (", ".join(f"{k} {v}" for k, v in rec["topics"].items()) if "topics" in rec else rec["error"]))
    print(f"  summary {run_dir / 'summary.json'}; report {report}; recording {run_dir / 'recording'}")
    ok = code == 0 and len(summary["tasks"]) == len(cfg.tasks) and all(t.get("success") for t in summary["tasks"])
    print(f"memora demo: {'SUCCESS' if ok else 'FAILED'} ({sum(bool(t.get('success')) for t in summary['tasks'])}"
          f"/{len(cfg.tasks)} tasks succeeded, graph exit {code})")
    return ok


if __name__ == "__main__":
    sys.exit(main())
