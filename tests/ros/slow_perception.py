"""The colour perception of colour_perception.py, slow from a given segment on: it marks each segment it starts
(`started_file`/<index>) and takes `delay_s` for segments from `slow_from_index`, so a test can stop the memory
writer while a segment is in flight."""
from __future__ import annotations

import time
from pathlib import Path

from memora_core.perception import register_backend
from memora_core.schemas import SegmentObservation
from tests.ros.colour_perception import ColourPerception


class SlowColourPerception(ColourPerception):
    name = "slow_colour"

    def observe(self, item) -> SegmentObservation:  # noqa: ANN001
        options = self.config.options
        if options.get("started_file"):
            marks = Path(options["started_file"])
            marks.mkdir(parents=True, exist_ok=True)
            (marks / str(item.segment.index)).touch()
        if item.segment.index >= int(options.get("slow_from_index", 1 << 30)):
            time.sleep(float(options.get("delay_s", 0.0)))
        return super().observe(item)


register_backend("slow_colour", SlowColourPerception)
