"""`make sim-regression`: the demo's tasks on N seeded kitchen layouts, success table printed.

Memory is formed once from the demo's rendered demonstrations (the `sim` perception backend and the online
editor, then consolidation: the memory-writer node's path, in one process). Then for each layout seed the G1
in MuJoCo gets a fresh kitchen laid out by that seed (never a demonstration's layout), and each task of
robot_configs/demo.yaml is planned by the structured planner from memory and executed by the rule-based
controller under the same execution monitor as the ROS demo driver. A task succeeds when it ran to the end
with exactly the expected objects (a distractor counts as a failure) in the expected order.

    python -m memora_core.runtime.regression --seeds 20            # prints the table, writes results.json
    python -m memora_core.runtime.regression --seeds 20 --in-sequence   # both tasks in one kitchen per seed
Exit code 0 only when every seed succeeded.
"""
from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from memora_core.config import CONFIG_DIR
from memora_core.runtime.tasks import MonitorConfig, chosen_objects, form_memory, run_monitored, task_success

log = logging.getLogger("memora.sim_regression")
REPO = Path(__file__).resolve().parents[2]


def step_details(controller: Any, res: Any) -> dict[str, Any]:
    """A controller StepResult as the monitor's dict, with the scene objects the plan strings resolved to."""
    def resolved(name: str | None) -> str | None:
        if not name:
            return None
        try:
            obj = controller.resolve(name)
        except Exception:  # noqa: BLE001 - a lookup never fails a report
            return None
        return obj.name if obj is not None else None

    d = res.model_dump(mode="json", include={"index", "primitive", "success", "object", "target", "reason", "cause",
                                             "detail", "placement_error_m", "duration_s"})
    d["resolved_object"] = resolved(res.object)
    d["resolved_target"] = resolved(res.target) if res.primitive in ("place", "pour") else None
    return d


class InProcessExecutor:
    """The ExecutePlan action's semantics on an in-process controller: steps in order, stop at the first
    failure. Records when the first step started (first motion)."""

    def __init__(self, controller: Any) -> None:
        self.controller = controller
        self.first_motion: float | None = None

    def __call__(self, plan: Any) -> tuple[bool, list[dict[str, Any]], str]:
        out = []
        if self.first_motion is None:
            self.first_motion = time.monotonic()
        self.controller.rest()  # a new plan starts with the waist upright (as the controller node does)
        for step in plan.steps:
            res = self.controller.execute_step(step)
            out.append(step_details(self.controller, res))
            if not res.success:
                return False, out, f"step {step.index} ({step.render()}) failed: {res.detail or res.reason}"
        return True, out, f"{len(out)} steps done"


def make_planner_fn(store_dir: Path, participant: str, max_tool_calls: int):
    from memora_core.agents import make_planner
    from memora_core.agents.config import load_agents_config
    from memora_core.conditions import build_condition
    from memora_core.store.sqlite_store import SQLiteStore

    cfg = load_agents_config()
    if max_tool_calls:
        cfg = cfg.model_copy(update={"agents": cfg.agents.model_copy(update={"max_iterations": max_tool_calls})})

    def plan(text: str):  # noqa: ANN202
        store = SQLiteStore(store_dir, readonly=True)
        try:
            p = make_planner("structured", build_condition("memora", store, participant), config=cfg).plan(text)
        finally:
            store.close()
        why = ("cannot ground it in memory: " + "; ".join(p.missing)) if p.missing else ("" if p.steps else "no plan")
        return not why, why or f"{len(p.steps)} steps", p
    return plan


def run_seed(seed: int, tasks: list[Any], planner, robot_config: str, monitor: MonitorConfig,
             in_sequence: bool = False) -> list[dict[str, Any]]:
    """Each task on a fresh kitchen laid out by the seed (one task's failure does not decide the next), or, with
    `in_sequence`, all tasks one after the other in one kitchen, as the demo runs them (a later task starts from
    the table and the arm posture the earlier one left)."""
    from memora_core.robot import make_robot
    from memora_core.robot.control import RuleBasedController
    from sim.scene.config import load_scene_config
    from sim.scene.layout import sample_layout

    rows = []
    robot = controller = None
    for task in tasks:
        if robot is None or not in_sequence:
            robot = make_robot(robot_config, layout=sample_layout(load_scene_config(), seed))
            controller = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
        t0 = time.monotonic()
        ok, why, plan = planner(task.instruction)
        row: dict[str, Any] = {"seed": seed, "instruction": task.instruction, "plan_s": round(time.monotonic() - t0, 3),
                               "expected_objects": task.expected_objects}
        if not ok:
            row.update(success=False, answer=why, chosen_objects=[], steps=[])
            rows.append(row)
            continue
        ex = InProcessExecutor(controller)
        out = run_monitored(plan, ex, planner, monitor, say=log.info)
        row["first_motion_s"] = round(ex.first_motion - t0, 3) if ex.first_motion else None
        row["execute_s"] = round(time.monotonic() - t0, 3)
        row["chosen_objects"] = chosen_objects(out.steps)
        row["steps"] = [f"{s['primitive']} {s.get('resolved_object')}" + (f" -> {s['resolved_target']}"
                        if s.get("resolved_target") else "") for s in out.steps]
        row["events"] = out.events
        row["question"] = out.question
        row["success"] = task_success(out.success, task.expected_objects, row["chosen_objects"], task.expected_objects)
        rows.append(row)
    return rows


