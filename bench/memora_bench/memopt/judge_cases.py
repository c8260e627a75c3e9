"""Judge-discrimination cases: four candidate entries per training segment, to measure whether a FIRM evaluator
tells a grounded entry from filler (bench/benchmarks/judge_bench.py).

Per segment:
- grounded: first person, from the segment's own narrated actions ("I turn on tap, wash hands and dry hands.");
- fabricated: the same sentence form from another segment's actions (another video, no noun in common);
- filler: a content-free first-person sentence (three forms, taken in turn);
- json_copy: the start of the segment's compact perception JSON, as a copying writer would emit it.
Deterministic: the same segments give the same cases.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from memora_core.schemas import SegmentObservation

from memora_bench.memlife.types import SegmentInput
from memora_bench.memopt.compact import compact_perception

KINDS = ("grounded", "fabricated", "filler", "json_copy")
FILLERS = ("I'm so glad you're here. I'm so glad you're here.",
           "I am the memory of the person wearing the camera, and I am writing an entry for this clip.",
           "I did a few things here and then I did some more things.")
MAX_ACTIONS = 4
JSON_COPY_CHARS = 160


@dataclass(frozen=True)
class JudgeCase:
    segment: SegmentInput
    texts: dict[str, str]   # kind -> candidate entry
    facts: list[str] = field(default_factory=list)  # the segment's key facts (informativeness)

    def with_facts(self, facts: list[str]) -> "JudgeCase":
        return replace(self, facts=list(facts))


def actions_of(seg: SegmentInput) -> list[str]:
    """The segment's distinct narrated actions, in order (the action text, else verb + nouns)."""
    obs = SegmentObservation.model_validate_json(seg.perception_json)
    out: list[str] = []
    for a in obs.actions:
        did = a.text.strip() or " ".join([a.verb.replace("-", " "), *a.nouns])
        if did and did not in out:
            out.append(did)
    return out


def nouns_of(seg: SegmentInput) -> set[str]:
    obs = SegmentObservation.model_validate_json(seg.perception_json)
    return {n for a in obs.actions for n in a.nouns} | {o.name for o in obs.objects}


def first_person(actions: list[str]) -> str:
    """'I a, b and c.' from at most MAX_ACTIONS actions."""
    acts = actions[:MAX_ACTIONS]
    body = acts[0] if len(acts) == 1 else ", ".join(acts[:-1]) + " and " + acts[-1]
    return f"I {body}."


def donor(seg: SegmentInput, pool: list[SegmentInput]) -> SegmentInput | None:
    """The first segment after `seg` in `pool` (wrapping) from another video sharing no noun with it."""
    mine = nouns_of(seg)
    start = next((i for i, s in enumerate(pool) if s.key == seg.key), -1) + 1
    for s in pool[start:] + pool[:start]:
        if s.video_id != seg.video_id and actions_of(s) and not (nouns_of(s) & mine):
            return s
    return None


def build_cases(segments: list[SegmentInput], pool: list[SegmentInput], max_json_chars: int = 400
                ) -> list[JudgeCase]:
    """One case per segment with at least two actions and a donor in `pool` (the fabricated entry's source)."""
    cases = []
    for seg in segments:
        acts = actions_of(seg)
        other = donor(seg, pool)
        if len(acts) < 2 or other is None:
            continue
        texts = {"grounded": first_person(acts), "fabricated": first_person(actions_of(other)),
                 "filler": FILLERS[len(cases) % len(FILLERS)],
                 "json_copy": compact_perception(seg.perception_json, max_json_chars)[:JSON_COPY_CHARS]}
        cases.append(JudgeCase(segment=seg, texts=texts))
    return cases


def win_rate(a: list[float], b: list[float]) -> float:
    """Share of pairs where a > b (a tie counts half)."""
    if not a:
        return float("nan")
    return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x, y in zip(a, b)) / len(a)
