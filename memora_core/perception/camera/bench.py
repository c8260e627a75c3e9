"""Camera perception against the `sim` oracle on rendered sessions (`memora perception-bench`).

For each session both backends observe the same segment grid: the oracle from the recorded simulator state,
the camera from the video's frames at the segment sample times. Matching:
- objects, per segment, one-to-one: an oracle object and a camera object match when their names are equal
  (or the camera's name is one of the oracle object's aliases), their colours are equal and their labels are
  equal (both absent counts as equal). `objects_identity` matches on category + colour + material instead of
  the name and label (the object is the right thing, whatever it is called). Surfaces (the table) are left
  out of both. recall = matched / oracle objects, precision = matched / camera objects, summed over segments.
- actions, per session, one-to-one in order of |dt|: same kind (pick / put / pour), same object (name as
  above; `actions_identity`: the camera object matched to the oracle object by identity in that session),
  and key times (grasp / release / middle of the pour; the `kind@time` in source_id) within `max_dt_s`.
  recall = matched / oracle actions, precision = matched / camera actions, median |dt| over matched pairs.
  `actions_target`: as `actions`, and the same target too (what a put or pour went into or onto: the second noun).
- compression: the camera observations written to a fresh store with the deterministic editor, one participant
  per routine and one who does every routine (as bench/benchmarks/demo_render_bench.py); entity observations
  per retained entity (memora stats' compression_ratio), median over participants; the oracle's alongside.
- hand (when the model has a holding forest): the hand reader's grasps and releases against the renderer's record of
  what the hand held, one-to-one, same kind, within `max_dt_s`.
- realtime_factor: video seconds per wall second of camera perception alone, on one thread (frames sampled
  at the segment rate, decode excluded)."""
from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from memora_core.perception.base import PerceptionConfig, PerceptionInput
from memora_core.perception.camera.backend import CameraPerception
from memora_core.perception.camera.groundtruth import decode_video
from memora_core.schemas import ObjectObservation, SegmentObservation


def _key(a) -> tuple[str, float]:
    kind, _, t = (a.source_id or "").partition("@")
    return kind, float(t) if t else a.start_s


def _same_name(cam: ObjectObservation, ora: ObjectObservation) -> bool:
    names = {ora.name.lower(), *(x.lower() for x in ora.aliases)}
    return cam.name.lower() in names and cam.colour == ora.colour and (cam.label or None) == (ora.label or None)


def _same_identity(cam: ObjectObservation, ora: ObjectObservation) -> bool:
    return (cam.category, cam.colour, cam.material) == (ora.category, ora.colour, ora.material)


def _match(cams: list, oras: list, same: Callable) -> list[tuple[int, int]]:
    used, pairs = set(), []
    for i, o in enumerate(oras):
        for j, c in enumerate(cams):
            if j not in used and same(c, o):
                used.add(j)
                pairs.append((j, i))
                break
    return pairs


def _pair_nearest(cand: list[tuple[float, int, int]]) -> list[float]:
    """One-to-one pairs from candidate (|dt|, read, truth) triples, smallest |dt| first: the |dt| of each pair."""
    used_r, used_t, dts = set(), set(), []
    for dt, j, i in sorted(cand):
        if j not in used_r and i not in used_t:
            used_r.add(j)
            used_t.add(i)
            dts.append(dt)
    return dts


def score_session(cam: list[SegmentObservation], ora: list[SegmentObservation], max_dt_s: float) -> dict[str, Any]:
    out = {k: 0 for k in ("obj_oracle", "obj_camera", "obj_name", "obj_identity")}
    name_map: dict[str, str] = {}
    for c, o in zip(cam, ora):
        cs = [x for x in c.objects if x.category != "furniture"]
        os_ = [x for x in o.objects if x.category != "furniture"]
        out["obj_oracle"] += len(os_)
        out["obj_camera"] += len(cs)
        out["obj_name"] += len(_match(cs, os_, _same_name))
        for j, i in _match(cs, os_, _same_identity):
            out["obj_identity"] += 1
            name_map.setdefault(cs[j].name, os_[i].name)
    ca = [a for s in cam for a in s.actions]
    oa = [a for s in ora for a in s.actions]
    out["act_oracle"], out["act_camera"] = len(oa), len(ca)
    modes = (("name", lambda x, y: x == y, False), ("identity", lambda x, y: name_map.get(x) == y, False),
             ("target", lambda x, y: x == y, True))
    for mode, same_obj, target in modes:
        cand = []
        for j, c in enumerate(ca):
            for i, o in enumerate(oa):
                (kc, tc), (ko, to) = _key(c), _key(o)
                if kc == ko and c.nouns and o.nouns and same_obj(c.nouns[0], o.nouns[0]) and abs(tc - to) <= max_dt_s \
                        and (not target or c.nouns[1:2] == o.nouns[1:2]):
                    cand.append((abs(tc - to), j, i))
        dts = _pair_nearest(cand)
        out[f"act_{mode}"], out[f"dts_{mode}"] = len(dts), dts
    return out


