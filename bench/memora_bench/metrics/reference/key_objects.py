"""KeyObj as the reference computes it (yuzihaowashu/MEMORA @ 9c80048,
`scripts/paper_results/planning_metrics.py`: `_reference_object_coverage`, `_memory_nouns`).

Replay: the reference objects are the key objects of the full memory's procedure template whose tokens
(goal, key objects, steps) have the highest Jaccard with the task query's tokens (first best wins); below
0.10, or with no template, KeyObj is undefined. Key objects are lower-cased, "_" read as a space, kept with
their repeats; one is found when it, or any of its words longer than two letters, is a substring of the
plan text.
Generalize: the reference objects are the distinct stems of the ground-truth step words that are in the
memory's noun vocabulary (the kitchen-noun list when memory yields none); one is found when it is the stem
of a plan word.
KeyObj = found / reference objects; undefined for an empty plan or no reference objects.
"""
from __future__ import annotations

from memora_bench.metrics.reference.lexicon import (
    COLOUR_WORDS, KITCHEN_NOUNS, jaccard, letter_words, stem, tokenize,
)
from memora_bench.metrics.reference.memory_view import MemoryView, Procedure

ROUTINE_MATCH_THRESHOLD = 0.10  # the reference's ROUTINE_MATCH_THRESHOLD


def _name_stems(name: str) -> set[str]:
    """The stem of a name's last word, and of each of its words of 4+ letters that is not a colour."""
    words = letter_words(name.replace("_", " "))
    if not words:
        return set()
    return {stem(words[-1])} | {stem(w) for w in words if len(w) >= 4 and w not in COLOUR_WORDS}


def memory_nouns(memory: MemoryView) -> set[str]:
    """Noun stems of every object name and every procedure key object in memory."""
    out: set[str] = set()
    for name in memory.object_names:
        out |= _name_stems(name)
    for proc in memory.procedures:
        for obj in proc.key_objects:
            out |= _name_stems(obj)
    return out


def procedure_tokens(proc: Procedure) -> set[str]:
    out = tokenize(proc.goal)
    for obj in proc.key_objects:
        out |= tokenize(obj.replace("_", " "))
    for step in proc.steps:
        out |= tokenize(step)
    return out


def matched_procedure(query: str, memory: MemoryView) -> tuple[Procedure | None, float]:
    """The first procedure with the highest query Jaccard (None when no procedure scores above 0)."""
    best, best_score = None, 0.0
    q = tokenize(query)
    for proc in memory.procedures:
        score = jaccard(q, procedure_tokens(proc))
        if score > best_score:
            best, best_score = proc, score
    return best, best_score


def _replay_hits(plan_text: str, objects: list[str]) -> int:
    return sum(1 for o in objects
               if o in plan_text or any(w in plan_text for w in o.split() if len(w) > 2))


def keyobj(plan: list[str], *, split: str, query: str, ground_truth: list[str], memory: MemoryView,
           threshold: float = ROUTINE_MATCH_THRESHOLD) -> float | None:
    if not plan:
        return None
    plan_text = " ".join(plan).lower()
    if split == "generalize":
        vocabulary = memory_nouns(memory) or KITCHEN_NOUNS
        wanted = {s for s in (stem(w) for w in letter_words(" ".join(ground_truth))) if s in vocabulary}
        if not wanted:
            return None
        plan_stems = {stem(w) for w in letter_words(plan_text)}
        return sum(1 for s in wanted if s in plan_stems) / len(wanted)
    proc, score = matched_procedure(query, memory)
    if proc is None or score < threshold:
        return None
    objects = [o for o in (k.lower().strip().replace("_", " ") for k in proc.key_objects) if o]
    if not objects:
        return None
    return _replay_hits(plan_text, objects) / len(objects)
