"""Shared test fixtures: store configs, the shared data location."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("MUJOCO_GL", "egl")

from memora_core.config import EmbeddingConfig, MemoraConfig, StoreConfig, VectorConfig, load_config  # noqa: E402


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The read-only shared data root (../shared/data or $MEMORA_DATA). Present in CI."""
    root = load_config().data_path()
    if not (root / "epic100").is_dir():
        pytest.fail(f"shared data not found at {root}; set MEMORA_DATA")
    return root


@pytest.fixture
def fast_store_config() -> MemoraConfig:
    """Real Chroma, hashing embedder: for tests where the embedding model is not what is checked."""
    return MemoraConfig(store=StoreConfig(vectors=VectorConfig(backend="chroma"),
                                          embedding=EmbeddingConfig(backend="hashing")))


@pytest.fixture
def sqlite_only_config() -> MemoraConfig:
    return MemoraConfig(store=StoreConfig(vectors=VectorConfig(backend="none"),
                                          embedding=EmbeddingConfig(backend="hashing")))
