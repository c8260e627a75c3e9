"""Build (or reuse) a benchmark store through the real write path: MemoryStore.commit_segment, the
vector outbox and MemoryStore.flush_vectors into the Chroma index (local path or a Chroma server).

A finished build leaves `bench.json` next to the store, so a later run with the same layout and
vectors queries the same store again instead of rebuilding it (the output says it was reused).
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from collections.abc import Callable
from typing import Any

from tqdm import tqdm
from store_data import Layout, RandomUnitEmbedder, Written, segment_writes

from memora_core.config import EmbeddingConfig, StoreConfig, VectorConfig
from memora_core.store import MemoryStore

VECTOR_MODES = {
    "hashing": "hashing embedder (the store's own, dependency-free)",
    "minilm": "all-MiniLM-L6-v2 embedder",
    "random": "embedder bypassed: pseudo-random unit vectors of the real dimension (384), seeded by the text",
}


@dataclass
class Build:
    root: str
    layout: dict[str, Any]
    vectors: str
    flush_every: int
    written: dict[str, Any]
    build_s: float = 0.0
    flush_s: float = 0.0  # of build_s: embedding + Chroma upserts
    generate_s: float = 0.0  # of build_s: making the synthetic SegmentWrites
    reused: bool = False

    @property
    def items(self) -> int:
        return sum(self.written["activities"].values()) + sum(self.written["entities"].values())

    def items_per_s(self) -> float:
        return self.items / self.build_s if self.build_s else 0.0


def store_config(vectors: str, flush_every: int, port: int | None = None) -> StoreConfig:
    backend = "chroma" if port is None else "chroma_http"
    vec = VectorConfig(backend=backend, flush_every_segments=flush_every, **({} if port is None else {"port": port}))
    return StoreConfig(vectors=vec, embedding=EmbeddingConfig(backend="minilm" if vectors == "minilm" else "hashing"))


def open_store(root: Path, vectors: str, flush_every: int, *, port: int | None = None,
               readonly: bool = False) -> MemoryStore:
    store = MemoryStore(root, store_config(vectors, flush_every, port), readonly=readonly)
    if vectors == "random" and store.vectors is not None:
        store.vectors.embedder = RandomUnitEmbedder(store.vectors.embedder.dim)
    return store


def _marker(root: Path) -> Path:
    return root / "bench.json"


def load_build(root: Path, layout: Layout, vectors: str) -> Build | None:
    try:
        data = json.loads(_marker(root).read_text())
    except (OSError, ValueError):
        return None
    if data.get("layout") != asdict(layout) or data.get("vectors") != vectors:
        return None
    return Build(**{**data, "reused": True})


def build_store(root: Path, layout: Layout, vectors: str, flush_every: int, *, port: int | None = None,
                progress: bool = True, checkpoints: dict[int, Callable[[MemoryStore, Build], None]] | None = None
                ) -> Build:
    """Write `layout.items` indexed items into a fresh store at `root` and flush them all to the index.

    `checkpoints` {items: callback}: once that many items are written, flush them and call back with the
    open (writing) store and the build so far: the shared benchmark starts its readers there, a long
    build measures its queries at smaller sizes on the way."""
    root.mkdir(parents=True, exist_ok=True)
    _marker(root).unlink(missing_ok=True)
    store = open_store(root, vectors, flush_every, port=port)
    flush_s = [0.0]
    real_flush = store.flush_vectors

    def timed_flush() -> int:
        t = time.perf_counter()
        try:
            return real_flush()
        finally:
            flush_s[0] += time.perf_counter() - t

    store.flush_vectors = timed_flush  # type: ignore[method-assign]  # timing only; the same method runs
    written = Written()
    writes = segment_writes(layout, written)
    generate_s = 0.0
    bar = tqdm(total=layout.items, desc=f"build {layout.items:,} items", unit="item", disable=not progress,
               mininterval=2.0, smoothing=0.05)
    pending = dict(checkpoints or {})
    t0 = time.perf_counter()
    while True:
        t = time.perf_counter()
        write = next(writes, None)
        generate_s += time.perf_counter() - t
        if write is None:
            break
        store.commit_segment(write)
        bar.update(1 + len(write.entities))
        due = [n for n in pending if written.items >= n]
        for n in due:
            store.flush_vectors()
            bar.clear()
            so_far = Build(root=str(root), layout=asdict(layout), vectors=vectors, flush_every=flush_every,
                           written=asdict(written), build_s=round(time.perf_counter() - t0, 2),
                           flush_s=round(flush_s[0], 2), generate_s=round(generate_s, 2))
            paused = time.perf_counter()
            pending.pop(n)(store, so_far)
            t0 += time.perf_counter() - paused  # measuring is not building
    store.flush_vectors()
    build_s = time.perf_counter() - t0
    bar.close()
    store.close()
    result = Build(root=str(root), layout=asdict(layout), vectors=vectors, flush_every=flush_every,
                   written=asdict(written), build_s=round(build_s, 2), flush_s=round(flush_s[0], 2),
                   generate_s=round(generate_s, 2))
    data = asdict(result)
    data.pop("reused")
    _marker(root).write_text(json.dumps(data))
    return result
