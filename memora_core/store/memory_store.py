"""The memory store: SQLite (system of record) plus a derived Chroma index kept in step via an outbox."""
from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from memora_core.config import MemoraConfig, StoreConfig, load_config
from memora_core.schemas import Activity, EntityRecord, Preference, RoutineSkill
from memora_core.store.embedding import make_embedder
from memora_core.store.sqlite_store import SegmentWrite, SQLiteStore
from memora_core.store.record_candidates import candidate_query
from memora_core.store.vector_filters import EXACT_MAX, OVERSAMPLE
from memora_core.store.vectors import COLLECTIONS, VectorIndex

log = logging.getLogger(__name__)
WIDEN = 8  # a filtered search short of k admitted records looks once more among WIDEN x as many nearest


def entity_document(e: EntityRecord) -> str:
    parts = [e.name, *e.aliases, *e.attributes.values()]
    if e.state:
        parts.append(e.state)
    if e.location:
        parts.append(f"at {e.location}")
    return " ".join(parts)


def activity_document(a: Activity) -> str:
    return a.summary


def routine_document(r: RoutineSkill) -> str:
    return f"{r.goal}. {r.name} {r.summary} " + "; ".join(r.steps) + " " + " ".join(r.key_objects)


def preference_document(p: Preference) -> str:
    return f"{p.statement} " + " ".join(p.keywords)


def _doc_hash(document: str, metadata: dict[str, Any]) -> str:
    """Identity of what a vector row holds; metadata matters too (time filters read it)."""
    return hashlib.blake2b(json.dumps([document, metadata], sort_keys=True).encode(), digest_size=12).hexdigest()


