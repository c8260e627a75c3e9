"""`memora camera-train`: train the `camera` perception model (pixel lookup table + attribute and label forests) from
rendered demonstrations, reproducibly: the same sessions and seeds give a byte-identical model file. Renders the
training sessions into --out when missing, lossless by default (--crf 0): libx264 at its lossy default gave different
bytes for the same rendered frames now and then (2026-12-02), so a model trained on lossy renders could not be made
again; lossless decoding returns exactly the rendered frames (after the yuv420p conversion, which is deterministic),
whatever bitstream the encoder picks. Writes the model where perception.yaml's camera.model_path points (or --model).
The forest telling when the hand holds something (camera/holding.py) learns from --hold-sessions sessions per routine
(the first --sessions of them are the other forests' sessions), labelled by the renderer's record of what the hand
holds."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from memora_core.errors import BadInputError


def _run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from memora_core.perception import load_perception_config
    from memora_core.perception.camera.context import SCALES
    from memora_core.perception.camera.train import TrainSettings, train
    from sim.demonstrator import DemoSession, render_session, video_id_for
    from sim.demonstrator.config import load_render_config

    if args.sessions < 1:
        raise BadInputError("--sessions must be at least 1")
    if args.hold_sessions < 0:
        raise BadInputError("--hold-sessions must be at least 0")
    if not 0 <= args.crf <= 51:
        raise BadInputError("--crf must be within 0..51")
    cfg = load_render_config()
    cfg = cfg.model_copy(update={"video": cfg.video.model_copy(update={"crf": args.crf})})
    sessions, hold = [], []
    for routine in tqdm(args.routines, desc="render", disable=args.json):
        for i in range(max(args.sessions, args.hold_sessions)):
            d = args.out / routine
            s = DemoSession(d, video_id_for(routine, args.seed, i))
            s = s if s.complete() else render_session(routine, args.seed, i, d, cfg=cfg)
            if i < args.sessions:
                sessions.append(s)
            if i < args.hold_sessions:
                hold.append(s)
    model = args.model or Path(load_perception_config().camera.model_path)
    bar = tqdm(total=len(sessions), desc="camera-train", disable=args.json)
    st = TrainSettings(seed=args.train_seed, context_scales=SCALES if args.context else None,
                       instances=not args.no_instances, colour_forest=not args.no_colour_forest,
                       holding=args.hold_sessions > 0)
    path, report = train(sessions, model, st, progress=lambda _: bar.update(1), hold_sessions=hold)
    bar.close()
    report["model"] = str(path)
    print(json.dumps(report, indent=1) if args.json else
          f"camera model {path}: {report['regions']} regions from {len(sessions)} sessions; out-of-bag accuracy "
          f"category {report['category_oob_accuracy']}, material {report['material_oob_accuracy']}, "
          f"label {report['label_oob_accuracy']}"
          + (f", colour {report['colour_oob_accuracy']}" if "colour_oob_accuracy" in report else "")
          + (f"; holding {report['holding_oob_accuracy']} over {report['holding_frames']} frames"
             if "holding_oob_accuracy" in report else ""))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("camera-train", help="train the camera perception model from rendered demonstrations",
                       description=__doc__)
    p.add_argument("--routines", nargs="+", default=["task_a_drink", "task_b_breakfast"])
    p.add_argument("--sessions", type=int, default=3, help="sessions per routine")
    p.add_argument("--seed", type=int, default=3, help="render seed of the training sessions")
    p.add_argument("--hold-sessions", type=int, default=10, help="sessions per routine (the first --sessions of them "
                   "shared) the forest telling when the hand holds something learns from (camera/holding.py); 0: none")
    p.add_argument("--train-seed", type=int, default=0, help="forest seed")
    p.add_argument("--crf", type=int, default=0, help="x264 quality of the rendered training sessions (0: lossless, "
                   "the only setting whose decoded frames are the same on every render)")
    p.add_argument("--out", type=Path, default=Path("runs/camera_train/lossless"),
                   help="where sessions are rendered (sessions found complete there are reused: keep one --crf per folder)")
    p.add_argument("--model", type=Path, help="model file (default: perception.yaml camera.model_path)")
    p.add_argument("--context", action="store_true", help="also fit the pixel classifier with spatial context "
                   "(camera/context.py; off by default: it did not help on dev)")
    p.add_argument("--no-instances", action="store_true", help="do not learn the superpixel merge "
                   "(camera/instances.py); instances are then connected regions split by colour")
    p.add_argument("--no-colour-forest", action="store_true", help="do not learn colour words; regions are then "
                   "named by the hue rule of camera/colour.py")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run)
