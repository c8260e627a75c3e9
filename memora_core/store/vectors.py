"""Semantic index over memory records in Chroma; derived from SQLite and rebuildable from it.

Exactly one process may write a persistent Chroma path (two writers corrupt its index); processes
that must share memory across machines use a Chroma server (`chroma_http`).
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from memora_core.config import VectorConfig
from memora_core.store.embedding import Embedder

log = logging.getLogger(__name__)

COLLECTIONS = ("entities", "activities", "routines", "preferences")

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
        ef = _EF_CLASS(embedder.name)
        self._collections = {
            name: self.client.get_or_create_collection(
                f"memora_{name}_{embedder.name}", embedding_function=ef, metadata={"hnsw:space": "cosine"})
            for name in COLLECTIONS
        }

    def upsert(self, collection: str, ids: list[str], documents: list[str], metadatas: list[dict]) -> None:
        if ids:
            embeddings = self.embedder.embed(documents)
            self._collections[collection].upsert(ids=ids, documents=documents, metadatas=metadatas,
                                                 embeddings=list(embeddings))

    def delete(self, collection: str, ids: list[str]) -> None:
        if ids:
            self._collections[collection].delete(ids=ids)

    def query(self, collection: str, text: str, *, participant_id: str, k: int = 5,
              where: dict[str, Any] | None = None) -> list[tuple[str, float]]:
        """Ids and cosine distances of the k nearest records of one participant."""
        clauses: list[dict[str, Any]] = [{"participant_id": participant_id}]
        for key, value in (where or {}).items():
            clauses.append({key: value})
        flt = clauses[0] if len(clauses) == 1 else {"$and": clauses}
        col = self._collections[collection]
        res = col.query(query_embeddings=list(self.embedder.embed([text])), n_results=k, where=flt)
        return list(zip(res["ids"][0], res["distances"][0]))

    def count(self, collection: str) -> int:
        return self._collections[collection].count()

    def close(self) -> None:
        """Release this process's Chroma system so the path can be reopened (or rebuilt) cleanly."""
        close = getattr(self.client, "close", None)
        if close is not None:
            close()

    def clear(self) -> None:
        for name, col in list(self._collections.items()):
            ids = col.get(include=[])["ids"]
            if ids:
                col.delete(ids=ids)
