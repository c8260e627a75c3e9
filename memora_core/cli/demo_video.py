"""`memora render-demo`: render human demonstrations of a routine as egocentric mp4 videos (MuJoCo).

    memora render-demo --routine task_a_drink --sessions 3 --seed 0 --out runs/demos

Per session: `<out>/<routine>/<video_id>.mp4`, `.events.json` (ground truth), `.trace.npz` (state per
frame, for `sim` perception) and `.meta.json`. Sessions already complete are skipped unless --force.
Routines live in robot_configs/demos/<routine>.yaml, filming settings in robot_configs/demos/render.yaml."""
from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

log = logging.getLogger(__name__)


def _write_still(video: Path, t_s: float, fps: float, path: Path) -> None:
    """The decoded frame at time t as a PNG (what the video really shows, after encoding)."""
    import av
    import cv2

    want = int(round(t_s * fps))
    with av.open(str(video)) as c:
        for i, frame in enumerate(c.decode(video=0)):
            img = frame.to_ndarray(format="bgr24")
            if i >= want:
                break
    cv2.imwrite(str(path), img)
    log.info("wrote %s", path)


def _run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from sim.demonstrator import DemoError, DemoSession, load_render_config, load_routine, render_session, video_id_for

    cfg = load_render_config(args.render_config)
    for key in ("width", "height", "fps"):
        value = getattr(args, key)
        if value is not None:
            setattr(cfg.video, key, value)
    cfg = type(cfg).model_validate(cfg.model_dump())  # re-validate the overridden fields
    routines = [load_routine(r) for r in args.routine]
    jobs = [(r, s) for r in routines for s in range(args.first_session, args.first_session + args.sessions)]
    results = []
    with tqdm(total=len(jobs), desc="render-demo", unit="session", disable=args.json) as bar:
        for routine, session in jobs:
            out_dir = args.out / routine.name
            existing = DemoSession(out_dir, video_id_for(routine.name, args.seed, session))
            t0 = time.perf_counter()
            if existing.complete() and not args.force:
                result, skipped = existing, True
            else:
                try:
                    result = render_session(routine, args.seed, session, out_dir, cfg, pad_to_s=args.pad_to)
                except DemoError as exc:
                    print(f"memora render-demo: {routine.name} session {session}: {exc}")
                    return 1
                skipped = False
            meta = result.meta()
            if args.png_at is not None:
                _write_still(result.video, args.png_at, meta.fps, result.directory / f"{meta.video_id}.png")
            results.append({"video": str(result.video), "events": str(result.events_path),
                            "duration_s": round(meta.duration_s, 2), "frames": meta.frames,
                            "events_n": len(result.events().events), "steps": meta.steps,
                            "wall_s": round(time.perf_counter() - t0, 2), "skipped": skipped})
            bar.set_postfix_str(meta.video_id)
            bar.update(1)
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        for r in results:
            state = "exists" if r["skipped"] else f"{r['wall_s']:.1f}s wall"
            print(f"{r['video']}: {r['duration_s']:.1f}s, {r['frames']} frames, {r['events_n']} events ({state})")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("render-demo", help="render human demonstrations (egocentric mp4 + event log) in MuJoCo",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--routine", nargs="+", required=True,
                   help="routine name(s) under robot_configs/demos (e.g. task_a_drink task_b_breakfast) or YAML paths")
    p.add_argument("--sessions", type=int, default=3, help="sessions per routine (each varies layout and order)")
    p.add_argument("--first-session", type=int, default=0, help="index of the first session")
    p.add_argument("--seed", type=int, default=0, help="base seed; (routine, seed, session) fixes the video")
    p.add_argument("--out", type=Path, default=Path("runs/demos"), help="output directory")
    p.add_argument("--pad-to", type=float, default=0.0, help="keep looking around until this many seconds")
    p.add_argument("--width", type=int, help="override video width")
    p.add_argument("--height", type=int, help="override video height")
    p.add_argument("--fps", type=float, help="override video frame rate")
    p.add_argument("--render-config", type=Path, help="filming settings (default robot_configs/demos/render.yaml)")
    p.add_argument("--png-at", type=float, help="also write the frame at this time (s) as <video_id>.png")
    p.add_argument("--force", action="store_true", help="re-render sessions that already exist")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run)
