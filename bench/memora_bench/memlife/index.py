"""MemLife memory index: entries embedded once, searched by exact inner product over L2-normalised vectors.

Time filter: an entry is eligible for an interval when it lies inside it (t_start >= start, t_end <= end).
`search` returns rank order (score desc, ties by time); `fetch` returns chronological order.
"""
from __future__ import annotations

import numpy as np

from memora_core.store.embedding import Embedder

from memora_bench.memlife.types import EntryKey, Interval, MemoryEntry, ScoredEntry

QUERY_CACHE = 4096


def _normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(n > 0, n, 1.0)


class MemLifeIndex:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.entries: list[MemoryEntry] = []
        self._pos: dict[EntryKey, int] = {}
        self._vecs = np.zeros((0, 0), dtype=np.float32)
        self._queries: dict[str, np.ndarray] = {}  # query text -> vector (readers repeat queries)

    def __len__(self) -> int:
        return len(self.entries)

    def embed(self, texts: list[str]) -> np.ndarray:
        return _normalise(self.embedder.embed(texts))

    def add(self, entries: list[MemoryEntry]) -> None:
        new = [e for e in entries if e.key not in self._pos]
        if len(new) != len(entries):
            raise ValueError("add: an entry with the same (participant, video, segment) key exists; use replace")
        if not new:
            return
        vecs = self.embed([e.text for e in new])
        self._vecs = vecs if self._vecs.size == 0 else np.vstack([self._vecs, vecs])
        for e in new:
            self._pos[e.key] = len(self.entries)
            self.entries.append(e)

    def replace(self, entry: MemoryEntry) -> None:
        i = self._pos.get(entry.key)
        if i is None:
            raise KeyError(entry.key)
        self.entries[i] = entry
        self._vecs[i] = self.embed([entry.text])[0]

    def get(self, key: EntryKey) -> MemoryEntry | None:
        i = self._pos.get(tuple(key))  # type: ignore[arg-type]
        return None if i is None else self.entries[i]

    def vectors(self, keys: list[EntryKey]) -> np.ndarray:
        """The stored (normalised) vectors of these entries, in order."""
        return self._vecs[[self._pos[tuple(k)] for k in keys]]  # type: ignore[misc]

    def _eligible(self, interval: Interval | None) -> np.ndarray:
        idx = np.arange(len(self.entries))
        if interval is None:
            return idx
        return np.array([i for i, e in enumerate(self.entries)
                         if e.t_start >= interval.start and e.t_end <= interval.end], dtype=int)

    def _scores(self, query_vec: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return self._vecs[idx] @ _normalise(query_vec) if len(idx) else np.zeros(0, dtype=np.float32)

    def _ranked(self, query_vec: np.ndarray, interval: Interval | None) -> list[tuple[int, float]]:
        idx = self._eligible(interval)
        scores = self._scores(query_vec, idx)
        order = sorted(range(len(idx)), key=lambda j: (-float(scores[j]), self.entries[idx[j]].t_start))
        return [(int(idx[j]), float(scores[j])) for j in order]

    def query_vectors(self, queries: list[str]) -> np.ndarray:
        """Vectors of query texts, embedded once per index (bounded cache)."""
        todo = [q for q in dict.fromkeys(queries) if q not in self._queries]
        if todo:
            if len(self._queries) + len(todo) > QUERY_CACHE:
                self._queries.clear()
            self._queries.update(zip(todo, self.embed(todo)))
        return np.stack([self._queries[q] for q in queries]) if queries else np.zeros((0, 0), np.float32)

    def search(self, query: str, interval: Interval | None, k: int) -> list[ScoredEntry]:
        if k <= 0 or not self.entries:
            return []
        ranked = self._ranked(self.query_vectors([query])[0], interval)[:k]
        return [ScoredEntry(entry=self.entries[i], score=s) for i, s in ranked]

    def fetch(self, interval: Interval, k: int) -> list[MemoryEntry]:
        """Entries inside the interval (the same eligibility as search), chronological, at most k (earliest)."""
        hits = [self.entries[i] for i in self._eligible(interval)]
        return sorted(hits, key=lambda e: (e.t_start, e.video_id, e.segment_index))[:max(0, k)]

    def rank_of(self, entry_key: EntryKey, query_vec: np.ndarray, interval: Interval | None) -> int | None:
        """0-based rank of the entry among those eligible under `interval` (None: not eligible / unknown)."""
        i = self._pos.get(tuple(entry_key))  # type: ignore[arg-type]
        if i is None:
            return None
        for r, (j, _) in enumerate(self._ranked(query_vec, interval)):
            if j == i:
                return r
        return None
