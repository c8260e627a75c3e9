"""How a plan step is said and grounded: its text as an English imperative with its place, and the order in
which a plan's objects are looked up in memory while tool calls last."""
from __future__ import annotations

from memora_core.schemas import PlanStep
from memora_core.tools.text import tokens

_PARTICLES = {"up", "down", "on", "off", "in", "out", "into", "onto", "over", "away", "back"}
_PREPS = {"in", "on", "into", "onto", "from", "at", "to", "under", "with", "inside", "off", "out"}

_DETERMINERS = {"the", "a", "an", "my", "your", "his", "her", "their", "its", "this", "that", "these", "those",
                "some", "all", "each", "every", "both", "any", "another", "other"}


def spoken(text: str, action: str) -> str:
    """A step label said as an English imperative, with the definite article before its object and after
    each preposition ('put bowl in sink' -> 'put the bowl in the sink'); words already carrying a
    determiner or a number are left as they are."""
    words = text.split()
    n = len(action.split())
    if not words or words[:n] != action.split() or len(words) == n:
        return text
    out = words[:n]
    want = True  # an article goes before the next noun phrase: the object, then each prepositional object
    for w in words[n:]:
        low = w.lower()
        if low == "of" and want:  # 'out of pan': the article goes after 'of'
            out.append(w)
            continue
        if low in _PREPS or low in _PARTICLES and not want:
            out.append(w)
            want = low in _PREPS
            continue
        if want and low not in _DETERMINERS and not low[:1].isdigit() and low not in _PARTICLES:
            out.append("the")
        out.append(w)
        want = False
    return " ".join(out)


def grounding_order(steps: list[PlanStep], objects: list[str], placed: dict[str, str]) -> list[str]:
    """The order in which a plan's objects are looked up while tool calls last: first the objects of steps
    that have no place yet (by how many such steps they are in), then the rest (places, objects the plan
    itself puts somewhere) in plan order."""
    need: dict[str, int] = {}
    for s in steps:
        if s.object and not s.target and s.object not in placed:
            need[s.object] = need.get(s.object, 0) + 1
    first = sorted(need, key=lambda o: (-need[o], objects.index(o)))
    return first + [o for o in objects if o not in need]


def with_place(text: str, action: str, place: str) -> str:
    """A step's text with the place memory grounded for its object ('mix dough' + 'bowl' -> 'mix dough at
    bowl'), worded as PlanStep.render words a target; unchanged when the text already names the place."""
    if not text or set(tokens(place)) <= set(tokens(text)):
        return text
    return f"{text} {'in' if action in ('place', 'put', 'pour') else 'at'} {place}"
