"""What a task's reference says: its verb sequence and its own ground-truth objects (used for KeyObj)."""
from __future__ import annotations

from memora_bench.data import PlanningTask
from memora_bench.metrics.objects import NounTaxonomy
from memora_bench.metrics.text import normalize_noun, normalize_verb


def reference_verbs(task: PlanningTask) -> list[str]:
    """Replay: the EPIC verbs of the observed steps; Generalize: the verb opening each reference sentence."""
    out = []
    for s in task.steps:
        v = normalize_verb(s.verb) if s.verb else normalize_verb(s.narration)
        if v:
            out.append(v)
    return out


def key_objects(task: PlanningTask, taxonomy: NounTaxonomy) -> list[str]:
    """The task's own ground-truth objects, never our memory's: Replay uses the task's primary objects (else
    its step nouns); Generalize the direct object of each reference step plus the transfer target."""
    names: list[str] = []
    if task.primary_objects:
        names = [normalize_noun(o) for o in task.primary_objects]
    elif any(s.noun for s in task.steps):
        names = [normalize_noun(s.noun) for s in task.steps if s.noun]
    else:
        names = [o for o in (taxonomy.direct_object(s.narration) for s in task.steps) if o]
    if task.target_object:
        names.append(normalize_noun(task.target_object))
    seen: dict[str, str] = {}
    for n in names:
        c = taxonomy.canonical(n)
        if c and c not in seen:
            seen[c] = n
    return list(seen.values())
