"""`memora sim-bench --layouts N [--json]`: N seeded pick-and-place trials in the MuJoCo kitchen, headless.

Each trial builds a seeded layout with the full object set, picks one object at random (seeded) and places
it in/on another (a container when one is free, else a table region), then reports success, placement
error and distractors disturbed. Also measures physics real-time factor (no rendering) and head-camera fps."""
from __future__ import annotations

import argparse
import json
import logging
import statistics
import time

log = logging.getLogger(__name__)


# An object whose centre ends this far below the table top (m) is on the floor.
FELL_BELOW_M = 0.02


def fell_off(z: float, table_height: float) -> bool:
    """Whether an object whose centre is at height `z` has fallen off a table whose top is at `table_height`."""
    return z < table_height - FELL_BELOW_M


def _make(robot_cfg: str, seed: int, poses: str):
    """The trial's robot: the config's own, or (`perceived`) the same body planning from its head camera (the
    registry's `sim_perceived`: sim.perceived_robot)."""
    from memora_core.robot import load_robot_config, make_robot

    config = load_robot_config(robot_cfg)
    if poses == "perceived":
        config = config.model_copy(update={"type": "sim_perceived"})
    return make_robot(config, seed=seed)


def _trial(seed: int, robot_cfg: str, poses: str = "truth") -> dict:
    import numpy as np

    from memora_core.robot.control import RuleBasedController
    from memora_core.robot.monitor import disturbed, toppled
    from memora_core.schemas import PlanStep

    robot = _make(robot_cfg, seed, poses)
    truth = robot.ground_truth_pose  # scoring only
    names = list(robot.layout.poses)
    rng = np.random.default_rng(10_000 + seed)
    ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
    movable = [o.name for o in robot.scene.objects if not o.container]
    containers = [o.name for o in robot.scene.objects if o.container and o.category == "bowl"]
    obj = str(rng.choice(movable))
    target = str(rng.choice(containers))
    before = {n: truth(n)[0] for n in names}
    steps = [PlanStep(index=0, action="pick", object=obj),
             PlanStep(index=1, action="place", object=obj, target=f"in {target}")]
    t0, cpu0, sim0 = time.perf_counter(), time.process_time(), robot.sim_time_s
    results = [ctl.execute_step(s) for s in steps]
    wall, cpu, sim = time.perf_counter() - t0, time.process_time() - cpu0, robot.sim_time_s - sim0
    after = {n: truth(n)[0] for n in names}
    rots = {n: truth(n)[1] for n in names}
    moved = disturbed(before, after, exclude={obj, target})
    knocked = toppled(rots, exclude={obj, target})
    # Success: every step succeeded (the object landed within tolerance) and no distractor was knocked over.
    ok = all(r.success for r in results) and not knocked
    error = results[-1].placement_error_m
    if robot.perceived_scene:
        # The controller measured its placement from what it saw (--poses perceived, or a perceiving robot config
        # such as sim_g1_perceived): score it on where the object really is, within the tolerance the controller
        # uses for a place into a container.
        from memora_core.robot.control.targets import into_tolerance
        from memora_core.robot.robot import SceneObject

        bowl = SceneObject.from_spec(robot.scene.object(target))
        error = float(np.hypot(*(after[obj][:2] - after[target][:2])))
        ok = ok and error <= into_tolerance(robot.config.motion.place_tolerance, bowl.radius)
    # Beside the bowl is scored by where it is in the plane; an object that fell off the table (dev 100009: a tea box
    # dropped on the floor under the bowl, 2 cm from its centre in the plane) was never placed.
    fell = fell_off(float(after[obj][2]), robot.scene.table.height)
    ok = ok and not fell
    fail = next((r for r in results if not r.success), None)
    robot.close()
    return {"seed": seed, "object": obj, "target": target, "success": ok,
            "placement_error_m": error if ok else None,
            "reason": fail.reason.value if fail else ("knocked_over" if knocked else "fell_off_table" if fell else
                                                      None if ok else "landed_off_truth"),
            "cause": fail.cause.value if fail and fail.cause else None,
            "detail": fail.detail if fail else (f"knocked over {', '.join(knocked)}" if knocked else ""),
            "distractors_moved": moved, "distractors_toppled": knocked,
            "sim_s": sim, "wall_s": wall, "cpu_s": cpu}


