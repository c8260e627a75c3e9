"""How much consolidated preferences and habits support each answer to a question about the person.

Both are typed records (schemas.knowledge) and both say, for something the question can name, which
options the person takes and how often:
- a habit: after the trigger action (`after_action` `after_object`), the actions seen next, with counts;
- a preference: for its subject (and action), the choice taken and the alternatives, with counts.
The answerer keeps the records whose trigger or subject the question names and scores each choice by
the option it describes: the most frequent option gives full support, a rarer one a share in proportion
to its count, an option never seen none. Read as typed fields; no sentence is parsed.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from memora_core.tools.text import tokens


@dataclass(frozen=True)
class KnowledgeView:
    """One habit or preference as the answerer reads it."""

    about: str                               # the trigger action or the preference's subject
    named: float                             # share of its words that the question names
    options: tuple[tuple[str, float], ...]   # (option as an action text, count relative to the most frequent)


def say_action(action: str, subject: str, second: str = "") -> str:
    """An action said as narrated from its fields: the verb, its object, then the verb's particle and the
    second object ('put-in', 'cup', 'drying rack' -> 'put cup in drying rack')."""
    verb, *particles = action.split("-")
    return " ".join(w for w in [verb, subject, *particles, second] if w)


def _options_of_preference(it: dict[str, Any]) -> list[tuple[str, int]]:
    subject, action = it["subject"], str(it.get("action", ""))
    alts = dict(it.get("alternatives") or {})
    if it.get("attribute") == "treatment":    # alternatives are other verbs for the subject
        other = [(say_action(v, subject), c) for v, c in alts.items()]
    elif it.get("attribute") == "companion":  # alternatives are other objects with 'action subject'
        other = [(say_action(action, subject, o), c) for o, c in alts.items()]
    else:                                     # variants: other attribute values of the same object
        other = [(f"use {o} {subject}", c) for o, c in alts.items()]
    return [(it["choice_text"], int(it["support"])), *other]


def knowledge_views(items: Sequence[dict[str, Any]], question: str, min_named: float,
                    kinds: tuple[str, ...] = ("habit", "preference")) -> list[KnowledgeView]:
    """Typed habit / preference items whose trigger / subject the question names (at least `min_named` of
    its words), each with its options."""
    said = set(tokens(question))
    out, seen = [], set()
    for it in items:
        kind = it.get("kind")
        if kind not in kinds:
            continue
        ident = it.get("habit_id") or it.get("pref_id")
        if ident in seen:
            continue
        seen.add(ident)
        if kind == "habit":
            about = f"{it['after_action']} {it.get('after_object', '')}"
            fol = it.get("followers") or [{"text": it["text"], "count": it.get("support", 1)}]
            opts = [(str(f["text"]), int(f["count"])) for f in fol]
        else:
            about = f"{it.get('action', '')} {it['subject']}" if it.get("attribute") == "companion" else it["subject"]
            opts = _options_of_preference(it)
        words = set(tokens(about))
        named = len(words & said) / len(words) if words else 0.0
        thing = tokens(it.get("after_object", "") if kind == "habit" else it["subject"])
        if thing and thing[-1] not in said:
            continue  # the question must name what the record is about ('open oven' is not 'open kettle')
        top = max((c for _, c in opts), default=0)
        if named >= min_named and top > 0:
            out.append(KnowledgeView(about.strip(), named, tuple((t, c / top) for t, c in opts)))
    return out


def knowledge_support(clause: str, views: Sequence[KnowledgeView], sim: Callable[[str, str], float],
                      min_sim: float) -> float:
    """Best support any record gives a choice (its first clause): similarity to an option (counted from
    `min_sim`) times the option's relative count and how fully the question names the record."""
    best = 0.0
    for v in views:
        for text, rel in v.options:
            s = sim(clause, text)
            if s >= min_sim:
                best = max(best, s * rel * v.named)
    return best

