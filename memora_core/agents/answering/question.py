"""The question read for answering: its content words, the video it names (or masks), whether it asks what
follows or precedes an action or about a procedure; and a choice split into its clauses ("X, then Y")."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from memora_core.agents.config import AgentsConfig
from memora_core.tools.text import tokens
_VIDEO_RE = re.compile(r"\b([A-Z]\d{2}_\d{2,3})\b")
_MASKED_VIDEO_RE = re.compile(r"\b[A-Z]\d{2}_\d*\?")
_CLAUSE_SPLIT = re.compile(r",\s*(?:and\s+)?then\s+|\s+and\s+then\s+|,\s*then\s+|\s+then\s+|;\s*|,\s+and\s+|,\s+")


@dataclass
class Question:
    text: str
    content: set[str]
    video: str | None
    masked_video: bool
    direction: int  # +1: asks what follows an action; -1: what precedes it; 0: neither
    procedure: bool = False  # asks for a way of doing something (approach, workflow, order of steps)
    # content words that name a category ('cookware'), with the head words of its members ('pan', 'pot'):
    # memory that names a member covers the category word
    categories: dict[str, frozenset[str]] = field(default_factory=dict)


def analyse(question: str, cfg: AgentsConfig, vocab: Any = None) -> Question:
    stem_text = question.split("\n\n")[0].strip()  # the benchmark's instruction suffix is not content
    m = _VIDEO_RE.search(stem_text)
    masked = m is None and bool(_MASKED_VIDEO_RE.search(stem_text))
    filler = set(tokens(" ".join(cfg.agents.question_filler_words)))
    content = {t for t in tokens(stem_text) if t not in filler and not re.fullmatch(r"[a-z]\d{2}", t)
               and not t.isdigit()}
    low = stem_text.lower()
    after = re.search(r"\b(next|after|afterwards|follows?|followed|leads? to|then)\b", low)
    before = re.search(r"\b(before|prior to|first)\b", low)
    direction = 1 if after else (-1 if before and "before" in low else 0)
    proc_words = set(tokens(" ".join(cfg.agents.routine_question_words)))
    procedure = bool(proc_words & set(tokens(stem_text)))
    categories: dict[str, frozenset[str]] = {}
    if vocab:
        for w in re.findall(r"[a-z]+", low):
            word = tokens(w)
            if not word or word[0] not in content:
                continue
            heads = frozenset(t for member in vocab.members(w) for t in tokens(member)[-1:])
            if heads:
                categories[word[0]] = heads
    return Question(stem_text, content, m.group(1) if m else None, masked, direction, procedure, categories)


def clauses(choice: str) -> list[str]:
    parts = [p.strip(" .") for p in _CLAUSE_SPLIT.split(choice.strip().rstrip(".")) if p and p.strip(" .")]
    return [p for p in parts if tokens(p)] or [choice]


_PRONOUN_RE = re.compile(r"\b(it|them)\b", re.IGNORECASE)


def resolve_pronouns(parts: list[str], topic: str, first_object: str = "") -> list[str]:
    """Clauses that refer back with 'it' / 'them' name what they refer to: the object the question is about
    ('handled the jug ... filled it'), else, after the first clause, that clause's object ('filled the jug,
    then emptied it')."""
    out = []
    for i, p in enumerate(parts):
        ref = topic or (first_object if i > 0 else "")
        out.append(_PRONOUN_RE.sub(ref, p) if ref else p)
    return out
