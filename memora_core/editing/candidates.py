"""Candidate retrieval for the editor: which remembered entities could this observed object be?

An in-memory index of one participant's live entities (loaded once from the store, then kept in step
by the writer) answers by exact name, alias, EPIC category, and name-embedding similarity; identity
attributes that contradict (a red mug is not a blue mug) exclude a candidate; location and recency
break ties. Each name is embedded once per process, which is what keeps the editor far faster than
querying the vector store per object.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memora_core.editing.config import CandidateConfig
from memora_core.schemas import EntityRecord, ObjectObservation
from memora_core.store.embedding import Embedder

IDENTITY_KEYS = ("category", "colour", "material", "label")


@dataclass
class Candidate:
    entity: EntityRecord
    score: float
    reasons: list[str] = field(default_factory=list)

    def describe(self) -> str:
        return f"{self.entity.entity_id} ({self.score:.2f}: {', '.join(self.reasons)})"


def attribute_conflicts(obs: ObjectObservation, entity: EntityRecord) -> list[str]:
    """Identity attributes known on both sides that disagree."""
    known = obs.attributes()
    return [k for k in IDENTITY_KEYS if k in known and k in entity.attributes and entity.attributes[k] != known[k]]


class EntityIndex:
    """The participant's live entities plus a cache of name embeddings."""

    def __init__(self, cfg: CandidateConfig, embedder: Embedder | None) -> None:
        self.cfg = cfg
        self.embedder = embedder if cfg.embedder != "none" else None
        self.entities: dict[str, EntityRecord] = {}
        self._vectors: dict[str, np.ndarray] = {}
        self.total_ever = 0  # including deleted: the next entity number

    def load(self, entities: list[EntityRecord], total_ever: int) -> None:
        self.entities = {e.entity_id: e for e in entities if not e.deleted}
        self.total_ever = total_ever


    def put(self, entity: EntityRecord) -> None:
        if entity.deleted:
            self.entities.pop(entity.entity_id, None)
        else:
            self.entities[entity.entity_id] = entity

    def ensure_vectors(self, names: list[str]) -> None:
        """Embed, in one batch, the names not embedded yet."""
        if self.embedder is None:
            return
        new = sorted({n for n in names if n not in self._vectors})
        if new:
            for name, vec in zip(new, self.embedder.embed(new)):
                self._vectors[name] = np.asarray(vec, dtype=np.float32)

    def similarity(self, a: str, b: str) -> float:
        if a == b:
            return 1.0
        if self.embedder is None or a not in self._vectors or b not in self._vectors:
            return 0.0
        return float(np.dot(self._vectors[a], self._vectors[b]))

    def retrieve(self, obs: ObjectObservation, exclude: set[str] | frozenset[str] = frozenset()) -> list[Candidate]:
        """Top-k live entities that could be `obs`, best first (score, then most recently seen)."""
        out = []
        max_seq = max((e.last_seen_seq for e in self.entities.values()), default=0) or 1
        live = [e for e in self.entities.values() if e.entity_id not in exclude and not attribute_conflicts(obs, e)]
        # embed lazily, in one batch, only the names a similarity is really needed for: with EPIC
        # categories most pairs are settled by name, alias or category and never reach the embedder
        need = [e for e in live if not _settled(obs, e)]
        if need:
            self.ensure_vectors([obs.name] + [n for e in need for n in (e.name, *e.aliases)])
        for e in live:
            reasons, score = [], 0.0
            if obs.name == e.name:
                score, reasons = 1.0, ["name"]
            elif obs.name in e.aliases or any(a in e.aliases or a == e.name for a in obs.aliases):
                score, reasons = 0.95, ["alias"]
            elif obs.category and obs.category == e.attributes.get("category"):
                score, reasons = 0.7, [f"category {obs.category}"]
            else:
                sim = max([self.similarity(obs.name, n) for n in (e.name, *e.aliases)])
                if sim >= self.cfg.embedding_threshold:
                    score, reasons = 0.55 + 0.1 * sim, [f"embedding {sim:.2f}"]  # below category, above accept
            if score <= 0:
                continue
            if obs.location and obs.location == e.location:
                score += self.cfg.location_bonus
                reasons.append("location")
            score += self.cfg.recency_bonus * e.last_seen_seq / max_seq
            out.append(Candidate(e, score, reasons))
        out.sort(key=lambda c: (-c.score, -c.entity.last_seen_seq, c.entity.entity_id))
        return out[: self.cfg.k]


def _settled(obs: ObjectObservation, e: EntityRecord) -> bool:
    """True when name, alias or a shared category already decide the pair without embeddings."""
    if obs.name == e.name or obs.name in e.aliases or any(a in e.aliases or a == e.name for a in obs.aliases):
        return True
    return bool(obs.category) and obs.category == e.attributes.get("category")
