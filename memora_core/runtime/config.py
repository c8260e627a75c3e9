"""Typed settings of the process supervisor (the `supervisor:` block of launch/graph.yaml)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SupervisorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    sigint_grace_s: float = Field(default=10.0, gt=0)  # time to exit cleanly after SIGINT
    sigterm_grace_s: float = Field(default=3.0, gt=0)  # then after SIGTERM, before SIGKILL
    poll_s: float = Field(default=0.1, gt=0)
