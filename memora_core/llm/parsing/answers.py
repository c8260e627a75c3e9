"""One answer letter A-E in model output: "Answer: B", "(C)", "option D", {"answer": "A"}, a lone letter, or
the text of exactly one choice; the article "A" in prose ("A person ...") is not a letter.

The cue pattern bounds the suffix after the cue word (`\\w{0,3}`: "answers", "selected") and takes
whitespace possessively; the unbounded `\\w*` it replaces made `finditer` quadratic on "answeranswer...".
Never raises."""
from __future__ import annotations

import re
from typing import Any

from memora_core.llm.parsing.jsontext import parse_json_object
from memora_core.llm.parsing.limits import CHECK_EVERY, ParseBudget, bounded_reply, guarded

LETTERS = "ABCDE"

_CUE = re.compile(r"(?:answer|option|choice|choose|select|pick)\w{0,3}\s*+(?:is|:|=|would be)?\s*+[\(\[\*\"']*+"
                  r"([A-E])(?![A-Za-z])(\s++[a-z]\w*+)?", re.I)
_LEAD = re.compile(r"\s*+[\(\[\*]*+([A-E])\s*+(?:[\)\]\.:]|\*\*)(?:\s|$)")
_BARE = re.compile(r"[\s\(\[\*\"']*+([A-Ea-e])[\s\)\]\.\*\"'!]*+")
_PAREN = re.compile(r"\(([A-E])\)")
_CONNECTIVES = {"because", "since", "as", "given", "based", "which", "from", "per"}


def _json_letter(t: str, budget: ParseBudget) -> str | None:
    obj = parse_json_object(t, budget=budget)
    if obj is None:
        return None
    val = obj.get("answer", obj.get("letter", obj.get("choice")))
    if not isinstance(val, str):
        return None
    val = val.strip()
    if val[:1].upper() in LETTERS and val[:1] and (len(val) == 1 or not val[1:2].isalpha()):
        return val[0].upper()
    return None


def _cue_letter(t: str, budget: ParseBudget) -> str | None:
    found = None
    for k, m in enumerate(_CUE.finditer(t)):
        if k % CHECK_EVERY == 0:
            budget.check()
        letter, follow = m.group(1), (m.group(2) or "").strip().lower()
        if letter.upper() == "A" and follow and follow not in _CONNECTIVES:
            continue  # "the answer is A kettle" / "answer is a kettle": the article, not the letter
        found = letter.upper()
    return found


@guarded(lambda: None)
def parse_answer(text: Any, choices: dict[str, str] | None = None, *, budget: ParseBudget) -> str | None:
    """One letter A-E, or None when the output states none unambiguously."""
    t = bounded_reply(text, budget).strip()
    if not t:
        return None
    letter = _json_letter(t, budget)
    if letter:
        return letter
    bare = _BARE.fullmatch(t)
    if bare:
        return bare.group(1).upper()
    letter = _cue_letter(t, budget)
    if letter:
        return letter
    m = _LEAD.match(t)
    if m:
        return m.group(1)
    budget.check()
    parens = set(_PAREN.findall(t))
    if len(parens) == 1:
        return parens.pop()
    if choices:
        low = t.lower()
        hits = [k for k, v in choices.items() if isinstance(v, str) and v.strip() and v.strip().lower() in low]
        if len(hits) == 1 and hits[0].upper() in LETTERS:
            return hits[0].upper()
    return None