def _physics_rtf(robot_cfg: str, seconds: float = 5.0) -> float:
    """Physics alone (arm holding a pose, objects resting, weld-free): simulated seconds per wall second."""
    import mujoco

    from memora_core.robot import make_robot

    robot = make_robot(robot_cfg, seed=0)
    n = int(seconds / robot.model.opt.timestep)
    t0 = time.perf_counter()
    for _ in range(n):
        mujoco.mj_step(robot.model, robot.data)
    return seconds / (time.perf_counter() - t0)


def _camera_fps(robot_cfg: str, frames: int = 60, width: int = 320, height: int = 240) -> dict:
    from memora_core.robot import make_robot

    robot = make_robot(robot_cfg, seed=0)
    out = {}
    for hide in (True, False):
        robot.render_head(width, height, hide_robot=hide)  # warm-up (context creation)
        t0 = time.perf_counter()
        for _ in range(frames):
            robot.render_head(width, height, hide_robot=hide)
        out["robot_hidden" if hide else "robot_visible"] = frames / (time.perf_counter() - t0)
    robot.close()
    return out


def _run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    trials = [_trial(args.seed0 + i, args.robot, args.poses)
              for i in tqdm(range(args.layouts), desc="sim-bench", disable=args.json)]
    errs = [t["placement_error_m"] for t in trials if t["placement_error_m"] is not None]
    summary = {
        "layouts": args.layouts,
        "success_rate": sum(t["success"] for t in trials) / max(1, len(trials)),
        "median_placement_error_m": statistics.median(errs) if errs else None,
        "distractors_disturbed": sum(len(t["distractors_moved"]) for t in trials),
        "distractors_knocked_over": sum(len(t["distractors_toppled"]) for t in trials),
        "controller_rtf": sum(t["sim_s"] for t in trials) / max(1e-9, sum(t["wall_s"] for t in trials)),
        # simulated seconds per CPU second of this process: what the controller costs when other jobs share the cores
        "controller_rtf_cpu": sum(t["sim_s"] for t in trials) / max(1e-9, sum(t["cpu_s"] for t in trials)),
        "physics_rtf": _physics_rtf(args.robot),
        "head_camera_fps_320x240": _camera_fps(args.robot),
        "failures": [{k: t[k] for k in ("seed", "object", "target", "reason", "cause", "detail")}
                     for t in trials if not t["success"]],
        # per layout, so that runs over several seed ranges can be pooled (medians, sums)
        "trials": [{k: t[k] for k in ("seed", "success", "placement_error_m", "distractors_toppled", "sim_s", "wall_s",
                                      "cpu_s")}
                   for t in trials],
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"success rate            {summary['success_rate'] * 100:.1f}% of {args.layouts} layouts")
        med = summary["median_placement_error_m"]
        print(f"median placement error  {med * 100:.2f} cm" if med is not None else "median placement error  n/a")
        print(f"distractors disturbed   {summary['distractors_disturbed']} moved >2 cm, "
              f"{summary['distractors_knocked_over']} knocked over")
        print(f"physics real-time factor {summary['physics_rtf']:.1f}x (no rendering); "
              f"controller incl. IK {summary['controller_rtf']:.1f}x ({summary['controller_rtf_cpu']:.1f}x per CPU second)")
        cam = summary["head_camera_fps_320x240"]
        print(f"head camera 320x240     {cam['robot_hidden']:.1f} fps (robot hidden), "
              f"{cam['robot_visible']:.1f} fps (robot visible)")
        for f in summary["failures"]:
            print(f"  fail seed {f['seed']}: {f['object']} -> {f['target']}: {f['reason']}/{f['cause']} ({f['detail']})")
    return 0 if summary["success_rate"] >= args.min_success else 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sim-bench", help="seeded pick-and-place trials in the MuJoCo kitchen (headless)")
    p.add_argument("--layouts", type=int, default=50, help="number of seeded layouts (trials)")
    p.add_argument("--seed0", type=int, default=0, help="first layout seed")
    p.add_argument("--robot", default="sim_g1", help="robot config name under robot_configs/robots")
    p.add_argument("--poses", choices=("truth", "perceived"), default="truth",
                   help="where the controller's object poses come from: MuJoCo's ground truth, or the head RGB-D "
                        "camera's scene model through an object tracker (ground truth then only scores)")
    p.add_argument("--min-success", type=float, default=0.0, help="exit 1 when the success rate is below this")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run)
