"""The segment grid shared by every ingest source (video files, live frames, narration tables)."""
from __future__ import annotations

import math

from memora_core.config import SegmentingConfig

MAX_SEGMENTS = 100_000  # about 11 days of 10 s segments: far past any recording, far below a memory problem


def plan_segments(duration_s: float, cfg: SegmentingConfig) -> list[tuple[float, float]]:
    """(start_s, end_s) of each segment of a stream lasting `duration_s`.

    Fixed windows of `cfg.segment_s`; a trailing piece shorter than `cfg.min_tail_s` is folded into
    the one before, because a sub-second segment carries almost no evidence but costs a full edit pass.
    """
    if not math.isfinite(duration_s) or duration_s / cfg.segment_s > MAX_SEGMENTS:
        # the grid is a list: an absurd duration (a bad timestamp) must not allocate without bound
        raise ValueError(f"stream duration {duration_s!r} s is not a finite length of at most "
                         f"{MAX_SEGMENTS} segments of {cfg.segment_s} s")
    if duration_s <= 0:
        return []
    n = max(1, math.ceil(duration_s / cfg.segment_s - 1e-9))
    bounds = [(i * cfg.segment_s, min((i + 1) * cfg.segment_s, duration_s)) for i in range(n)]
    if len(bounds) > 1 and bounds[-1][1] - bounds[-1][0] < cfg.min_tail_s:
        tail_end = bounds.pop()[1]
        bounds[-1] = (bounds[-1][0], tail_end)
    return bounds


def segment_index_at(t_s: float, bounds: list[tuple[float, float]], cfg: SegmentingConfig) -> int:
    """Index of the segment containing time t (times past the end belong to the last segment)."""
    if not bounds:
        raise ValueError("no segments")
    return max(0, min(int(t_s // cfg.segment_s), len(bounds) - 1))


def sample_times(start_s: float, end_s: float, cfg: SegmentingConfig) -> list[float]:
    """Frame sample times inside [start, end): `cfg.fps` per second, at most `cfg.max_frames`.

    A folded segment (or a long configured window) would exceed the cap at the nominal rate; the
    samples are then spread evenly over the whole segment so no part of it goes unseen.
    """
    step = 1.0 / cfg.fps
    n = max(1, math.ceil((end_s - start_s) / step - 1e-9))
    if n <= cfg.max_frames:
        return [start_s + i * step for i in range(n)]
    span = end_s - start_s
    return [start_s + span * i / cfg.max_frames for i in range(cfg.max_frames)]
