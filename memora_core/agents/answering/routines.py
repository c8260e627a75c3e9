"""Routines as answer support (full MEMORA, procedure questions): each routine's relevance to the question's
topic, and a choice's clauses aligned to the routine's ordered steps (weighted LCS) plus its key objects."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memora_core.agents.answering.scoring import Scorer
from memora_core.tools.text import tokens


def lcs_alignment(parts: list[str], steps: list[str], scorer: Scorer, min_sim: float) -> float:
    """Order-aware match of a choice's clauses to a procedure's ordered steps: weighted longest common
    subsequence (a clause and a step pair up when their similarity reaches `min_sim`, counting that
    similarity), divided by the number of clauses. Clauses stated in the routine's order score higher than
    the same clauses in another order."""
    if not parts or not steps:
        return 0.0
    prev = [0.0] * (len(steps) + 1)
    for p in parts:
        cur = [0.0] * (len(steps) + 1)
        for j, st in enumerate(steps, 1):
            s = scorer.sim(p, st)
            cur[j] = max(prev[j], cur[j - 1], prev[j - 1] + (s if s >= min_sim else 0.0))
        prev = cur
    return prev[-1] / len(parts)


@dataclass
class RoutineView:
    """What the answerer reads from one routine skill: its canonical ordered steps and key objects."""

    goal: str
    steps: list[str]
    key_objects: list[str]
    relevance: float  # share of the question's content words the routine (goal, steps, objects) contains

    def object_tokens(self) -> set[str]:
        return {t for o in self.key_objects for t in tokens(o)} | {t for s in self.steps for t in tokens(s)}


def shared_choice_words(choices: list[str], min_choices: int = 2) -> set[str]:
    """Content words that several choices share: they name the question's topic (the kettle every choice
    talks about), not what distinguishes the answer."""
    counts: dict[str, int] = {}
    for c in choices:
        for t in set(tokens(c)):
            counts[t] = counts.get(t, 0) + 1
    return {t for t, n in counts.items() if n >= min_choices}


def routine_views(items: list[dict[str, Any]], topic: set[str]) -> list[RoutineView]:
    """Distinct routines, each with its lexical relevance: the share of the topic words it contains."""
    out, seen = [], set()
    for it in items:
        if "steps" not in it or "goal" not in it or it.get("routine_id") in seen:
            continue
        seen.add(it.get("routine_id"))
        words = set(tokens(" ".join([it["goal"], *it["steps"], *it.get("key_objects", [])])))
        rel = len(topic & words) / len(topic) if topic else 0.0
        out.append(RoutineView(it["goal"], list(it["steps"]), list(it.get("key_objects", [])), rel))
    return out


def routine_support(parts: list[str], objects: list[str], r: RoutineView, scorer: Scorer, min_sim: float,
                    object_weight: float) -> float:
    """How well a choice describes a routine: its clauses along the routine's steps (in order) and the share
    of the objects it names that the routine uses, weighted by how much of the question the routine covers."""
    seq = lcs_alignment(parts, r.steps, scorer, min_sim)
    if objects:
        have = r.object_tokens()
        obj = sum(1 for o in objects if set(tokens(o)) & have) / len(objects)
    else:
        obj = 0.0
    return r.relevance * ((1 - object_weight) * seq + object_weight * obj)
