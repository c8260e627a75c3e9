"""`memora perception-bench --sessions N [--json]`: the `camera` perception backend against the `sim` oracle on
N rendered demonstrations (rendered into --out when missing, or taken from --demo-root).

Prints objects recall/precision, actions recall/precision and median |dt|, compression median and the real-time
factor; the matching rules are those of memora_core.perception.camera.bench (see --help's epilog)."""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from memora_core.errors import BadInputError

MATCHING = """matching:
  objects  per segment, one-to-one; a camera object matches an oracle object when the names are equal (or the
           camera's name is one of the oracle object's aliases), the colours are equal and the labels are equal
           (both absent is equal); objects_identity: category + colour + material equal instead. The table is
           left out. recall = matched / oracle objects, precision = matched / camera objects (over all segments).
  actions  per session, one-to-one by smallest |dt|: same kind (pick / put / pour), same object (name as above;
           actions_identity: the camera object matched to it by identity), key times (grasp, release, middle of
           the pour) within --max-dt. median_abs_dt_s over the matched pairs. actions_target: the same and the
           same target (what a put or pour went into or onto).
  compression  entity observations per retained entity after writing the camera observations to a fresh store
           (deterministic editor), one participant per routine and one doing all routines; median over them
           (oracle_compression_median: the same for the sim oracle's observations).
  hand     (models with a holding forest) the hand reader's grasps and releases against the renderer's record of
           what the hand held: one-to-one, same kind, within --max-dt.
  realtime_factor  video seconds per CPU second of camera perception (one thread; frames at the segment rate).
exit codes: 0 done; 1 failure (e.g. no camera model: run `memora camera-train`); 2 bad input."""


def _sessions(args: argparse.Namespace) -> list:
    from sim.demonstrator.trace import find_sessions

    if args.demo_root:
        found = find_sessions(args.demo_root)
        if len(found) < args.sessions:
            raise BadInputError(f"{args.demo_root}: {len(found)} rendered sessions, {args.sessions} asked for")
        return found[: args.sessions]
    from tqdm import tqdm

    from sim.demonstrator import DemoSession, render_session, video_id_for

    per = math.ceil(args.sessions / len(args.routines))
    wanted = [(r, i) for i in range(per) for r in args.routines][: args.sessions]
    out = []
    for routine, i in tqdm(wanted, desc="render", disable=args.json):
        d = args.out / routine
        s = DemoSession(d, video_id_for(routine, args.seed, i))
        out.append(s if s.complete() else render_session(routine, args.seed, i, d))
    return out


def _run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from memora_core.perception import load_perception_config
    from memora_core.perception.camera.bench import run_bench

    if args.sessions < 1:
        raise BadInputError("--sessions must be at least 1")
    sessions = _sessions(args)
    cfg = load_perception_config(args.perception_config, backend="camera")
    bar = tqdm(total=len(sessions), desc="perception-bench", disable=args.json)
    result = run_bench(sessions, cfg, max_dt_s=args.max_dt, progress=lambda _: bar.update(1),
                       per_kitchen=not args.backend_per_session)
    bar.close()
    if args.json:
        print(json.dumps(result if args.per_session else {k: v for k, v in result.items() if k != "per_session"},
                         indent=1))
    else:
        o, a = result["objects"], result["actions"]
        print(f"sessions {result['sessions']}")
        print(f"objects   recall {o['recall']:.3f} precision {o['precision']:.3f} "
              f"(identity: {result['objects_identity']['recall']:.3f} / {result['objects_identity']['precision']:.3f})")
        print(f"actions   recall {a['recall']:.3f} precision {a['precision']:.3f} median |dt| {a['median_abs_dt_s']} s "
              f"(identity: {result['actions_identity']['recall']:.3f})")
        print(f"compression median {result['compression_median']}x (oracle {result['oracle_compression_median']}x); "
              f"real-time factor {result['realtime_factor']}x")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("perception-bench", help="camera perception vs the sim oracle on rendered demonstrations",
                       description=__doc__, epilog=MATCHING, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sessions", type=int, default=12, help="number of sessions (alternating routines)")
    p.add_argument("--routines", nargs="+", default=["task_a_drink", "task_b_breakfast"], help="routines to render")
    p.add_argument("--seed", type=int, default=77, help="render seed of the sessions (keep it apart from training)")
    p.add_argument("--out", type=Path, default=Path("runs/perception_bench/demos"), help="where sessions are rendered")
    p.add_argument("--demo-root", type=Path, help="use sessions already rendered here instead")
    p.add_argument("--max-dt", type=float, default=1.0, help="largest |dt| of a matched action (s)")
    p.add_argument("--perception-config", type=Path, help="perception YAML (default robot_configs/perception.yaml)")
    p.add_argument("--per-session", action="store_true", help="include per-session figures in --json")
    p.add_argument("--backend-per-session", action="store_true",
                   help="a fresh camera backend per session (default: one per kitchen, as the memory writer runs)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run)


