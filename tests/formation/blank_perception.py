"""A minimal real perception backend for CLI tests of the video path: reports the frames it was given.

It exercises the plugin seam (`plugins: {blank: tests.formation.blank_perception}`) the simulator uses.
"""
from __future__ import annotations

from memora_core.perception import PerceptionBackend, PerceptionInput, register_backend
from memora_core.schemas import ObjectObservation, SegmentObservation


class BlankPerception(PerceptionBackend):
    name = "blank"
    made: list["BlankPerception"] = []  # every instance, in order (a test asks how many a command made)

    def __init__(self, config) -> None:
        self.config = config
        self.videos: list[str] = []  # the videos it watched, in order
        BlankPerception.made.append(self)

    def observe(self, item: PerceptionInput) -> SegmentObservation:
        if item.segment.video_id not in self.videos:
            self.videos.append(item.segment.video_id)
        mean = int(sum(float(f.mean()) for f in item.frames) / max(1, len(item.frames)))
        return SegmentObservation(segment=item.segment, objects=[ObjectObservation(name="frame", state=str(mean))],
                                  summary=f"{len(item.frames)} frames", backend=self.name)


register_backend("blank", BlankPerception)