def score_hand(read: list[tuple[float, str]] | None, session: Any, max_dt_s: float) -> dict[str, Any]:
    """The hand reader's grasps and releases against the renderer's record of what the hand held (a change of
    `DemoTrace.attached` between held and empty), one-to-one by smallest |dt| within `max_dt_s`, same kind."""
    if read is None:
        return {}
    trace = session.trace()
    held = trace.attached >= 0
    truth = [(float(trace.t[i]), "grasp" if held[i] else "release") for i in range(1, len(held)) if held[i] != held[i - 1]]
    dts = _pair_nearest([(abs(a - b), j, i) for j, (a, ka) in enumerate(read) for i, (b, kb) in enumerate(truth)
                         if ka == kb and abs(a - b) <= max_dt_s])
    return {"hand_truth": len(truth), "hand_read": len(read), "hand_matched": len(dts), "dts_hand": dts}


def observe_session(session: Any, participant: str, backend: CameraPerception, oracle: Any,
                    segmenting: Any) -> tuple[list[SegmentObservation], list[SegmentObservation], float, float]:
    from sim.perception import demo_segments

    meta = session.meta()
    segs = demo_segments(session, participant, segmenting)
    frames = decode_video(session.video, fps=meta.fps)
    cam, ora, busy = [], [], 0.0
    for seg in segs:
        import numpy as np

        ts = np.array([t for t, _ in frames])
        picked = [frames[int(np.argmin(np.abs(ts - t)))][1] for t in seg.frame_times_s]
        t0 = time.process_time()
        backend.set_duration(seg.video_id, meta.duration_s)
        cam.append(backend.observe(PerceptionInput(segment=seg, frames=picked)))
        busy += time.process_time() - t0
        ora.append(oracle.observe(PerceptionInput(segment=seg, payload=session)))
    return cam, ora, busy, meta.duration_s


def compression(per_participant: dict[str, list[list[SegmentObservation]]]) -> dict[str, float]:
    """Observations written to a fresh store per participant (deterministic editor, no vector index):
    entity observations per retained entity, per participant."""
    from memora_core.config import load_config
    from memora_core.editing import MemoryWriter, load_editor_config, make_decider
    from memora_core.store import MemoryStore

    core = load_config()
    core.store.vectors.backend = "none"
    ecfg = load_editor_config(decider="deterministic")
    ecfg = ecfg.model_copy(update={"candidates": ecfg.candidates.model_copy(update={"embedder": "hashing"})})
    out = {}
    with tempfile.TemporaryDirectory() as d:
        store = MemoryStore.open_writer(Path(d) / "store", core)
        try:
            w = MemoryWriter(store, None, make_decider(ecfg), config=ecfg)
            for pid, sessions in per_participant.items():
                for obs in sessions:
                    for o in obs:
                        w.process(o.model_copy(update={"segment": o.segment.model_copy(
                            update={"participant_id": pid})}))
                w.flush()
                out[pid] = round(float(store.stats(pid).compression_ratio), 3)
        finally:
            store.close()
    return out


