"""Action streams and their split into procedures: the unit that routines are mined from.

A procedure is a run of consecutive actions in one video about the same things. It ends at a long
pause, when it grows too long, or at a topic boundary (the objects of the next few actions share
nothing with those of the last few). The same split is used at query time by the episodic planners,
so a routine and a recalled episode have the same shape.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from memora_core.agents.config import ConsolidationConfig
from memora_core.schemas import Activity, Evidence
from memora_core.tools.text import normalise_noun


@dataclass(frozen=True)
class Step:
    """One observed action, flattened out of Activity Memory."""

    video_id: str
    start_s: float
    end_s: float
    verb: str
    nouns: tuple[str, ...]
    text: str
    segment_id: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.verb, self.nouns[0] if self.nouns else "")

    def label(self) -> str:
        return self.text or " ".join([self.verb.replace("-", " "), *self.nouns]).strip()

    def evidence(self) -> Evidence:
        return Evidence(video_id=self.video_id, start_s=self.start_s, end_s=max(self.end_s, self.start_s),
                        segment_id=self.segment_id)


@dataclass
class Procedure:
    steps: list[Step] = field(default_factory=list)

    @property
    def video_id(self) -> str:
        return self.steps[0].video_id

    @property
    def start_s(self) -> float:
        return self.steps[0].start_s

    @property
    def end_s(self) -> float:
        return max(s.end_s for s in self.steps)

    def keys(self) -> set[tuple[str, str]]:
        return {s.key for s in self.steps}

    def keys_in_order(self) -> list[tuple]:
        """The step keys in the order of the steps (repeats included)."""
        return [s.key for s in self.steps]

    def content_keys(self, generic_verbs: frozenset[str], generic_nouns: frozenset[str]) -> set[tuple[str, str]]:
        """Step keys without the purely generic ones ('open drawer', 'turn on tap'), which every procedure has."""
        out = {k for k in self.keys() if not (k[0] in generic_verbs and k[1] in generic_nouns)}
        return out or self.keys()

    def evidence(self) -> Evidence:
        return Evidence(video_id=self.video_id, start_s=self.start_s, end_s=max(self.end_s, self.start_s),
                        segment_id=self.steps[0].segment_id)


def steps_from_activities(activities: Iterable[Activity]) -> dict[str, list[Step]]:
    """Per video, the time-ordered actions; an action repeated in two overlapping segments counts once."""
    per_video: dict[str, list[Step]] = {}
    seen: set[tuple] = set()
    for act in activities:
        for a in act.actions:
            nouns = tuple(normalise_noun(n) for n in a.nouns if str(n).strip())
            ident = (act.video_id, a.source_id) if a.source_id else (act.video_id, a.verb, nouns, round(a.start_s, 2))
            if ident in seen:
                continue
            seen.add(ident)
            per_video.setdefault(act.video_id, []).append(
                Step(act.video_id, a.start_s, a.end_s, a.verb.strip().lower(), nouns, a.text.strip().lower(),
                     act.segment_id))
    for steps in per_video.values():
        steps.sort(key=lambda s: (s.start_s, s.end_s))
    return per_video


def _content_nouns(steps: Sequence[Step], generic: frozenset[str]) -> set[str]:
    out = {n for s in steps for n in s.nouns if n not in generic}
    return out or {n for s in steps for n in s.nouns}


def split_procedures(steps: Sequence[Step], cfg: ConsolidationConfig) -> list[Procedure]:
    """Split one video's action stream at pauses, length limits and topic boundaries."""
    generic = frozenset(cfg.generic_nouns)
    procs: list[Procedure] = []
    current: list[Step] = []
    w = cfg.boundary_window
    for i, step in enumerate(steps):
        if current:
            gap = step.start_s - max(s.end_s for s in current[-w:])
            left = _content_nouns(steps[max(0, i - w):i], generic)
            right = _content_nouns(steps[i:i + w], generic)
            topic_break = len(current) >= cfg.min_steps and not (left & right)
            if gap > cfg.max_gap_s or len(current) >= cfg.max_steps or topic_break:
                procs.append(Procedure(current))
                current = []
        current.append(step)
    if current:
        procs.append(Procedure(current))
    return procs


def key_objects(steps: Sequence[Step], generic: Iterable[str], k: int = 4) -> list[str]:
    generic = frozenset(generic)
    counts = Counter(n for s in steps for n in s.nouns)
    ranked = sorted(counts.items(), key=lambda kv: (kv[0] in generic, -kv[1], kv[0]))
    return [n for n, _ in ranked[:k]]


def goal_of(steps: Sequence[Step], cfg: ConsolidationConfig) -> str:
    """The representative action: the most frequent non-generic (verb, key object), as narrated."""
    objs = key_objects(steps, cfg.generic_nouns, k=1)
    generic_v = frozenset(cfg.generic_verbs)
    counts = Counter(s.key for s in steps)
    # A hands-on verb names the goal better than pick-up/put-down; the key object breaks ties.
    best = sorted(counts.items(), key=lambda kv: (kv[0][0] in generic_v, not (objs and kv[0][1] == objs[0]),
                                                  -kv[1], kv[0]))[0][0]
    texts = Counter(s.label() for s in steps if s.key == best)
    return texts.most_common(1)[0][0]
