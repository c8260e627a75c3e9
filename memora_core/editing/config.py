"""Typed configuration of the online memory editor (robot_configs/editor.yaml)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memora_core.config import CONFIG_DIR, load_yaml

DEFAULT_EDITOR_CONFIG = CONFIG_DIR / "editor.yaml"


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CandidateConfig(_Cfg):
    k: int = Field(default=5, ge=1)
    # store: the store's configured embedder (MiniLM by default); hashing; none (names/aliases only)
    embedder: Literal["store", "minilm", "hashing", "none"] = "store"
    embedding_threshold: float = Field(default=0.85, ge=0, le=1)  # cosine of names to count as a match
    accept_score: float = Field(default=0.5, ge=0, le=2)            # below it the object is new (Add)
    location_bonus: float = 0.05
    recency_bonus: float = 0.05


class DeterministicConfig(_Cfg):
    # an object observed in one of these states no longer exists as remembered: retract it (Delete)
    delete_states: list[str] = Field(default_factory=lambda: ["discarded"])


class LlmDeciderConfig(_Cfg):
    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "Qwen/Qwen2.5-7B-Instruct"
    api_key_env: str = "MEMORA_LLM_API_KEY"
    timeout_s: float = Field(default=30.0, gt=0)
    max_attempts: int = Field(default=2, ge=1)  # replies that are not valid JSON are retried this often
    temperature: float = 0.0
    max_tokens: int = Field(default=256, ge=16)


class EnvironmentConfig(_Cfg):
    """Environment Memory: which names are places/containers (others become places only when used as one)."""

    containers: list[str] = Field(default_factory=lambda: [
        "fridge", "freezer", "drawer", "cupboard", "cabinet", "oven", "microwave", "dishwasher", "bin",
        "box", "jar", "bag", "basket", "container", "tupperware"])
    places: list[str] = Field(default_factory=lambda: [
        "counter", "worktop", "top", "sink", "shelf", "hob", "stove", "table", "rack", "drying rack",
        "chopping board", "tray", "mat"])


class EditorConfig(_Cfg):
    decider: Literal["deterministic", "llm"] = "deterministic"
    candidates: CandidateConfig = Field(default_factory=CandidateConfig)
    deterministic: DeterministicConfig = Field(default_factory=DeterministicConfig)
    llm: LlmDeciderConfig = Field(default_factory=LlmDeciderConfig)
    environment: EnvironmentConfig = Field(default_factory=EnvironmentConfig)


def load_editor_config(path: Path | str | None = None, **overrides: Any) -> EditorConfig:
    path = Path(path) if path else DEFAULT_EDITOR_CONFIG
    data = load_yaml(path) if path.exists() else {}
    data.update({k: v for k, v in overrides.items() if v is not None})
    return EditorConfig.model_validate(data)
