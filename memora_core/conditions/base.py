"""What every memory condition offers an agent: an id, tool schemas, and validated tool calls."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memora_core.tools.registry import ToolSet

CONDITION_IDS: tuple[str, ...] = ("parametric", "flat1d_raw", "flat1d_processed", "graph2d_raw",
                                  "graph2d_processed", "memora_episodic", "memora")


class ConditionMemory(ToolSet):
    """Contract: `.condition_id`, `.participant_id`, `.tool_specs()` (OpenAI function schemas the agent may
    call), `.call(tool_name, args) -> ToolResult` (never raises), `.stats()` and `.export()` (the built memory
    as JSON-able data, written by `memora build-condition --out`)."""

    family: str = "none"  # parametric | flat1d | graph2d | memora

    def __init__(self, condition_id: str, participant_id: str, handlers: dict[str, Any]) -> None:
        if condition_id not in CONDITION_IDS:
            raise ValueError(f"unknown condition {condition_id!r}; expected one of {', '.join(CONDITION_IDS)}")
        self.condition_id = condition_id
        self.participant_id = participant_id
        super().__init__(handlers)

    def stats(self) -> dict[str, Any]:
        return {"condition": self.condition_id, "participant": self.participant_id, "tools": self.tool_names}

    def export(self) -> dict[str, Any]:
        return self.stats()

    def save(self, out_dir: Path | str) -> Path:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{self.participant_id}_{self.condition_id}.json"
        path.write_text(json.dumps(self.export(), indent=1, default=str))
        return path


class ParametricMemory(ConditionMemory):
    """No memory at all: the agent has the task text and its own (parametric) knowledge."""

    family = "parametric"

    def __init__(self, participant_id: str) -> None:
        super().__init__("parametric", participant_id, {})
