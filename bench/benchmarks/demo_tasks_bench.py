#!/usr/bin/env python
"""The kitchen demo's tasks on the robot side only, fast: each routine of `robot_configs/demo.yaml` executed by the
rule-based controller, one after the other on the table the previous one left (as the demo runs them), on seeded
layouts, with a robot config's settings on the simulated body.

The in-process stand-in for the G1 path: `--robot unitree_g1` (the default) plans with the real G1's settings (joint
margins, speeds, the Dex3 fingers) and `--poses perceived` (the default) from its head camera (the registry's
`sim_perceived`), as the G1 demo over ROS does, in about 30 s a layout instead of 10-20 minutes. What it leaves out:
the memory and planner (the plan of each routine is its demonstrated steps that are always done, looks left out),
DDS, the real-time bridge, and the demo driver's retry and replan.

    .venv/bin/python bench/benchmarks/demo_tasks_bench.py [--layouts 20] [--seed0 98012] [--robot unitree_g1]
        [--poses perceived|truth] [--json] [--jobs 2] [--rows rows.jsonl]

Prints per routine the tasks that succeeded (every step did), the layouts where all did, neighbours knocked over
(not the tasks' own objects) and each failure (layout, routine, step, cause). Asserts nothing; exit 2 on bad
arguments.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from multiprocessing import get_context
from pathlib import Path

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from memora_core.schemas import Plan, PlanStep  # noqa: E402


def routine_plan(routine, regions: set[str]) -> list[PlanStep]:
    """The steps a routine always does (blocks done only sometimes and looks left out) as a robot plan; a put on the
    table near an object is 'next to' it, near a region of the scene (`regions`) or its origin anywhere on it."""
    steps = []
    for item in routine.sequence:
        if item.p < 1.0:
            continue
        for s in [*item.steps, *(x for block in item.any_order for x in block)]:
            if s.do == "pick":
                steps.append(("pick", s.object, None))
            elif s.do == "pour":
                steps.append(("pour", s.object, s.target))
            elif s.do == "put" and s.target != "table":
                steps.append(("put", s.object, f"in {s.target}"))
            elif s.do == "put":  # on the table; next to an object, else anywhere ('origin', a region)
                near = None if s.near in (None, "origin") or s.near in regions else s.near
                steps.append(("put", s.object, f"on table next to {near}" if near else "on table"))
    return [PlanStep(index=i, action=a, object=o, target=t, text=" ".join(w for w in (a, o, t) if w))
            for i, (a, o, t) in enumerate(steps)]


def run_layout(seed: int, robot_cfg: str, poses: str, plans: dict[str, Plan]) -> dict:
    from memora_core.robot import load_robot_config, make_robot
    from memora_core.robot.control import RuleBasedController
    from memora_core.robot.monitor import toppled
    from memora_core.runtime.regression import InProcessExecutor

    config = load_robot_config(robot_cfg)
    if poses == "perceived":
        config = config.model_copy(update={"type": "sim_perceived"})
    elif config.type == "unitree_g1":
        config = config.model_copy(update={"type": "sim"})
    robot = make_robot(config, seed=seed)
    try:
        execute = InProcessExecutor(RuleBasedController(robot, robot.scene.table.height, robot.scene.regions))
        tasks, t0 = {}, time.perf_counter()
        for name, plan in plans.items():
            ok, done, _ = execute(plan)  # in order, on the table the one before left, up to the first failure
            last = done[-1] if done else None
            fail = None if ok or last is None else {
                "step": last["index"], "text": plan.steps[last["index"]].render(),
                "cause": last["cause"] or last["reason"] or "failed", "detail": last["detail"]}
            tasks[name] = {"success": ok, "failure": fail}
        used = {s.object for plan in plans.values() for s in plan.steps}
        knocked = toppled({n: robot.ground_truth_pose(n)[1] for n in robot.layout.poses}, exclude=used)
        return {"seed": seed, "tasks": tasks, "knocked_over": sorted(knocked), "wall_s": time.perf_counter() - t0}
    finally:
        robot.close()


def run_layouts(seeds: range, robot_cfg: str, poses: str, plans: dict[str, Plan], jobs: int) -> list[dict]:
    """`run_layout` on every seed, `jobs` at once (each in a fresh process: MuJoCo and the planners are not shared),
    in seed order."""
    run = partial(run_layout, robot_cfg=robot_cfg, poses=poses, plans=plans)
    bar = dict(total=len(seeds), desc="layouts", file=sys.stderr)
    if jobs == 1:
        return [run(s) for s in tqdm(seeds, **bar)]
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        return list(tqdm(pool.map(run, seeds), **bar))


def summary(rows: list[dict], plans: dict[str, Plan], args: argparse.Namespace) -> dict:
    return {"robot": args.robot, "poses": args.poses, "layouts": len(rows), "seed0": args.seed0,
            "tasks": {n: sum(r["tasks"][n]["success"] for r in rows) for n in plans},
            "all_tasks": sum(all(t["success"] for t in r["tasks"].values()) for r in rows),
            "knocked_over": sum(len(r["knocked_over"]) for r in rows),
            "failures": [{"seed": r["seed"], "routine": n, **t["failure"]} for r in rows
                         for n, t in r["tasks"].items() if t["failure"]],
            "wall_s_median": sorted(r["wall_s"] for r in rows)[len(rows) // 2] if rows else None}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--layouts", type=int, default=20, help="how many layouts (seeds seed0, seed0 + 1, ...)")
    p.add_argument("--seed0", type=int, default=98012, help="first layout seed")
    p.add_argument("--robot", default="unitree_g1", help="robot config (robot_configs/robots) whose settings plan")
    p.add_argument("--poses", choices=["perceived", "truth"], default="perceived",
                   help="object poses from the head camera (perceived) or the simulator's ground truth")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--jobs", type=int, default=1, help="layouts run at once, each in its own process")
    p.add_argument("--rows", type=Path, default=None, help="also write each layout's result here (JSON lines)")
    args = p.parse_args(argv)
    if args.layouts < 1:
        p.error("--layouts must be at least 1")
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    from memora_core.demo import load_demo_config
    from memora_core.robot import load_robot_config
    from sim.demonstrator.config import load_routine
    from sim.scene.config import CONFIG_DIR, load_scene_config

    try:
        load_robot_config(args.robot)
    except (FileNotFoundError, ValueError) as exc:
        p.error(f"--robot {args.robot!r}: {exc}")
    demo, plans = load_demo_config(), {}
    for name in demo.routines:
        routine = load_routine(name)
        scene = load_scene_config(CONFIG_DIR / "scenes" / f"{routine.scene}.yaml")
        plans[name] = Plan(participant_id=demo.participant, instruction=name, planner="routine",
                           steps=routine_plan(routine, set(scene.regions)))
    rows = run_layouts(range(args.seed0, args.seed0 + args.layouts), args.robot, args.poses, plans, args.jobs)
    if args.rows is not None:
        args.rows.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = summary(rows, plans, args)
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        n = out["layouts"]
        for name, ok in out["tasks"].items():
            print(f"{name}: {ok}/{n}")
        print(f"all tasks: {out['all_tasks']}/{n}; neighbours knocked over: {out['knocked_over']}; "
              f"median {out['wall_s_median']:.0f} s a layout")
        for f in out["failures"]:
            print(f"  {f['seed']} {f['routine']} step {f['step'] + 1} ({f['text']}): {f['cause']}: {f['detail']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
