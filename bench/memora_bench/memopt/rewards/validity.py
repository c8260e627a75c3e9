"""Entry validity: is the candidate a first-person natural-language memory entry at all? A gate in [0, 1] that FIRM
multiplies into every token reward (firm.py).

Why a gate. The issue defines the writer's output as one first-person memory entry in natural language that fuses
what is seen and said ("I took the orange cup from the shelf and said ..."). None of F, I, R asks for that form: a
verbatim copy of the serialised perception JSON is "faithful" (the evaluator reproduces its source), carries every
key fact (informativeness) and shares the source's words (retrievability). The cpu-tiny run of 2026-12-01 learned
exactly that copy. So the three components stay as they are (plain functions, each its own test) and the reward is
F x I x R x V, with V = `entry_validity(text).score`: a copy of the structured input scores ~0, whatever F, I, R say,
and a plain first-person sentence scores 1, which leaves its reward as before.

V is a product of four factors, each read off the text alone (linear time, nothing executed):
- words: the share of whitespace-separated tokens that are plain words or numbers (with ordinary punctuation);
  prose is ~1, compact JSON (no spaces, quotes and braces glued to words) is far below. Full credit at
  `WORD_SHARE_FULL`, none at `WORD_SHARE_ZERO`, linear between.
- syntax: the share of non-space characters that are structure/markup syntax (braces, brackets, angle brackets,
  `=`, `|`, backslash, backtick, `#`); quotes are not counted here (speech is quoted in prose). Full credit up to
  `SYNTAX_SHARE_FREE`, none from `SYNTAX_SHARE_ZERO`.
- key:value: keys followed by `:` or `=` (a quoted string or an identifier). One is free (`I said: ...`); a key
  that is a field name of the perception schema (memora_core SegmentObservation, and the compact form's keys)
  counts twice. Each counted key past the first takes `KV_STEP` off.
- first person: an entry without a first-person pronoun (I, me, my, we, ...) keeps only `NOT_FIRST_PERSON`: it is
  the wrong form, but soft, so a group of third-person candidates still ranks by F x I x R.
The flaws found are reported as `EntryFlaw` members (types, never message text).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from memora_core.schemas import SegmentObservation

WORD_SHARE_FULL, WORD_SHARE_ZERO = 0.9, 0.5
SYNTAX_SHARE_FREE, SYNTAX_SHARE_ZERO = 0.01, 0.05
KV_FREE, KV_STEP = 1, 0.5
NOT_FIRST_PERSON = 0.5

SYNTAX_CHARS = frozenset("{}[]<>=|\\`#")
_WORD = re.compile(r"[(\"'“‘]*(?:[A-Za-z][A-Za-z'’-]*|\d+(?:[.,:]\d+)*(?:st|nd|rd|th|s|am|pm)?)[.,;:!?)\"'”’…]*")
_KEY = re.compile(r"(\"[^\"\n]{1,40}\"|\b[A-Za-z_][A-Za-z0-9_]*)\s*[:=]")
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|I’m|I’ve)\b|\b(?:me|my|mine|myself|we|us|our|ours)\b",
                           re.IGNORECASE)
_CAPITAL_I = re.compile(r"\bI\b")
COMPACT_KEYS = frozenset({"t", "did", "summary", "actions", "objects", "name", "category", "confidence", "aliases"})


class EntryFlaw(str, Enum):
    EMPTY = "empty"
    NOT_WORDS = "not_words"                # many tokens are not plain words
    STRUCTURE_SYNTAX = "structure_syntax"  # braces, brackets, markup
    KEY_VALUE = "key_value"                # key: value / key=value pairs, schema field names as keys
    NOT_FIRST_PERSON = "not_first_person"


@dataclass(frozen=True)
class EntryValidity:
    score: float
    words: float
    syntax: float
    key_value: float
    first_person: float
    flaws: tuple[EntryFlaw, ...]


def _ramp_down(x: float, free: float, zero: float) -> float:
    """1 at or below `free`, 0 at or above `zero`, linear between."""
    return max(0.0, min(1.0, (zero - x) / (zero - free)))


def _schema_fields(schema: dict) -> set[str]:
    names: set[str] = set()
    for node in [schema, *schema.get("$defs", {}).values()]:
        names.update(node.get("properties", {}))
    return names


@lru_cache(maxsize=1)
def perception_field_names() -> frozenset[str]:
    """Field names of the perception schema (every nested model) and of the compact form (memopt/compact.py)."""
    return frozenset(n.lower() for n in _schema_fields(SegmentObservation.model_json_schema()) | COMPACT_KEYS)


def word_share(text: str) -> float:
    tokens = text.split()
    return sum(1 for t in tokens if _WORD.fullmatch(t)) / len(tokens) if tokens else 0.0


def syntax_share(text: str) -> float:
    chars = [c for c in text if not c.isspace()]
    return sum(1 for c in chars if c in SYNTAX_CHARS) / len(chars) if chars else 0.0


def key_value_count(text: str) -> int:
    """Keys followed by ':' or '=', a perception-schema field name counting twice."""
    fields = perception_field_names()
    n = 0
    for m in _KEY.finditer(text):
        key = m.group(1).strip('"').strip().lower()
        n += 2 if key in fields else 1
    return n


def is_first_person(text: str) -> bool:
    return any(m.group(0) != "i" for m in _FIRST_PERSON.finditer(text)) or bool(_CAPITAL_I.search(text))


def entry_validity(text: str) -> EntryValidity:
    """The gate V in [0, 1] and the flaws found; see the module docstring for each factor."""
    if not text.strip():
        return EntryValidity(0.0, 0.0, 0.0, 0.0, 0.0, (EntryFlaw.EMPTY,))
    words = _ramp_down(1.0 - word_share(text), 1.0 - WORD_SHARE_FULL, 1.0 - WORD_SHARE_ZERO)
    syntax = _ramp_down(syntax_share(text), SYNTAX_SHARE_FREE, SYNTAX_SHARE_ZERO)
    kv = max(0.0, 1.0 - KV_STEP * max(0, key_value_count(text) - KV_FREE))
    person = 1.0 if is_first_person(text) else NOT_FIRST_PERSON
    flaws = tuple(f for f, v in ((EntryFlaw.NOT_WORDS, words), (EntryFlaw.STRUCTURE_SYNTAX, syntax),
                                 (EntryFlaw.KEY_VALUE, kv), (EntryFlaw.NOT_FIRST_PERSON, person)) if v < 1.0)
    return EntryValidity(words * syntax * kv * person, words, syntax, kv, person, flaws)
