"""Routines named from what the person said.

A person often says what they are about to do ("Time to make my breakfast."). Perception writes such speech
into a segment's summary as `says "<words>"` (see `spoken`). When most episodes of a mined routine start
with an utterance, the routine's goal becomes those words, so that an instruction in the person's own terms
("Make my breakfast.") finds the routine whose steps never name the goal. Pure and deterministic: the same
activities give the same names.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from memora_core.schemas import Activity, RoutineSkill
from memora_core.tools.text import tokens

_SPOKEN = re.compile(r'says "([^"]+)"')


def spoken(text: str) -> str:
    """How a segment summary records speech (the contract between perception and this module)."""
    return f'says "{text.replace(chr(34), chr(39)).strip()}"'


def utterances(summary: str) -> list[str]:
    return [m.group(1).strip() for m in _SPOKEN.finditer(summary or "") if m.group(1).strip()]


def _normalise(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s'-]", " ", text.lower()).split())


def _speech_by_video(activities: Iterable[Activity]) -> dict[str, list[tuple[float, float, str]]]:
    out: dict[str, list[tuple[float, float, str]]] = {}
    for a in activities:
        for u in utterances(a.summary):
            out.setdefault(a.video_id, []).append((a.start_s, a.end_s, u))
    return out


def _medoid(texts: Sequence[str]) -> str:
    """The utterance sharing the most content words with the others (first on ties)."""
    sets = [set(tokens(t)) for t in texts]
    best = max(range(len(texts)), key=lambda i: (sum(len(sets[i] & s) for j, s in enumerate(sets) if j != i), -i))
    return texts[best]


def name_from_speech(routines: list[RoutineSkill], activities: Iterable[Activity], lookback_s: float = 15.0,
                     min_share: float = 0.5) -> list[RoutineSkill]:
    """Routines whose episodes mostly begin with speech (an utterance in a segment overlapping the
    `lookback_s` before the episode's start, up to its start) get the representative utterance as goal
    and name; the steps are unchanged. Routines without such speech are returned as they were."""
    speech = _speech_by_video(activities)
    out = []
    for r in routines:
        said: list[str] = []
        for ep in r.episodes:
            near = [u for s, e, u in speech.get(ep.video_id, []) if e >= ep.start_s - lookback_s and s <= ep.start_s]
            if near:
                said.append(near[-1])
        if not said or len(said) < min_share * len(r.episodes):
            out.append(r)
            continue
        goal = _normalise(_medoid(said))
        quoted = "; ".join(f'"{u}"' for u in dict.fromkeys(said))
        out.append(r.model_copy(update={"goal": goal, "name": goal,
                                        "summary": f"the person said {quoted} before it. {r.summary}"}))
    return out
