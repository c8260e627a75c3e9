"""A deterministic perception backend for the memory-writer node test: it names the dominant colour of a
segment's real frames (so what is written depends on the video that went through DDS)."""
from __future__ import annotations

import numpy as np

from memora_core.perception import PerceptionBackend, register_backend
from memora_core.schemas import ObjectObservation, SegmentObservation
from memora_core.schemas.observation import ActionObservation


class ColourPerception(PerceptionBackend):
    name = "colour"

    def __init__(self, config) -> None:  # noqa: ANN001
        self.config = config

    def observe(self, item) -> SegmentObservation:  # noqa: ANN001
        seg = item.segment
        if not item.frames:
            return SegmentObservation(segment=seg, backend=self.name)
        mean = np.mean([f.reshape(-1, 3).mean(0) for f in item.frames], axis=0)
        colour = ["red", "green", "blue"][int(np.argmax(mean))]
        obj = ObjectObservation(name=f"{colour} block", category="block", colour=colour)
        act = ActionObservation(verb="look", nouns=[obj.name], start_s=seg.start_s, end_s=seg.end_s,
                                text=f"look {obj.name} ({len(item.frames)} frames)")
        return SegmentObservation(segment=seg, objects=[obj], actions=[act], summary=act.text, backend=self.name)


register_backend("colour", ColourPerception)
