"""Retrievability: would the frozen reader's cached actions still find this segment's entry if the candidate
replaced it? Per training question whose evidence is the segment: 1 when any replayed search (rank among the
entries eligible under the action's time constraint within the recorded budget) or fetch (interval contains the
segment) returns the candidate, else 0; the reward is the mean over those questions (1.0, neutral, when none).
"""
from __future__ import annotations

import numpy as np

from memora_bench.memlife.types import EntryKey, Interval
from memora_bench.memopt.replay_cache import ReplayCache


def retrievability(cache: ReplayCache, key: EntryKey, interval: Interval, cand_vec: np.ndarray) -> float:
    questions = cache.questions_of(key)
    if not questions:
        return 1.0
    v = np.asarray(cand_vec, dtype=np.float32)
    v = v / (np.linalg.norm(v) or 1.0)
    hits = sum(any(cache.returns(a, key, interval, v) for a in q.actions) for q in questions)
    return hits / len(questions)
