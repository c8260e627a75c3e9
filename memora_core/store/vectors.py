"""Semantic index over memory records in Chroma; derived from SQLite and rebuildable from it.

Exactly one process may write a persistent Chroma path (two writers corrupt its index); processes
that must share memory across machines use a Chroma server (`chroma_http`).
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from memora_core.config import VectorConfig
from memora_core.store.embedding import Embedder
from memora_core.store.vector_filters import EXACT_MAX, OVERSAMPLE, _and, exact_top_k, matches, split_where

log = logging.getLogger(__name__)

COLLECTIONS = ("entities", "activities", "routines", "preferences")
NAME_SUFFIX = ".v2"  # Chroma names end in a letter or digit; participant ids may end in '_' or '-'
LEGACY_PAGE = 5000


def collection_name(collection: str, embedder_name: str, participant_id: str) -> str:
    return f"memora_{collection}_{embedder_name}.{participant_id}{NAME_SUFFIX}" if participant_id \
        else f"memora_{collection}_{embedder_name}."


def legacy_name(collection: str, embedder_name: str) -> str:
    """The one collection per kind, all participants together, of indexes written before v2."""
    return f"memora_{collection}_{embedder_name}"


def _ids_distances(res: dict[str, Any]) -> list[tuple[str, float]]:
    return list(zip(res["ids"][0], res["distances"][0]))

_EMBEDDERS: dict[str, Embedder] = {}


def _embedding_function_class():
    """Built lazily so importing memora_core does not import chromadb."""
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
    from chromadb.utils.embedding_functions import register_embedding_function

    @register_embedding_function
    class MemoraEmbeddingFunction(EmbeddingFunction[Documents]):
        """Routes Chroma's embedding calls to our embedder, so Chroma never fetches its default model."""

        def __init__(self, embedder_name: str) -> None:
            self.embedder_name = embedder_name

        def __call__(self, input: Documents) -> Embeddings:
            return list(_EMBEDDERS[self.embedder_name].embed(list(input)))

        @staticmethod
        def name() -> str:
            return "memora"

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> "MemoraEmbeddingFunction":
            return MemoraEmbeddingFunction(config["embedder_name"])

        def get_config(self) -> dict[str, Any]:
            return {"embedder_name": self.embedder_name}

        def default_space(self) -> str:
            return "cosine"

    return MemoraEmbeddingFunction


_EF_CLASS = None


