#!/usr/bin/env python
"""Scene model benchmark: object poses from the head RGB-D camera against the simulator's ground truth.

Per layout (`sim.scene.sample_layout` with the seed, all the kitchen's objects), the simulated G1 stands in
its rest posture (optionally with the waist pitched forward, `--waist-pitch`), the head camera renders one
RGB-D frame (sim/head_camera.py: depth noise, 1 mm quantisation) and memora_core.perception.scene builds
the scene model, naming objects from the kitchen's object descriptions (category, colour, shape, size).

Ground truth only scores: each true object is paired with the perceived object nearest to it (within
`--pair-radius`); position error is the 3D distance between the perceived centre and the body's centre.
Match accuracy: true objects whose paired perceived object carries their name. Confusions: perceived
objects named as another object that is in the scene (a look-alike taken for the target).

    .venv/bin/python bench/benchmarks/scene_bench.py [--layouts 20] [--first-seed 7000] [--json]

Seed ranges are fixed in advance: dev 7000-7019, fresh 7300-7349 (see the README's scene section).
Asserts nothing; exit 2 on bad arguments.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("MUJOCO_GL", "egl")


def run_layout(seed: int, args: argparse.Namespace) -> list[dict]:
    from memora_core.perception.scene import SceneModeller
    from memora_core.perception.scene.model import entity_from_object
    from memora_core.robot import load_robot_config, make_robot
    from sim.head_camera import HeadCameraSpec, HeadRGBD

    robot = make_robot(load_robot_config(args.robot_config), seed=seed)
    if args.waist_pitch:
        robot.command({"waist_pitch_joint": args.waist_pitch}, 1.0)
        robot.settle(0.3)
    cam = HeadRGBD(robot.model, HeadCameraSpec(width=args.width, height=args.height, depth_noise=args.depth_noise),
                   seed=seed)
    truth = robot.scene_objects()
    entities = [entity_from_object(o.name, o.category, o.colour, o.half_height, o.radius, o.extent, o.container,
                                   o.label) for o in truth]
    t0 = time.perf_counter()
    frame = cam.render(robot.data)
    render_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    scene = SceneModeller(entities, seed=seed).observe(frame)
    observe_s = time.perf_counter() - t0
    rows = []
    for o in truth:
        gt = np.array(o.position)
        best = min(scene.objects, key=lambda p: np.linalg.norm(np.array(p.position[:2]) - gt[:2]), default=None)
        d = None if best is None else float(np.linalg.norm(np.array(best.position) - gt))
        paired = best is not None and float(np.linalg.norm(np.array(best.position[:2]) - gt[:2])) <= args.pair_radius
        yaw_err = None
        if paired and o.extent is not None and best.yaw is not None and abs(o.extent[0] - o.extent[1]) > 0.005:
            _, rot = robot.object_pose(o.name)
            axis = rot[:, 0] if o.extent[0] >= o.extent[1] else rot[:, 1]  # the long side's direction
            true_yaw = math.atan2(axis[1], axis[0])
            yaw_err = abs((best.yaw - true_yaw + math.pi / 2) % math.pi - math.pi / 2)
        rows.append({"seed": seed, "object": o.name, "found": paired, "error_m": d if paired else None,
                     "named": paired and best.name == o.name, "truncated": bool(paired and best.truncated),
                     "yaw_err_rad": yaw_err, "render_s": render_s, "observe_s": observe_s})
    names = {o.name for o in truth}
    for p in scene.objects:
        gt_near = min(truth, key=lambda o: np.linalg.norm(np.array(o.position[:2]) - np.array(p.position[:2])))
        if p.name is not None and p.name != gt_near.name and p.name in names:
            rows.append({"seed": seed, "confusion": [p.name, gt_near.name]})
    cam.close()
    robot.close()
    return rows


def summarise(rows: list[dict]) -> dict:
    objs = [r for r in rows if "object" in r]
    errs = np.array([r["error_m"] for r in objs if r["error_m"] is not None])
    full = np.array([r["error_m"] for r in objs if r["error_m"] is not None and not r["truncated"]])
    yaws = np.array([r["yaw_err_rad"] for r in objs if r["yaw_err_rad"] is not None])
    pct = (lambda a, q: round(float(np.percentile(a, q)) * 100, 2) if len(a) else None)
    return {
        "layouts": len({r["seed"] for r in rows}), "objects": len(objs),
        "found": sum(r["found"] for r in objs),
        "position_error_cm": {"median": pct(errs, 50), "p95": pct(errs, 95), "max": pct(errs, 100)},
        "position_error_cm_not_truncated": {"n": len(full), "median": pct(full, 50), "p95": pct(full, 95)},
        "truncated_by_image_border": sum(r["truncated"] for r in objs),
        "match_accuracy": round(sum(r["named"] for r in objs) / max(1, len(objs)), 4),
        "confusions": [r["confusion"] for r in rows if "confusion" in r],
        "box_yaw_error_deg": {"median": round(float(np.degrees(np.median(yaws))), 2) if len(yaws) else None,
                              "p95": round(float(np.degrees(np.percentile(yaws, 95))), 2) if len(yaws) else None},
        "render_s_mean": round(float(np.mean([r["render_s"] for r in objs])), 3) if objs else None,
        "observe_s_mean": round(float(np.mean([r["observe_s"] for r in objs])), 3) if objs else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layouts", type=int, default=20, help="number of seeded layouts")
    ap.add_argument("--first-seed", type=int, default=7000, help="layout seeds first-seed .. first-seed+layouts-1")
    ap.add_argument("--robot-config", default="sim_g1")
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--depth-noise", type=float, default=None, help="sigma per m^2 of depth (default: the sensor's)")
    ap.add_argument("--waist-pitch", type=float, default=0.0, help="rad: lean forward before looking (0 = rest)")
    ap.add_argument("--pair-radius", type=float, default=0.05, help="m: a perceived object this close pairs with a true one")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if args.layouts < 1 or args.width < 32 or args.height < 32 or not -0.5 <= args.waist_pitch <= 0.5:
        print("scene_bench: --layouts >= 1, image >= 32 px and |--waist-pitch| <= 0.5 rad", file=sys.stderr)
        return 2
    if args.depth_noise is None:
        from sim.head_camera import DEPTH_NOISE

        args.depth_noise = DEPTH_NOISE
    rows: list[dict] = []
    for seed in tqdm(range(args.first_seed, args.first_seed + args.layouts), desc="layouts", disable=args.no_progress):
        rows.extend(run_layout(seed, args))
    summary = summarise(rows)
    summary["seeds"] = [args.first_seed, args.first_seed + args.layouts - 1]
    summary["waist_pitch"] = args.waist_pitch
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        e = summary["position_error_cm"]
        print(f"{summary['layouts']} layouts, {summary['found']}/{summary['objects']} objects found; position error "
              f"median {e['median']} cm, p95 {e['p95']} cm, max {e['max']} cm; match accuracy "
              f"{summary['match_accuracy']:.1%}; {len(summary['confusions'])} confusions; "
              f"{summary['truncated_by_image_border']} cut by the image border")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