def print_table(rows: list[dict[str, Any]], instructions: list[str]) -> str:
    seeds = sorted({r["seed"] for r in rows})
    head = f"{'seed':>6} | " + " | ".join(f"{i[:22]:<22}" for i in instructions)
    lines = [head, "-" * len(head)]
    for s in seeds:
        cells = []
        for i in instructions:
            r = next((r for r in rows if r["seed"] == s and r["instruction"] == i), None)
            why = "" if r is None or r["success"] else (r.get("question") or r.get("answer") or "")[:14]
            cells.append(f"{'OK' if r and r['success'] else 'FAIL ' + why:<22}")
        lines.append(f"{s:>6} | " + " | ".join(cells))
    per = [sum(1 for r in rows if r["instruction"] == i and r["success"]) for i in instructions]
    all_ok = sum(1 for s in seeds if all(r["success"] for r in rows if r["seed"] == s))
    lines.append("-" * len(head))
    lines.append(f"{'total':>6} | " + " | ".join(f"{n}/{len(seeds):<19}" for n in per))
    lines.append(f"seeds with every task successful: {all_ok}/{len(seeds)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from memora_core.demo import DemoConfig, render_demos
    from memora_core.config import load_yaml

    ap = argparse.ArgumentParser(prog="memora-sim-regression", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", type=Path, default=CONFIG_DIR / "demo.yaml")
    ap.add_argument("--seeds", type=int, default=20, help="how many layouts")
    ap.add_argument("--first-seed", type=int, default=None, help="default: regression_first_seed of the demo config")
    ap.add_argument("--out", type=Path, default=REPO / "runs" / "sim-regression")
    ap.add_argument("--robot", default="sim_g1")
    ap.add_argument("--max-tool-calls", type=int, default=24, help="planner tool budget (robot_configs/ros/planner.yaml)")
    ap.add_argument("--reuse-memory", action="store_true", help="keep a store formed by an earlier run")
    ap.add_argument("--in-sequence", action="store_true",
                    help="run the tasks one after the other in one kitchen per seed (the demo's way); default: each "
                    "task on a fresh kitchen")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    cfg = DemoConfig.model_validate(load_yaml(args.config))
    t0 = time.monotonic()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    videos = render_demos(cfg, out / "demos")
    store = out / "memory"
    if not (args.reuse_memory and (store / "memory.sqlite").exists()):
        if store.exists():
            import shutil

            shutil.rmtree(store)
        formed = form_memory(out / "demos", store, cfg.participant, [v.stem for v in videos])
        print(f"memory: {formed} ({time.monotonic() - t0:.0f} s)", flush=True)
    planner = make_planner_fn(store, cfg.participant, args.max_tool_calls)
    first = cfg.regression_first_seed if args.first_seed is None else args.first_seed
    rows: list[dict[str, Any]] = []
    for seed in tqdm(range(first, first + args.seeds), desc="sim-regression", unit="layout"):
        rows += run_seed(seed, cfg.tasks, planner, args.robot, MonitorConfig(), in_sequence=args.in_sequence)
        (out / "results.json").write_text(json.dumps({"rows": rows}, indent=1))
    table = print_table(rows, [t.instruction for t in cfg.tasks])
    wall = time.monotonic() - t0
    (out / "results.json").write_text(json.dumps({"rows": rows, "wall_seconds": round(wall, 1), "table": table,
                                                      "in_sequence": args.in_sequence}, indent=1))
    print(table)
    print(f"wall {wall:.0f} s; results {out / 'results.json'}")
    return 0 if rows and all(r["success"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