class VectorIndex:
    """One Chroma collection per record kind and participant.

    Every read is scoped by participant, and in Chroma a metadata filter costs a scan of the whole
    collection (measured: ~0.5 s at 80k vectors, see bench/benchmarks/store_bench.py), so the participant
    is the collection instead of a filter. Further filters: their equality clauses select the records in
    Chroma (indexed), the rest are applied here and those records are ranked exactly; a filter without a
    selective equality is applied here to the participant's `OVERSAMPLE` x k nearest; only when fewer than
    k of those pass (or a clause is one this side does not apply) does Chroma's filtered search run.
    """

    def __init__(self, root: Path, config: VectorConfig, embedder: Embedder) -> None:
        global _EF_CLASS
        import chromadb
        from chromadb.config import Settings

        if _EF_CLASS is None:
            _EF_CLASS = _embedding_function_class()
        _EMBEDDERS[embedder.name] = embedder
        self.embedder = embedder
        settings = Settings(anonymized_telemetry=False, allow_reset=True)
        if config.backend == "chroma_http":
            self.client = chromadb.HttpClient(host=config.host, port=config.port, settings=settings)
        else:
            self.client = chromadb.PersistentClient(path=str(root / "chroma"), settings=settings)
        self._ef = _EF_CLASS(embedder.name)
        self._cols: dict[str, Any] = {}
        # An index written before collections were per participant is read as it is and split on the
        # first write (only the writer writes).
        self._legacy = {name: col for name, col in ((n, self._get(legacy_name(n, embedder.name))) for n in COLLECTIONS)
                        if col is not None}

    # ------------------------------------------------------------ collections
    def _name(self, collection: str, participant_id: str) -> str:
        if collection not in COLLECTIONS:
            raise ValueError(f"unknown collection {collection!r}")
        return collection_name(collection, self.embedder.name, participant_id)

    def _get(self, name: str) -> Any | None:
        from chromadb.errors import NotFoundError

        col = self._cols.get(name)
        if col is None:
            try:
                col = self._cols[name] = self.client.get_collection(name, embedding_function=self._ef)
            except NotFoundError:  # a reader asks before the writer created it: nothing indexed yet
                return None
        return col

    def _get_or_create(self, name: str) -> Any:
        col = self._cols.get(name)
        if col is None:
            col = self._cols[name] = self.client.get_or_create_collection(
                name, embedding_function=self._ef, metadata={"hnsw:space": "cosine"})
        return col

    def _all(self, collection: str) -> list[Any]:
        """Every participant's collection of one kind (asked of Chroma: another process may have made some)."""
        prefix = collection_name(collection, self.embedder.name, "")
        names = [c.name if hasattr(c, "name") else str(c) for c in self.client.list_collections()]
        return [col for n in names if n.startswith(prefix) and n.endswith(NAME_SUFFIX)
                for col in [self._get(n)] if col is not None]

    def _split_legacy(self, collection: str) -> None:
        """Move an old single collection's vectors into per-participant collections (no re-embedding)."""
        old = self._legacy.pop(collection, None)
        if old is None:
            return
        while True:
            got = old.get(include=["embeddings", "metadatas", "documents"], limit=LEGACY_PAGE)
            if not got["ids"]:
                break
            self._upsert_rows(collection, list(got["ids"]), list(got["documents"]), list(got["metadatas"]),
                              np.asarray(got["embeddings"], dtype=np.float32))
            old.delete(ids=list(got["ids"]))
        self.client.delete_collection(old.name)
        self._cols.pop(old.name, None)

    # ------------------------------------------------------------ writes
    def upsert(self, collection: str, ids: list[str], documents: list[str], metadatas: list[dict]) -> None:
        self._split_legacy(collection)
        if ids:
            self._upsert_rows(collection, ids, documents, metadatas, self.embedder.embed(documents))

    def _upsert_rows(self, collection: str, ids: list[str], documents: list[str], metadatas: list[dict],
                     embeddings: np.ndarray) -> None:
        groups: dict[str, list[int]] = {}
        for i, meta in enumerate(metadatas):
            groups.setdefault(meta["participant_id"], []).append(i)
        for pid, rows in groups.items():
            self._get_or_create(self._name(collection, pid)).upsert(
                ids=[ids[i] for i in rows], documents=[documents[i] for i in rows],
                metadatas=[metadatas[i] for i in rows], embeddings=embeddings[rows])

    def delete(self, collection: str, ids: list[str]) -> None:
        """Deleting knows no participant (the record is gone from SQLite): ask every participant's collection."""
        self._split_legacy(collection)
        if ids:
            for col in self._all(collection):
                col.delete(ids=ids)

    # ------------------------------------------------------------ reads
    def query(self, collection: str, text: str, *, participant_id: str, k: int = 5,
              where: dict[str, Any] | None = None) -> list[tuple[str, float]]:
        """Ids and cosine distances of the k nearest records of one participant."""
        legacy = self._legacy.get(collection)
        if legacy is not None:
            clauses = [{"participant_id": participant_id}, *({key: v} for key, v in (where or {}).items())]
            return _ids_distances(legacy.query(query_embeddings=self.embedder.embed([text]), n_results=k,
                                               where=_and(clauses), include=["distances"]))
        col = self._get(self._name(collection, participant_id))
        if col is None:
            return []
        query = self.embedder.embed([text])
        if not where:
            return _ids_distances(col.query(query_embeddings=query, n_results=k, include=["distances"]))
        return self._filtered(col, query, k, where)

    def rank(self, collection: str, text: str, *, participant_id: str, ids: list[str],
             k: int = 5) -> list[tuple[str, float]] | None:
        """The k of `ids` (records of one participant) nearest to the text, ranked exactly; ids not indexed
        (yet) are left out. None when this index cannot fetch by id (an unsplit legacy index)."""
        if self._legacy.get(collection) is not None:
            return None
        col = self._get(self._name(collection, participant_id))
        if col is None or not ids:
            return []
        got = col.get(ids=ids, include=["embeddings"])
        if not got["ids"]:
            return []
        return exact_top_k(self.embedder.embed([text])[0], list(got["ids"]),
                           np.asarray(got["embeddings"], dtype=np.float32), k)

    def _filtered(self, col: Any, query: np.ndarray, k: int, where: dict[str, Any]) -> list[tuple[str, float]]:
        selected, rest = split_where(where)
        if rest is not None and selected:
            # the equality clauses pick the candidates (indexed in Chroma), the rest are checked here
            got = col.get(where=_and(selected), include=["metadatas"], limit=EXACT_MAX + 1)
            if len(got["ids"]) <= EXACT_MAX:
                keep = [i for i, meta in zip(got["ids"], got["metadatas"]) if all(matches(meta, c) for c in rest)]
                if not keep:
                    return []
                vecs = col.get(ids=keep, include=["embeddings"])
                return exact_top_k(query[0], list(vecs["ids"]), np.asarray(vecs["embeddings"], dtype=np.float32), k)
        if rest is not None:
            # no selective equality: the nearest OVERSAMPLE x k of the participant, filtered here
            n = k * OVERSAMPLE
            res = col.query(query_embeddings=query, n_results=n, include=["distances", "metadatas"])
            hits = [(i, d) for i, d, meta in zip(res["ids"][0], res["distances"][0], res["metadatas"][0])
                    if all(matches(meta, c) for c in selected + rest)]
            if len(hits) >= k or len(res["ids"][0]) < n:  # enough, or that was everyone
                return hits[:k]
        flt = _and([{key: v} for key, v in where.items()])
        return _ids_distances(col.query(query_embeddings=query, n_results=k, where=flt, include=["distances"]))

    def count(self, collection: str, participant_id: str | None = None) -> int:
        """Vectors held, of everyone or of one participant."""
        legacy = self._legacy.get(collection)
        if participant_id is not None:
            if legacy is not None:
                return len(legacy.get(where={"participant_id": participant_id}, include=[])["ids"])
            col = self._get(self._name(collection, participant_id))
            return col.count() if col is not None else 0
        return (legacy.count() if legacy is not None else 0) + sum(c.count() for c in self._all(collection))

    def close(self) -> None:
        """Release this process's Chroma system so the path can be reopened (or rebuilt) cleanly."""
        close = getattr(self.client, "close", None)
        if close is not None:
            close()

    def clear(self) -> None:
        for name in COLLECTIONS:
            legacy = self._legacy.pop(name, None)
            if legacy is not None:
                self.client.delete_collection(legacy.name)
            for col in self._all(name):
                self.client.delete_collection(col.name)
        self._cols.clear()
