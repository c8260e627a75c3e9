"""`narration` perception: EPIC narration rows of one segment → actions and the objects they touch.

Each distinct noun of the segment is one object (counted once per segment however often it is
mentioned). Its name is the noun as said ('sweet potato'); its category is the EPIC noun class key
('potato'), which lets the editor join synonyms while keeping the literal names apart. Locations come
only from 'put X in/on Y' style narrations and states only from the verb applied to the first noun.
Narrations carry no colour or material, so those stay None: never invented.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from memora_core.ingest.narration import NarrationRow, NounClasses, readable_noun
from memora_core.perception.base import (
    PerceptionBackend,
    PerceptionConfig,
    PerceptionError,
    PerceptionInput,
    register_backend,
)
from memora_core.schemas import ActionObservation, ObjectObservation, SegmentObservation


@lru_cache(maxsize=4)
def _noun_classes(path: str) -> NounClasses:
    return NounClasses.load(path)


class NarrationPerception(PerceptionBackend):
    name = "narration"

    def __init__(self, config: PerceptionConfig) -> None:
        self.cfg = config.narration
        path = Path(self.cfg.noun_classes_csv)
        if not path.is_absolute():
            path = config.data_path() / path
        if not path.exists():
            raise PerceptionError(f"narration perception: noun class table not found at {path}")
        self.classes = _noun_classes(str(path))
        self._place_verbs = set(self.cfg.place_verbs)
        preps = sorted(self.cfg.place_prepositions, key=len, reverse=True)
        self._prep_re = re.compile(r"\b(" + "|".join(re.escape(p) for p in preps) + r")\b")

    def observe(self, item: PerceptionInput) -> SegmentObservation:
        seg = item.segment
        rows: list[NarrationRow] = sorted(item.narrations, key=lambda r: (r.start_s, r.narration_id))
        objects: dict[str, ObjectObservation] = {}
        actions = []
        for row in rows:
            nouns = [readable_noun(n) for n in row.all_nouns]
            actions.append(ActionObservation(
                verb=row.verb, nouns=nouns, start_s=row.start_s, end_s=max(row.stop_s, row.start_s),
                text=row.narration, source_id=row.narration_id))
            for noun, cls_id in zip(nouns, row.all_noun_classes):
                if noun not in objects:
                    category = self.classes.key(cls_id)
                    objects[noun] = ObjectObservation(name=noun, category=category)
            self._apply_effects(row, nouns, objects)
        summary = "; ".join(r.narration for r in rows)
        return SegmentObservation(segment=seg, objects=list(objects.values()), actions=actions,
                                  summary=summary, backend=self.name)

    def _apply_effects(self, row: NarrationRow, nouns: list[str], objects: dict[str, ObjectObservation]) -> None:
        """The last word of a segment wins: the object's state/location as of the segment's end."""
        if not nouns:
            return
        state = self.cfg.state_verbs.get(row.verb)
        if state is not None:
            objects[nouns[0]].state = state
        if row.verb in self._place_verbs and len(nouns) >= 2 and self._prep_re.search(row.narration.lower()):
            place = nouns[-1]
            for noun in nouns[:-1]:
                if noun != place:
                    objects[noun].location = place


register_backend("narration", NarrationPerception)
