"""OrderExec as the reference computes it (yuzihaowashu/MEMORA @ 9c80048,
`scripts/paper_results/planning_metrics.py`: `_ordered_executability`, `_ground_truth_steps`).

Greedy ordered-prefix coverage: the reference verbs (the action verb of each ground-truth step, filler and
empty ones dropped) are taken in order; each is looked for from the current plan position onwards among
plan steps that are executable by their text and open with the same verb; a hit moves the position past
it, and the first reference verb not found ends the walk. Score = hits / number of reference verbs,
rounded to 4 places per task. Undefined (None) for an empty plan or when no reference verb remains.
"""
from __future__ import annotations

from memora_bench.metrics.reference.lexicon import FILLER, action_verb
from memora_bench.metrics.reference.step_checks import executable


def reference_verbs(reference_steps: list[str]) -> list[str]:
    return [v for v in (action_verb(s) for s in reference_steps) if v and v != FILLER]


def order_exec(plan: list[str], reference_steps: list[str]) -> float | None:
    if not plan or not reference_steps:
        return None
    wanted = reference_verbs(reference_steps)
    if not wanted:
        return None
    # a plan step that can match: executable by its text, with its verb (a filler step matches nothing)
    usable = [action_verb(s) if executable(s) else None for s in plan]
    usable = [None if v == FILLER else v for v in usable]
    position, hits = 0, 0
    for verb in wanted:
        while position < len(plan) and usable[position] != verb:
            position += 1
        if position == len(plan):
            break
        hits += 1
        position += 1
    return round(hits / len(wanted), 4)
