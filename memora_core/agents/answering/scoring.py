"""How well a choice is supported by a window: short-text similarity (token F1 blended with embedding
cosine), the question's relevance to a step, and the choice's clauses matched in order (for 'what next'
questions, only the steps after a step the question names)."""
from __future__ import annotations

import numpy as np

from memora_core.agents.answering.question import Question
from memora_core.agents.answering.windows import Window
from memora_core.tools.text import tokens


class Scorer:
    """Similarity of short texts: token F1 of stems blended with embedding cosine."""

    def __init__(self, vectors: dict[str, np.ndarray], lexical_weight: float) -> None:
        self.vectors = vectors
        self.w = lexical_weight
        self._cache: dict[tuple[str, str], float] = {}

    def sim(self, a: str, b: str) -> float:
        key = (a, b)
        if key in self._cache:
            return self._cache[key]
        ta, tb = set(tokens(a)), set(tokens(b))
        common = len(ta & tb)
        f1 = 2 * common / (len(ta) + len(tb)) if ta and tb and common else 0.0
        va, vb = self.vectors.get(a), self.vectors.get(b)
        if va is None or vb is None:
            s = f1
        else:
            s = self.w * f1 + (1 - self.w) * max(0.0, float(va @ vb))
        self._cache[key] = s
        return s


def question_relevance(q: Question, step: str) -> float:
    """Share of a step's content words that the question names ('pick up bowl' in 'picks up a bowl')."""
    st = set(tokens(step))
    return len(st & q.content) / len(st) if st else 0.0


def window_coverage(q: Question, w: Window) -> float:
    if not q.content:  # 'What was the person doing in video X?': the video scope is the whole question
        return 1.0 if w.steps else 0.0
    have = w.tokens()
    covered = q.content & have
    covered |= {c for c, heads in q.categories.items() if heads & have}
    return len(covered) / len(q.content)


def _ordered_match(parts: list[str], steps: list[str], scorer: Scorer) -> float:
    """Mean match of the clauses to steps in the stated order (the best in-order pairing of clauses to
    distinct, increasing steps), else 0.8 x the mean best match of each clause on its own."""
    if not steps:
        return 0.0
    sims = [[scorer.sim(p, s) for s in steps] for p in parts]
    free = sum(max(row) for row in sims) / len(parts)
    if len(parts) == 1:
        return free
    return max(_in_order(sims) / len(parts), 0.8 * free)


def _in_order(sims: list[list[float]]) -> float:
    """Largest sum of sims[i][j_i] over strictly increasing j_0 < j_1 < ... (0 when too few steps)."""
    n = len(sims[0])
    if n < len(sims):
        return 0.0
    best = list(sims[0])  # best[j]: best sum with the current clause at step j
    for row in sims[1:]:
        prefix, run = [], float("-inf")
        for j in range(n):
            prefix.append(run)  # best of the previous clause at a step before j
            run = max(run, best[j])
        best = [prefix[j] + row[j] for j in range(n)]
    return max(0.0, max(best))


def window_support(q: Question, parts: list[str], w: Window, scorer: Scorer, trigger_min: float) -> float:
    if q.direction == 0:
        return _ordered_match(parts, w.steps, scorer) * (0.5 + 0.5 * window_coverage(q, w))
    best = 0.0
    for i, s in enumerate(w.steps):
        if question_relevance(q, s) < trigger_min:
            continue
        # the successor (or predecessor) steps, nearest first, with a decay per position
        rng = range(i + 1, min(len(w.steps), i + 4)) if q.direction > 0 else range(i - 1, max(-1, i - 4), -1)
        nb = [w.steps[j] for j in rng if question_relevance(q, w.steps[j]) < 1.0 or len(parts) > 1]
        for d, _ in enumerate(nb):
            best = max(best, _ordered_match(parts, nb[d:d + len(parts)], scorer) * (1.0 - 0.15 * d))
    return best
