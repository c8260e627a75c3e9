"""Fixtures for the agent tests: real P06/P28 memory written by the real writer from the shared EPIC data."""
from __future__ import annotations

from pathlib import Path

import pytest

from memora_core.cli.main import main as memora_main
from memora_core.config import EmbeddingConfig, MemoraConfig, StoreConfig, VectorConfig, load_config
from memora_core.store import MemoryStore

NARRATIONS = "epic100/EPIC_100_extension_narrations_P06_P28.csv"


def no_vector_config() -> MemoraConfig:
    return MemoraConfig(data_dir=load_config().data_dir,
                        store=StoreConfig(vectors=VectorConfig(backend="none"),
                                          embedding=EmbeddingConfig(backend="hashing")))


def write_participant(root: Path, participant: str, narrations: Path, *, vectors: str = "none",
                      embedding: str = "hashing") -> None:
    rc = memora_main(["write", "--participant", participant, "--narrations", str(narrations), "--store", str(root),
                      "--embedding", embedding, "--vectors", vectors, "--quiet"])
    assert rc == 0


@pytest.fixture(scope="session")
def narrations_csv() -> Path:
    path = load_config().data_path() / NARRATIONS
    if not path.exists():
        pytest.fail(f"shared narrations missing at {path}; set MEMORA_DATA")
    return path


@pytest.fixture(scope="session")
def p06_store_dir(tmp_path_factory, narrations_csv) -> Path:
    root = tmp_path_factory.mktemp("p06")
    write_participant(root, "P06", narrations_csv)
    return root


@pytest.fixture(scope="session")
def p06_store(p06_store_dir) -> MemoryStore:
    """P06 memory, consolidated once (tests that re-consolidate use their own copy)."""
    from memora_core.consolidation import consolidate

    writer = MemoryStore.open_writer(p06_store_dir, no_vector_config())
    consolidate(writer, "P06")
    writer.close()  # one writer per store: tests that run `memora consolidate` on this store write it again
    return MemoryStore.open_reader(p06_store_dir, no_vector_config())
