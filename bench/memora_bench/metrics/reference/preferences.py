"""PrefAdh as the reference computes it (yuzihaowashu/MEMORA @ 9c80048,
`scripts/paper_results/planning_metrics.py`: `_preference_adherence`).

A preference's content is the tokens of its keywords (of its text, less "used", "typically", "use",
"user", when it has none). It is relevant to a task when the Jaccard of the task query's tokens with the
content is at least 0.05. Its score is the share of content tokens that are plan tokens or substrings of
the plan text. PrefAdh is the mean over relevant preferences; undefined for an empty plan, an empty bank or
when none is relevant.
"""
from __future__ import annotations

from statistics import mean

from memora_bench.metrics.reference.lexicon import jaccard, tokenize
from memora_bench.metrics.reference.memory_view import PreferenceStatement

PREFERENCE_RELEVANCE_THRESHOLD = 0.05  # the reference's PREFERENCE_RELEVANCE_THRESHOLD
_TEXT_ONLY_DROPPED = frozenset({"used", "typically", "use", "user"})


def content_tokens(pref: PreferenceStatement) -> set[str]:
    if pref.keywords:
        out: set[str] = set()
        for kw in pref.keywords:
            out |= tokenize(kw)
        return out
    return tokenize(pref.text) - _TEXT_ONLY_DROPPED


def prefadh(plan: list[str], query: str, preferences: list[PreferenceStatement],
            threshold: float = PREFERENCE_RELEVANCE_THRESHOLD) -> float | None:
    if not plan or not preferences:
        return None
    q = tokenize(query)
    plan_text = " ".join(plan).lower()
    plan_tokens = tokenize(plan_text)
    scores = []
    for pref in preferences:
        if not pref.text:
            continue
        content = content_tokens(pref)
        if not content or jaccard(q, content) < threshold:
            continue
        scores.append(sum(1 for t in content if t in plan_tokens or t in plan_text) / len(content))
    return mean(scores) if scores else None