def run_bench(sessions: list[Any], config: PerceptionConfig, participant: str = "P01", max_dt_s: float = 1.0,
              progress: Callable[[str], None] | None = None, per_kitchen: bool = True) -> dict[str, Any]:
    """Score the camera backend against the oracle on `sessions`. `per_kitchen`: one backend watches all the
    sessions of one kitchen (render seed) in turn, as the memory writer watches one person's videos (what it
    learned of the kitchen's products carries over, products.py); else a fresh backend per session."""
    import sim.perception  # noqa: F401 - registers the oracle
    from memora_core.config import load_config
    from sim.perception import SimPerception

    cv2.setNumThreads(1)
    segmenting = load_config().segmenting
    totals: dict[str, Any] = {}
    per_session, busy, video_s = [], 0.0, 0.0
    written: dict[str, list] = {}
    oracle_written: dict[str, list] = {}
    kitchens: dict[Any, CameraPerception] = {}
    for s in sessions:
        kitchen = s.meta().seed if per_kitchen else s.video_id
        if kitchen not in kitchens:
            kitchens[kitchen] = CameraPerception(config)
        backend = kitchens[kitchen]
        oracle = SimPerception(PerceptionConfig(backend="sim"), segmenting)
        try:
            cam, ora, b, dur = observe_session(s, participant, backend, oracle, segmenting)
        finally:
            oracle.close()
        busy, video_s = busy + b, video_s + dur
        sc = score_session(cam, ora, max_dt_s)
        reader = backend.hand_reader(s.video_id)
        sc.update(score_hand(None if reader is None else reader.transitions, s, max_dt_s))
        # participants as in bench/benchmarks/demo_render_bench.py: one per routine, and one who does them all
        routine = s.meta().routine
        for pid in (routine, "all_routines"):
            written.setdefault(pid, []).append(cam)
            oracle_written.setdefault(pid, []).append(ora)
        for k, v in sc.items():
            totals[k] = totals.get(k, [] if isinstance(v, list) else 0) + v
        per_session.append({"video_id": s.video_id, **{k: (round(v, 3) if isinstance(v, float) else v)
                                                        for k, v in sc.items() if not k.startswith("dts")}})
        if progress:
            progress(s.video_id)
    ratios = compression(written)
    out = summarise(totals, list(ratios.values()), busy, video_s, per_session, max_dt_s)
    out["compression_by_participant"] = ratios
    oracle_ratios = compression(oracle_written)
    out["oracle_compression_median"] = round(statistics.median(oracle_ratios.values()), 3)
    return out


def summarise(t: dict[str, Any], ratios: list[float], busy: float, video_s: float, per_session: list,
              max_dt_s: float) -> dict[str, Any]:
    div = lambda a, b: round(a / b, 4) if b else 0.0  # noqa: E731
    med = lambda xs: round(statistics.median(xs), 3) if xs else None  # noqa: E731
    return {
        "sessions": len(per_session),
        "objects": {"recall": div(t["obj_name"], t["obj_oracle"]), "precision": div(t["obj_name"], t["obj_camera"]),
                    "oracle": t["obj_oracle"], "camera": t["obj_camera"], "matched": t["obj_name"]},
        "objects_identity": {"recall": div(t["obj_identity"], t["obj_oracle"]),
                             "precision": div(t["obj_identity"], t["obj_camera"]), "matched": t["obj_identity"]},
        "actions": {"recall": div(t["act_name"], t["act_oracle"]), "precision": div(t["act_name"], t["act_camera"]),
                    "median_abs_dt_s": med(t["dts_name"]), "max_dt_s": max_dt_s, "oracle": t["act_oracle"],
                    "camera": t["act_camera"], "matched": t["act_name"]},
        "actions_target": {"recall": div(t["act_target"], t["act_oracle"]),
                           "precision": div(t["act_target"], t["act_camera"]), "matched": t["act_target"]},
        "actions_identity": {"recall": div(t["act_identity"], t["act_oracle"]),
                             "precision": div(t["act_identity"], t["act_camera"]),
                             "median_abs_dt_s": med(t["dts_identity"]), "matched": t["act_identity"]},
        **({"hand": {"recall": div(t["hand_matched"], t["hand_truth"]), "precision": div(t["hand_matched"], t["hand_read"]),
                     "median_abs_dt_s": med(t["dts_hand"]), "truth": t["hand_truth"], "read": t["hand_read"],
                     "matched": t["hand_matched"]}} if "hand_truth" in t else {}),
        "compression_median": med(ratios),
        "realtime_factor": div(video_s, busy),
        "per_session": per_session,
    }
