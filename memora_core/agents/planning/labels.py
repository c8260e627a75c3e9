"""Plan step labels as text: 'verb object prep target' split and joined, the objects a task names by their
heads, repeated labels dropped, and a recalled procedure merged with the task's generic frame."""
from __future__ import annotations

from memora_core.agents.instruction import Task
from memora_core.agents.step_text import _PARTICLES, _PREPS
from memora_core.agents.vocab import Vocabulary
from memora_core.schemas import Evidence


def object_heads(task: Task, vocab: Vocabulary) -> list[str]:
    """The objects a task names, one per noun phrase, each by its head: the last word of the phrase the
    vocabulary knows as an object (without a vocabulary: its last word), singular ('kitchen worktop' ->
    worktop)."""
    heads: list[str] = []
    for phrase in task.objects:
        ws = phrase.lower().split()
        known = [w for w in ws if vocab.is_object(w)] if vocab else ws
        if known:
            head = vocab.singular(known[-1]) if vocab else _singular(known[-1])
            if head not in heads:
                heads.append(head)
    return heads


def _singular(word: str) -> str:
    for suffix, keep in (("ies", "y"), ("shes", "sh"), ("ches", "ch"), ("oes", "o"), ("s", "")):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 2:
            return word[: -len(suffix)] + keep
    return word


def split_label(label: str) -> tuple[str, str | None, str | None]:
    """'put lid on pan' -> ('put', 'lid', 'pan'); 'pick up knife' -> ('pick up', 'knife', None)."""
    words = label.lower().replace("-", " ").split()
    if not words:
        return "do", None, None
    n = 2 if len(words) > 2 and words[1] in _PARTICLES else 1
    action, rest = " ".join(words[:n]), words[n:]
    if len(rest) > 1 and rest[-1] in _PARTICLES:  # 'put pan down' -> 'put down pan'
        action, rest = f"{action} {rest[-1]}", rest[:-1]
    for i, w in enumerate(rest):
        if w in _PREPS and i > 0:
            target = [x for x in rest[i + 1:] if x != "of"]  # 'out of pan' -> 'pan'
            return action, " ".join(rest[:i]) or None, " ".join(target) or None
    return action, " ".join(rest) or None, None


def dedupe_labels(labels: list[tuple[str, list[Evidence]]]) -> list[tuple[str, list[Evidence]]]:
    out: list[tuple[str, list[Evidence]]] = []
    for label, ev in labels:
        if label and (not out or out[-1][0] != label):
            out.append((label, ev))
    return out


def merge_with_prior(prior: list[str], recalled: list[str]) -> list[str]:
    """A transferred procedure completed by the generic task frame every planner knows: recalled steps keep
    their order; a prior step whose verb the recalled procedure lacks is inserted where the frame puts it."""
    out: list[str] = []
    rest = list(recalled)
    for p in prior:
        pv = split_label(p)[0]
        j = next((i for i, r in enumerate(rest) if split_label(r)[0] == pv), None)
        if j is None:
            out.append(p)
        else:
            out += rest[: j + 1]
            rest = rest[j + 1:]
    return out + rest