class MemoryStore(SQLiteStore):
    """SQLite store whose writes also reach the vector index (when one is configured)."""

    def __init__(self, root: Path | str, config: StoreConfig | None = None, *, readonly: bool = False) -> None:
        super().__init__(root, readonly=readonly)
        self.config = config or StoreConfig()
        self.vectors: VectorIndex | None = None
        self._segments_since_flush = 0
        try:
            if self.config.vectors.backend != "none":
                embedder = make_embedder(self.config.embedding)
                self.vectors = VectorIndex(self.root, self.config.vectors, embedder)
                if not readonly:
                    self.flush_vectors()
        except BaseException:
            self.close()  # frees the writer lock: a failed open leaves the store to the next writer
            raise

    @classmethod
    def open(cls, root: Path | str, config: MemoraConfig | None = None, *, readonly: bool = False) -> "MemoryStore":
        """`open_writer` by default (the historical meaning), `open_reader` with readonly=True."""
        return cls(root, (config or load_config()).store, readonly=readonly)

    @classmethod
    def open_writer(cls, root: Path | str, config: MemoraConfig | None = None) -> "MemoryStore":
        """The store's one writer: holds `<root>/writer.lock` until close() or process death.

        Raises StoreLockedError (another writer holds it; names its pid and host) or StorePathError
        (root is a file, not writable, or not a memora store), before SQLite or Chroma are touched."""
        return cls.open(root, config, readonly=False)

    @classmethod
    def open_reader(cls, root: Path | str, config: MemoraConfig | None = None) -> "MemoryStore":
        """A reader (query/plan/ask/stats): never takes the writer lock, so it works while a writer runs."""
        return cls.open(root, config, readonly=True)

    def close(self) -> None:
        """Flush and close the vector index, then SQLite; the writer lock is released whatever fails."""
        try:
            if self.vectors is not None:
                vectors = self.vectors
                try:
                    if not self.readonly:
                        self.flush_vectors()
                finally:
                    self.vectors = None
                    vectors.close()
        finally:
            super().close()

    # --------------------------------------------------------------- writes
    def commit_segment(self, write: SegmentWrite) -> None:
        super().commit_segment(write)
        self._segments_since_flush += 1
        if self._segments_since_flush >= self.config.vectors.flush_every_segments:
            self.flush_vectors()

    def replace_knowledge(self, participant_id: str, routines: list[RoutineSkill],
                          preferences: list[Preference]) -> None:
        super().replace_knowledge(participant_id, routines, preferences)
        self.flush_vectors()

    def flush_vectors(self) -> int:
        """Send pending records to the vector index; idempotent, so safe after any crash."""
        self._segments_since_flush = 0
        if self.vectors is None or self.readonly:
            return 0
        pending = self.pending_vectors()
        by_collection: dict[str, list[str]] = {}
        for collection, item_id in pending:
            by_collection.setdefault(collection, []).append(item_id)
        for collection, ids in by_collection.items():
            self._index(collection, ids)
        if pending:
            self.clear_pending(pending)
        return len(pending)

    def _documents(self, collection: str, ids: list[str]) -> tuple[list[str], list[str], list[dict], list[str]]:
        """(present ids, documents, metadatas, missing ids) for records of one collection."""
        present, docs, metas, missing = [], [], [], []
        for item_id in ids:
            meta: dict[str, Any]
            if collection == "entities":
                rec = self.entity(item_id)
                if rec is None or rec.deleted:
                    missing.append(item_id)
                    continue
                doc = entity_document(rec)
                # First sighting only: last-seen times change on every observation and would force a
                # re-embedding each time; recency is read from SQLite instead.
                meta = {"participant_id": rec.participant_id, "video_id": rec.first_seen_video,
                        "t_s": rec.first_seen_s, "seq": rec.first_seen_seq}
            elif collection == "activities":
                act = self.activity(item_id)
                if act is None:
                    missing.append(item_id)
                    continue
                doc = activity_document(act)
                meta = {"participant_id": act.participant_id, "video_id": act.video_id, "t_s": act.start_s,
                        "seq": act.seq}
            elif collection == "routines":
                rt = self.routine(item_id)
                if rt is None:
                    missing.append(item_id)
                    continue
                doc, meta = routine_document(rt), {"participant_id": rt.participant_id}
            elif collection == "preferences":
                pf = self.preference(item_id)
                if pf is None:
                    missing.append(item_id)
                    continue
                doc, meta = preference_document(pf), {"participant_id": pf.participant_id}
            else:
                raise ValueError(f"unknown collection {collection!r}")
            present.append(item_id)
            docs.append(doc)
            metas.append(meta)
        return present, docs, metas, missing

    def _index(self, collection: str, ids: list[str]) -> None:
        assert self.vectors is not None
        present, docs, metas, missing = self._documents(collection, ids)
        known = self._indexed_hashes(collection, present)
        hashes = [_doc_hash(d, m) for d, m in zip(docs, metas)]
        changed = [i for i, (item_id, h) in enumerate(zip(present, hashes)) if known.get(item_id) != h]
        self.vectors.upsert(collection, [present[i] for i in changed], [docs[i] for i in changed],
                            [metas[i] for i in changed])
        self.vectors.delete(collection, missing)
        with self.transaction() as c:
            c.executemany("INSERT OR REPLACE INTO vector_docs VALUES (?,?,?)",
                          [(collection, present[i], hashes[i]) for i in changed])
            c.executemany("DELETE FROM vector_docs WHERE collection = ? AND item_id = ?",
                          [(collection, item_id) for item_id in missing])

    def _indexed_hashes(self, collection: str, ids: list[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.query(f"SELECT item_id, doc_hash FROM vector_docs WHERE collection = ? AND item_id IN ({marks})",
                              [collection, *chunk])
            out.update({r[0]: r[1] for r in rows})
        return out

    def reindex(self) -> dict[str, int]:
        """Rebuild the whole vector index from SQLite (e.g. after the Chroma folder was lost)."""
        if self.vectors is None:
            raise RuntimeError("no vector index is configured (store.vectors.backend = none)")
        self.vectors.clear()
        with self.transaction() as c:
            c.execute("DELETE FROM vector_docs")
        counts = {}
        queries = {
            "entities": "SELECT entity_id FROM entities WHERE deleted = 0",
            "activities": "SELECT activity_id FROM activities",
            "routines": "SELECT routine_id FROM routines",
            "preferences": "SELECT pref_id FROM preferences",
        }
        for collection in COLLECTIONS:
            ids = [r[0] for r in self.query(queries[collection])]
            for start in range(0, len(ids), 512):
                self._index(collection, ids[start:start + 512])
            counts[collection] = len(ids)
        return counts

    # --------------------------------------------------------------- semantic reads
    def semantic_search(self, collection: str, text: str, *, participant_id: str, k: int = 5,
                        where: dict[str, Any] | None = None) -> list[tuple[str, float]]:
        if self.vectors is None:
            return []
        if not self.readonly and self._segments_since_flush:
            self.flush_vectors()  # a writer reads its own writes
        if where:
            hits = self._filtered_by_records(collection, text, participant_id, k, where)
            if hits is not None:
                return hits
        return self.vectors.query(collection, text, participant_id=participant_id, k=k, where=where)

    def _filtered_by_records(self, collection: str, text: str, participant_id: str, k: int,
                             where: dict[str, Any]) -> list[tuple[str, float]] | None:
        """A filter SQLite can apply (memora_core.store.record_candidates): a few admitted records are ranked
        exactly; many are applied to the participant's OVERSAMPLE x k nearest. None: the index filters."""
        assert self.vectors is not None
        sql = candidate_query(collection, participant_id, where, EXACT_MAX + 1)
        if sql is None:
            return None
        ids = [r[0] for r in self.query(*sql)]
        if len(ids) <= EXACT_MAX:
            return self.vectors.rank(collection, text, participant_id=participant_id, ids=ids, k=k)
        for n in (k * OVERSAMPLE, k * OVERSAMPLE * WIDEN):  # distances only: a wider net costs little
            nearest = self.vectors.query(collection, text, participant_id=participant_id, k=n)
            sql = candidate_query(collection, participant_id, where, n, among=[i for i, _ in nearest])
            admitted = {r[0] for r in self.query(*sql)} if sql is not None else set()
            hits = [(i, d) for i, d in nearest if i in admitted]
            if len(hits) >= k or len(nearest) < n:  # enough, or that was everyone
                return hits[:k]
        return None
