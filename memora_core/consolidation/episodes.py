"""One episode's own ordered step list: what was done with an object in one video, in the order it was done.

Activity Memory holds an episode as fragments: segments that overlap (an action written into two of them),
summaries ranked by a query, a time window cut at a fixed width. Consolidation puts one video's fragments
back into its canonical sequence (each narrated action once, in time order; `steps_from_activities`), and
an object's timeline is the run of that sequence that touches the object: every step naming it, with
`context` steps on either side (turning on the tap before the cup is filled; closing the oven after the
pizza goes in). Nothing here is learned or scored: a pure function of the stored episodes.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memora_core.consolidation.procedures import Step, steps_from_activities
from memora_core.schemas import Activity
from memora_core.tools.text import tokens


@dataclass(frozen=True)
class Timeline:
    """An object's steps in one video, in order; `marked[i]` says whether step i names the object."""

    video_id: str
    about: tuple[str, ...]
    steps: tuple[Step, ...]
    marked: tuple[bool, ...]

    def texts(self) -> list[str]:
        return [s.label() for s in self.steps]


class EpisodeIndex:
    """Every video's canonical step list, built once from Activity Memory."""

    def __init__(self, activities: Iterable[Activity]) -> None:
        self.per_video: dict[str, list[Step]] = steps_from_activities(activities)

    def steps(self, video_id: str) -> list[Step]:
        return self.per_video.get(video_id, [])

    def timeline(self, video_id: str, about: str, context: int = 1) -> Timeline:
        """The steps of `video_id` whose objects share a word with `about`, each with `context` neighbours."""
        return object_timeline(self.steps(video_id), about, context, video_id)


def names_object(step: Step, words: set[str]) -> bool:
    """Whether one of the step's objects is named by `words` (all of a multi-word name's words, e.g. 'sweet
    potato', or its last word, the head noun: 'potato')."""
    for noun in step.nouns:
        toks = tokens(noun)
        if toks and (set(toks) <= words or toks[-1] in words):
            return True
    return False


def object_timeline(steps: Sequence[Step], about: str, context: int = 1, video_id: str = "") -> Timeline:
    words = set(tokens(about))
    hit = [i for i, s in enumerate(steps) if names_object(s, words)]
    keep = sorted({j for i in hit for j in range(max(0, i - context), min(len(steps), i + context + 1))})
    hits = set(hit)
    return Timeline(video_id, tuple(sorted(words)), tuple(steps[j] for j in keep), tuple(j in hits for j in keep))
