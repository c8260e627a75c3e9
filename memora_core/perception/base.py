"""The perception seam: abstract backend, typed config, and a registry chosen by configuration.

Adding a backend (the simulator does this from sim/):

    from memora_core.perception import PerceptionBackend, register_backend
    class SimPerception(PerceptionBackend):
        name = "sim"
        def __init__(self, config: PerceptionConfig) -> None: ...
        def observe(self, item: PerceptionInput) -> SegmentObservation: ...
    register_backend("sim", SimPerception)

If `backend: sim` is configured before anything registered it, `make_perception` imports the module
named in `plugins.sim` (default `sim.perception`) and looks again.
"""
from __future__ import annotations

import importlib
import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from memora_core.config import CONFIG_DIR, load_yaml
from memora_core.perception.camera.config import CameraPerceptionConfig
from memora_core.schemas import Segment, SegmentObservation

log = logging.getLogger(__name__)

DEFAULT_PERCEPTION_CONFIG = CONFIG_DIR / "perception.yaml"


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NarrationPerceptionConfig(_Cfg):
    noun_classes_csv: str = "epic100/EPIC_100_noun_classes_v2.csv"  # relative to the data root
    # verbs after which the last noun is where the others went ("put pot in cupboard")
    place_verbs: list[str] = Field(default_factory=lambda: [
        "put", "put-in", "put-on", "put-down", "put-into", "place", "insert", "move", "pour-into", "pour-in",
        "scrape-into", "spoon-onto", "cover-in", "transfer", "hang", "return"])
    place_prepositions: list[str] = Field(default_factory=lambda: [
        "in", "into", "on", "onto", "inside", "under", "back", "to", "in to", "on to"])
    # the state an object is in after the verb is applied to it (first noun of the narration)
    state_verbs: dict[str, str] = Field(default_factory=lambda: {
        "open": "open", "close": "closed", "turn-on": "on", "turn-off": "off", "wash": "washed",
        "rinse": "rinsed", "cut": "cut", "chop": "chopped", "peel": "peeled", "fill": "full",
        "fill-up": "full", "empty": "empty", "throw": "discarded", "dry": "dry", "grate": "grated",
        "crush": "crushed", "mix": "mixed", "knead": "kneaded"})


class VlmPerceptionConfig(_Cfg):
    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "Qwen/Qwen2.5-VL-7B-Instruct"
    api_key_env: str = "MEMORA_VLM_API_KEY"  # vLLM ignores the key; the client needs some value
    timeout_s: float = Field(default=60.0, gt=0)
    max_attempts: int = Field(default=3, ge=1)
    backoff_s: float = Field(default=1.0, ge=0)
    backoff_factor: float = Field(default=2.0, ge=1)
    max_images: int = Field(default=8, ge=1, le=24)
    image_max_side: int = Field(default=448, ge=32)
    jpeg_quality: int = Field(default=80, ge=10, le=100)
    temperature: float = 0.0
    max_tokens: int = Field(default=1024, ge=16)


class PerceptionConfig(_Cfg):
    backend: str = "narration"  # narration | vlm | camera | sim
    narration: NarrationPerceptionConfig = Field(default_factory=NarrationPerceptionConfig)
    vlm: VlmPerceptionConfig = Field(default_factory=VlmPerceptionConfig)
    camera: CameraPerceptionConfig = Field(default_factory=CameraPerceptionConfig)
    plugins: dict[str, str] = Field(default_factory=lambda: {"sim": "sim.perception"})
    data_dir: str | None = None  # None: the core config's data root ($MEMORA_DATA wins)
    options: dict[str, Any] = Field(default_factory=dict)  # backend-specific extras (e.g. for sim)

    def data_path(self) -> Path:
        from memora_core.config import load_config

        return Path(self.data_dir) if self.data_dir else load_config().data_path()


def load_perception_config(path: Path | str | None = None, **overrides: Any) -> PerceptionConfig:
    path = Path(path) if path else DEFAULT_PERCEPTION_CONFIG
    data = load_yaml(path) if path.exists() else {}
    data.update({k: v for k, v in overrides.items() if v is not None})
    return PerceptionConfig.model_validate(data)


@dataclass
class PerceptionInput:
    """What a backend may look at for one segment; each backend uses the parts it understands."""

    segment: Segment
    frames: list[np.ndarray] = field(default_factory=list)  # RGB uint8, time order
    narrations: list[Any] = field(default_factory=list)     # ingest.narration.NarrationRow
    payload: Any = None                                     # backend-specific, e.g. simulator ground truth


class PerceptionError(RuntimeError):
    """A backend could not produce an observation (server unreachable, output invalid after retries)."""


class PerceptionBackend(ABC):
    name: str = "abstract"

    @abstractmethod
    def observe(self, item: PerceptionInput) -> SegmentObservation:
        """Return the segment's observation; never invent attributes the evidence does not show."""

    def close(self) -> None:  # noqa: B027 - optional hook
        pass


_REGISTRY: dict[str, type[PerceptionBackend]] = {}


def register_backend(name: str, cls: type[PerceptionBackend]) -> None:
    if not (isinstance(cls, type) and issubclass(cls, PerceptionBackend)):
        raise TypeError(f"{cls!r} is not a PerceptionBackend subclass")
    _REGISTRY[name] = cls


def registered_backends() -> list[str]:
    _builtin()
    return sorted(_REGISTRY)


def _builtin() -> None:
    # imported here so that registering them never needs an import cycle with this module
    from memora_core.perception import narration, vlm  # noqa: F401
    from memora_core.perception.camera import backend  # noqa: F401


def make_perception(config: PerceptionConfig | None = None) -> PerceptionBackend:
    """Build the configured backend; its constructor takes the whole PerceptionConfig."""
    config = config or load_perception_config()
    _builtin()
    if config.backend not in _REGISTRY and config.backend in config.plugins:
        try:
            importlib.import_module(config.plugins[config.backend])
        except ImportError as exc:
            raise PerceptionError(f"perception backend {config.backend!r}: cannot import plugin "
                                  f"{config.plugins[config.backend]!r}: {exc}") from exc
    if config.backend not in _REGISTRY:
        raise PerceptionError(f"unknown perception backend {config.backend!r}; registered: {sorted(_REGISTRY)}")
    return _REGISTRY[config.backend](config)
