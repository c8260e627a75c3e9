"""How well candidate steps fit a task: relevance of a recalled text, coverage of a step sequence, and the
recalled procedure (same split as consolidation) that covers the task best."""
from __future__ import annotations

from memora_core.agents.config import AgentsConfig
from memora_core.agents.instruction import Task
from memora_core.agents.planning.labels import split_label
from memora_core.consolidation.procedures import Step, split_procedures
from memora_core.tools.text import stem, tokens


def relevance(task: "Task", verbs: str, text: str, soft_verbs: set[str],
              synonyms: frozenset[str] = frozenset()) -> tuple[float, bool, float]:
    """(score, verb matched, object share): objects weigh most, then the verb. `verbs` holds only the
    candidate's action verbs, so 'washing up liquid' in an object name never matches the verb 'wash'."""
    toks = set(tokens(text))
    objs = set(tokens(task.obj))
    verb_hit = bool(({stem(task.verb)} | synonyms) & set(tokens(verbs)))
    share = len(objs & toks) / len(objs) if objs else 0.0
    verb_ok = verb_hit or task.verb in soft_verbs
    return 0.5 * (share > 0) + 0.3 * verb_ok + 0.2 * share, verb_hit, share


def procedure_around(steps: list[Step], task: "Task", cfg: AgentsConfig) -> tuple[list[Step], float]:
    """Of the procedures (same split as consolidation) in the retrieved steps, the one covering the task best."""
    if not steps:
        return [], 0.0
    steps = sorted(set(steps), key=lambda s: (s.video_id, s.start_s, s.label()))
    cons = cfg.consolidation.model_copy(update={"max_steps": cfg.agents.max_plan_steps})
    soft = set(cfg.agents.soft_task_verbs)
    best, best_score = [], 0.0
    videos = sorted({s.video_id for s in steps})
    for v in videos:
        for proc in split_procedures([s for s in steps if s.video_id == v], cons):
            score, verb_hit, share = relevance(task, " ".join(s.verb for s in proc.steps),
                                               " ".join(s.label() for s in proc.steps), soft)
            score += 0.01 * min(len(proc.steps), cons.min_steps)  # prefer a real procedure to a lone step
            if score > best_score:
                best, best_score = proc.steps, score
    return best, best_score


def coverage(task: Task, labels: list[str], soft_verbs: set[str], synonyms: frozenset[str] = frozenset()) -> float:
    """How much of the task a candidate step sequence is about: half for doing the task's verb (a goal verb
    such as 'prepare' is satisfied by any procedure), half for the share of the task's objects it handles."""
    objs = set(tokens(task.obj))
    have = {t for lbl in labels for t in tokens(lbl)}
    verbs = {t for lbl in labels for t in tokens(split_label(lbl)[0])}
    verb_ok = bool(({stem(task.verb)} | synonyms) & verbs) or task.verb in soft_verbs
    return 0.5 * verb_ok + 0.5 * (len(objs & have) / len(objs) if objs else float(verb_ok))
