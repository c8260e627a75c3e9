#!/usr/bin/env python
"""Motion planning benchmark: pick/place-like arm motions on seeded kitchen layouts, planned with
OMPL RRTConnect + shortcutting and timed with TOPP-RA (memora_core.robot.motion, sim/planning_world.py).

Per layout (`sim.scene.sample_layout` with the seed, all objects), from the rest posture: for each of
`--motions` objects taken in a seeded random order, the arm the reachability map prefers moves its palm to
above the object (pre-grasp: its top + `--above` m), then on to above a random table point (pre-place), and
back to rest after the last. Every motion is a `plan_to_point` (IK goals, RRTConnect, shortcut, timing).

    .venv/bin/python bench/benchmarks/motion_bench.py [--layouts 5] [--first-seed 0] [--motions 4] [--execute] [--json]

Prints: planning time p50/p95/max per motion (IK goal choice + path + timing; wall and this process's CPU
time, which is what a motion costs when other jobs share the cores), success rate and failure
causes, validity checks/s (planner's own states, timed in isolation), path length before/after shortcutting,
trajectory durations. `--execute` also runs each planned motion on the simulated robot (`command_path`) and
counts hard contacts and objects moved > 1 cm. Library imports and the reachability map (built once, then
cached) are outside the per-motion times. Asserts nothing; exit 2 on bad arguments.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from memora_core.robot.motion import PlanningFailure, load_planner_config  # noqa: E402
from memora_core.robot.robot import load_robot_config  # noqa: E402


def _targets(robot, rng: np.random.Generator, motions: int, above: float) -> list[tuple[str, np.ndarray]]:
    """(kind, palm target) pairs: pre-grasp over an object, then pre-place over a random table point."""
    objects = robot.scene_objects()
    order = rng.permutation(len(objects))[:motions]
    table_z = robot.scene.table.height
    lo, hi = np.array(robot.config.motion.table_zone[0]), np.array(robot.config.motion.table_zone[1])
    out = []
    for i in order:
        obj = objects[i]
        top = np.array(obj.position) + [0.0, 0.0, obj.half_height]
        out.append(("pre-grasp", top + [0.0, 0.0, above]))
        # A put-down spot: a table point whose footprint keeps 3 cm from every other object (as a put-down needs).
        for _ in range(200):
            xy = rng.uniform(lo, hi)
            if all(np.hypot(*(xy - np.array(o.position[:2]))) >= o.radius + obj.radius + 0.03
                   for o in objects if o.name != obj.name):
                break
        out.append(("pre-place", np.array([*xy, table_z + 2 * obj.half_height + above])))
    return out


def run_layout(seed: int, args: argparse.Namespace, cfg, reach_cache: dict) -> list[dict]:
    from sim.planning_world import arm_planner, current_posture, reachability_map, start_posture
    from sim.robot_backend import SimRobot

    robot = SimRobot(load_robot_config("sim_g1"), seed=seed)
    if "map" not in reach_cache:
        reach_cache["map"] = reachability_map(robot, cfg)
    reach = reach_cache["map"]
    rng = np.random.default_rng(seed)
    planners = {arm: arm_planner(robot, arm, cfg) for arm in robot.config.arms}
    rest = {arm: current_posture(robot, arm) for arm in planners}
    rows = []
    targets = _targets(robot, rng, args.motions, args.above)
    arm = None
    for k, (kind, target) in enumerate(targets):
        if kind == "pre-grasp":
            arm = reach.best_arm(target) or ("left" if target[1] >= 0 else "right")
            start = rest[arm] if not args.execute else start_posture(robot, planners[arm].world)
        planner = planners[arm]
        legs = [(kind, target)] + ([("rest", None)] if kind == "pre-place" else [])
        for leg, point in legs:
            row = {"seed": seed, "arm": arm, "kind": leg}
            checks0 = planner.world.checks
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                plan = (planner.plan_to_joints(start, rest[arm]) if point is None
                        else planner.plan_to_point(start, point))
            except PlanningFailure as exc:
                row.update(ok=False, cause=exc.cause.value, planning_s=time.perf_counter() - t0,
                           planning_cpu_s=time.process_time() - c0,
                           checks=planner.world.checks - checks0, blocked_by=list(exc.colliding))
                rows.append(row)
                break  # the rest of this object's motions start from a posture never reached
            row.update(ok=True, planning_s=time.perf_counter() - t0, planning_cpu_s=time.process_time() - c0,
                       checks=planner.world.checks - checks0,
                       sampled=plan.path.sampled, raw_length=plan.path.raw_length, length=plan.path.length,
                       duration=plan.trajectory.duration, smooth=plan.trajectory.smooth,
                       positions=plan.trajectory.positions)
            if args.execute:
                before = {o.name: np.array(o.position) for o in robot.scene_objects()}
                report = robot.command_path(*plan.trajectory.command_args())
                moved = [n for n, p in before.items() if np.linalg.norm(robot.object_pose(n)[0] - p) > 0.01]
                row.update(contacts=report.collisions, moved=moved)
                for p in planners.values():
                    p.world.sync(robot)
            start = plan.path.waypoints[-1] if not args.execute else start_posture(robot, planner.world)
            rows.append(row)
    # Validity rate on realistic states: the planned trajectories' own samples (each arm on its own world).
    states = [(planners[r["arm"]].world, q) for r in rows if r.get("ok") for q in r.pop("positions")]
    states = [states[i] for i in rng.permutation(len(states))[:args.check_states]]
    t0 = time.perf_counter()
    for world, q in states:
        world.is_valid(q)
    if states:
        rows.append({"seed": seed, "kind": "checks", "checks_per_s": len(states) / (time.perf_counter() - t0)})
    robot.close()
    return rows


def summarise(rows: list[dict]) -> dict:
    motions = [r for r in rows if r["kind"] != "checks"]
    ok = [r for r in motions if r["ok"]]
    times = np.array([r["planning_s"] for r in motions])
    cpu = np.array([r["planning_cpu_s"] for r in motions])
    sampled = [r for r in ok if r["sampled"]]
    out = {
        "motions": len(motions), "planned": len(ok), "success_rate": len(ok) / max(len(motions), 1),
        "failures": dict(Counter(f"{r['kind']}: {r['cause']}" for r in motions if not r["ok"])),
        "blocked_by": dict(Counter(n for r in motions if not r["ok"] for n in r["blocked_by"])),
        "planning_s_by_kind": {k: {"p50": float(np.percentile(v, 50)), "p95": float(np.percentile(v, 95))}
                               for k in ("pre-grasp", "pre-place", "rest")
                               if (v := [r["planning_s"] for r in motions if r["kind"] == k])},
        "planning_s": {"p50": float(np.percentile(times, 50)), "p95": float(np.percentile(times, 95)),
                       "max": float(times.max())} if len(times) else {},
        # CPU time of this process: what a motion costs when the machine is shared (wall time waits for others).
        "planning_cpu_s": {"p50": float(np.percentile(cpu, 50)), "p95": float(np.percentile(cpu, 95)),
                           "max": float(cpu.max())} if len(cpu) else {},
        "straight_line_share": 1 - len(sampled) / max(len(ok), 1),
        "path_length_rad": {"raw_mean": float(np.mean([r["raw_length"] for r in sampled])) if sampled else None,
                            "shortcut_mean": float(np.mean([r["length"] for r in sampled])) if sampled else None},
        "trajectory_s_mean": float(np.mean([r["duration"] for r in ok])) if ok else None,
        "checks_per_s_isolated": float(np.mean([r["checks_per_s"] for r in rows if r["kind"] == "checks"] or [0.0])),
        "checks_per_s_in_planning": float(sum(r["checks"] for r in motions) / max(times.sum(), 1e-9)),
    }
    if any("contacts" in r for r in ok):
        out["executed"] = {"with_hard_contact": sum(bool(r["contacts"]) for r in ok),
                           "objects_moved": sum(len(r["moved"]) for r in ok),
                           "moved": [f"seed {r['seed']} {r['kind']} ({r['arm']}): {', '.join(r['moved'])}"
                                     for r in ok if r["moved"]]}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layouts", type=int, default=5, help="number of seeded layouts")
    ap.add_argument("--first-seed", type=int, default=0, help="layout seeds first-seed .. first-seed+layouts-1")
    ap.add_argument("--motions", type=int, default=4, help="objects visited per layout (3 motions each)")
    ap.add_argument("--above", type=float, default=0.12, help="m of the palm above an object's top / a placed top")
    ap.add_argument("--check-states", type=int, default=2000,
                    help="trajectory samples per layout timed for the isolated checks/s figure")
    ap.add_argument("--execute", action="store_true", help="also run each motion on the simulated robot")
    ap.add_argument("--planner-config", default="planner", help="robot_configs/<name>.yaml or a path")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    if args.layouts < 1 or args.motions < 1 or args.check_states < 1 or args.above < 0:
        print("motion_bench: --layouts, --motions and --check-states must be >= 1, --above >= 0", file=sys.stderr)
        return 2
    cfg = load_planner_config(args.planner_config)
    import ompl.geometric  # noqa: F401  imported once per process (toppra ~2.5 s), not inside a motion's time
    import toppra  # noqa: F401
    rows: list[dict] = []
    reach_cache: dict = {}
    seeds = range(args.first_seed, args.first_seed + args.layouts)
    for seed in tqdm(seeds, desc="layouts", disable=args.no_progress):
        rows += run_layout(seed, args, cfg, reach_cache)
    summary = {"seeds": [seeds.start, seeds.stop - 1], "config": cfg.model_dump(exclude={"reach_grid"}),
               **summarise(rows)}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    p = summary["planning_s"]
    print(f"layouts {seeds.start}..{seeds.stop - 1}: {summary['planned']}/{summary['motions']} motions planned "
          f"({summary['success_rate']:.1%}); failures {summary['failures'] or 'none'}")
    print(f"planning time per motion: p50 {p['p50']:.3f} s  p95 {p['p95']:.3f} s  max {p['max']:.3f} s")
    c = summary["planning_cpu_s"]
    print(f"  CPU time per motion: p50 {c['p50']:.3f} s  p95 {c['p95']:.3f} s  max {c['max']:.3f} s")
    for kind, q in summary["planning_s_by_kind"].items():
        print(f"  {kind:9s}: p50 {q['p50']:.3f} s  p95 {q['p95']:.3f} s")
    if summary["blocked_by"]:
        print(f"failed motions were blocked by: {summary['blocked_by']}")
    pl = summary["path_length_rad"]
    if pl["raw_mean"] is not None:
        print(f"path length (sampled plans, mean): {pl['raw_mean']:.2f} rad before shortcutting, "
              f"{pl['shortcut_mean']:.2f} after; straight line free in {summary['straight_line_share']:.0%}")
    print(f"validity checks/s: {summary['checks_per_s_isolated']:.0f} isolated, "
          f"{summary['checks_per_s_in_planning']:.0f} counting all planning time")
    print(f"trajectory duration mean: {summary['trajectory_s_mean']:.2f} s")
    if "executed" in summary:
        e = summary["executed"]
        print(f"executed: {e['with_hard_contact']} motions with a hard contact, "
              f"{e['objects_moved']} objects moved > 1 cm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
