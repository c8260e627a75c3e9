"""A participant's history as MemLife segments: EPIC narrations -> core segment grid (MemLife's own length)
-> core narration perception -> `SegmentInput` on the participant's global timeline."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from memora_core.config import SegmentingConfig
from memora_core.ingest.narration import NarrationRow, group_narrations, load_narrations, load_video_durations
from memora_core.perception.base import PerceptionInput, load_perception_config, make_perception

from memora_bench.memlife.types import SegmentInput, Timeline

log = logging.getLogger(__name__)


@dataclass
class History:
    participant_id: str
    timeline: Timeline
    segments: list[SegmentInput]
    rows: list[NarrationRow]  # the narration rows of the timeline's videos (evidence intervals come from them)


def narration_rows(data_root: Path, pid: str, videos: list[str]) -> list[NarrationRow]:
    keep, rows = set(videos), []
    for path in sorted((data_root / "epic100").glob("*.csv")):
        if "narration" not in path.name and "validation" not in path.name and "train" not in path.name:
            continue
        try:
            rows.extend(r for r in load_narrations(path, pid) if r.video_id in keep)
        except ValueError as exc:  # a CSV that is not a narration table
            log.debug("skipping %s: %s", path, exc)
    return rows


def build_history(data_root: Path, pid: str, videos: list[str], seg_cfg: SegmentingConfig) -> History:
    """Segments of `videos` (the participant's history, e.g. an EAM-QA video_scope) in timeline order."""
    rows = narration_rows(data_root, pid, videos)
    if not rows:
        raise FileNotFoundError(f"no narrations for {pid}'s {len(videos)} videos under {data_root}/epic100")
    info = data_root / "epic100" / "EPIC_100_video_info.csv"
    durations = load_video_durations(info) if info.exists() else {}
    last = {}
    for r in rows:
        last[r.video_id] = max(last.get(r.video_id, 0.0), r.stop_s)
    have = sorted({r.video_id for r in rows})
    timeline = Timeline({v: durations.get(v) or last[v] for v in have})
    perception = make_perception(load_perception_config(data_dir=str(data_root)))
    out = []
    for ns in group_narrations(rows, seg_cfg, durations):
        seg = ns.segment
        obs = perception.observe(PerceptionInput(segment=seg, narrations=ns.rows))
        out.append(SegmentInput(
            participant_id=pid, video_id=seg.video_id, index=seg.index, start_s=seg.start_s, end_s=seg.end_s,
            t_start=timeline.to_global(seg.video_id, seg.start_s), t_end=timeline.to_global(seg.video_id, seg.end_s),
            perception_json=obs.model_dump_json(), transcript=seg.transcript))
    out.sort(key=lambda s: (s.t_start, s.index))
    return History(participant_id=pid, timeline=timeline, segments=out, rows=rows)
