"""Unit vectors for the answerer's short texts (MiniLM by default), one embedder and one cache per process;
a missing model degrades to lexical scoring."""
from __future__ import annotations

import logging

import numpy as np

log = logging.getLogger(__name__)
_EMB_CACHE: dict[str, np.ndarray] = {}


def _embedder(backend: str):
    if backend == "none":
        return None
    from memora_core.config import EmbeddingConfig
    from memora_core.store.embedding import make_embedder

    try:
        return make_embedder(EmbeddingConfig(backend=backend))
    except Exception as exc:  # a missing model degrades to lexical scoring, never a crash
        log.warning("answer embedder %s unavailable (%s): lexical scoring only", backend, exc)
        return None


def embed_texts(texts: list[str], backend: str) -> dict[str, np.ndarray]:
    """Unit vectors for texts; cached per process because the same narrations recur across questions."""
    emb = _embedder(backend)
    if emb is None:
        return {}
    key = lambda t: f"{backend}:{t}"  # noqa: E731
    todo = sorted({t for t in texts if key(t) not in _EMB_CACHE})
    if todo:
        for t, v in zip(todo, emb.embed(todo)):
            _EMB_CACHE[key(t)] = v
    return {t: _EMB_CACHE[key(t)] for t in texts}
