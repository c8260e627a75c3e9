"""Is a plan step executable, judged from its text alone, as the reference judges it
(yuzihaowashu/MEMORA @ 9c80048, `src/memora/evaluation/planning/step_checks.py`: `_step_has_action`,
`_step_has_object`, `_step_has_location`, `PlanStepChecks.compute_executability`).

A step is executable when its text has an action, an object and a location. The word lists are the
reference's; matching is case-insensitive on word boundaries. Exec is the share of executable steps.
"""
from __future__ import annotations

import re


def _phrases(spec: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in spec.split(",") if p.strip())


ACTION_PHRASES = _phrases("""
pick up, put down, open, close, wash, pour, cut, turn on, turn off, place, move, take, grab, rinse, dry, wipe,
slice, chop, peel, stir, mix, squeeze, fill, empty, flip, scoop, spread, throw, shake, scrub, adjust, pull, push,
set, remove, add, press, lift, lower, fold, unfold, heat, boil, fry, bake, toast, grate, crack, whisk, measure,
transfer, serve, bring, carry, reach, reach for, grasp, hold, grip, release, position, continue, approach,
locate, identify, prepare, ensure, gather, collect, arrange, toss, dispose, discard, rotate, check, inspect,
retrieve, return, stack, pick_up, reach_for, picks up, places, holding, scrubbing, rinsing, wiping, peeling,
stirring, cutting""")

LOCATION_PREPOSITIONS = _phrases("""
on, in, from, near, next to, under, above, inside, at, behind, beside, between, onto, into, out of, toward,
towards, across""")

LOCATION_NOUNS = _phrases("""
counter, countertop, cabinet, sink, shelf, drawer, fridge, refrigerator, stove, oven, table, rack, drying rack,
dish rack, worktop, pan, pot, board, cutting board, chopping board, microwave, dishwasher, bin, trash, garbage,
hob, burner, plate rack, sink area, sink_area, counter area, countertop_area, left zone, right zone,
center zone, table_area, drying_rack_area, left_zone, right_zone, center_zone, colander, bowl, plate, tap,
faucet""")

# Words that never count as the object (besides action and preposition openings).
_NOT_OBJECT = frozenset("the a an and or then to with for is are".split())
_PRONOUN_ONLY = re.compile(r"(?:it|the thing|that|this|them|those|these|something|stuff)", re.IGNORECASE)


def _any_of(phrases: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)


_ACTION = _any_of(ACTION_PHRASES)
_PREPOSITION = _any_of(LOCATION_PREPOSITIONS)
_PLACE_NOUN = _any_of(LOCATION_NOUNS)
# The text is read in chunks of one word, or two words joined by whitespace, left to right without overlap.
_CHUNK = re.compile(r"\b\w+(?:\s+\w+)?\b")


def has_action(step: str) -> bool:
    """An action phrase appears anywhere in the step."""
    return _ACTION.search(step) is not None


def has_object(step: str) -> bool:
    """Some chunk (one or two words) does not open with an action phrase or a preposition, is not a bare
    article/conjunction, is longer than one character, and is not only a pronoun ("it", "the thing", ...)."""
    for chunk in _CHUNK.findall(step.lower()):
        if _ACTION.match(chunk) or _PREPOSITION.match(chunk) or chunk in _NOT_OBJECT:
            continue
        if len(chunk) > 1 and not _PRONOUN_ONLY.fullmatch(chunk):
            return True
    return False


def has_location(step: str) -> bool:
    """A location noun or a location preposition appears anywhere in the step."""
    return _PLACE_NOUN.search(step) is not None or _PREPOSITION.search(step) is not None


def executable(step: str) -> bool:
    return has_action(step) and has_object(step) and has_location(step)


def exec_rate(plan: list[str]) -> float | None:
    """Share of executable steps, rounded to 4 places as the reference reports it; None for an empty plan
    (the reference's RGP script skips empty plans)."""
    if not plan:
        return None
    return round(sum(executable(s) for s in plan) / len(plan), 4)
