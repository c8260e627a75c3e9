"""A long-running reader's view of the MEMORA condition that keeps itself current at near-constant cost.

Building `MemoraMemory` reads and validates every stored activity and indexes it (cost linear in memory
size). A reader that answers many calls (the planner node) keeps one built view per participant instead and,
before each call, `refresh()` brings it up to date:
- activities are append-only (one per committed segment, ordered by the segment's seq): only rows with a seq
  above the last one read are loaded, validated and added to the list and the BM25 index;
- entities and placements (updated in place by later segments, a handful of rows) are re-read raw and only
  rows whose stored values changed are re-validated;
- Inferred Knowledge (replaced as a whole by consolidation) is compared raw and rebuilt only when it changed.
A store whose activities do not match what the view holds (rows removed, or added below the last seq) and a
condition whose knowledge had to be mined in memory (nothing consolidated yet) fall back to a full rebuild.
The view answers exactly as a fresh `build_condition` over the same store would.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from memora_core.conditions.base import ConditionMemory
from memora_core.conditions.memora_typed import MemoraMemory
from memora_core.schemas import EntityRecord
from memora_core.store.sqlite_store import DB_FILENAME, SQLiteStore
from memora_core.tools.memora_tools import activity_text

LIVE_CONDITIONS = ("memora_episodic", "memora")
_KNOWLEDGE_TABLES = ("routines", "preferences", "habits")


class LiveMemora(MemoraMemory):
    """A `MemoraMemory` that refreshes incrementally from its (read-only) store."""

    def __init__(self, condition_id: str, store: SQLiteStore, participant_id: str) -> None:
        self._knowledge_raw = self._read_knowledge_raw(store, participant_id)
        self._entity_rows: dict[str, tuple[tuple[Any, ...], EntityRecord]] = {}
        super().__init__(condition_id, store, participant_id)
        routines, prefs, habits = self._knowledge_raw
        # MemoraMemory mines knowledge in memory when the store holds none (conservatively: no routines or no
        # preferences and habits); such knowledge depends on every activity, so the view is then rebuilt.
        self._mined = self.include_knowledge and (not routines or not (prefs or habits))
        self._last_seq = max((a.seq for a in self.activities), default=-1)
        self.rows_read = len(self.activities)  # activity rows loaded so far (a refresh adds only new ones)

    @staticmethod
    def _read_knowledge_raw(store: SQLiteStore, pid: str) -> tuple[tuple[str, ...], ...]:
        tables = {r[0] for r in store.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return tuple(tuple(r[0] for r in store.query(f"SELECT json FROM {t} WHERE participant_id = ? ORDER BY 1",
                                                     (pid,))) if t in tables else ()
                     for t in _KNOWLEDGE_TABLES)

    def _activity_state(self) -> tuple[int, int]:
        row = self.store.query("SELECT COUNT(*), MAX(seq) FROM activities WHERE participant_id = ?", (self.pid,))[0]
        return int(row[0]), -1 if row[1] is None else int(row[1])

    def refresh(self) -> bool:
        """Bring the view up to date; True when it had to be rebuilt from scratch (see the module doc)."""
        count, max_seq = self._activity_state()
        knowledge = self._read_knowledge_raw(self.store, self.pid)
        if self._mined and (max_seq != self._last_seq or count != len(self.activities) or knowledge != self._knowledge_raw):
            self._rebuild()
            return True
        if max_seq > self._last_seq:
            new = [self.store._activity(r) for r in self.store.query(
                "SELECT * FROM activities WHERE participant_id = ? AND seq > ? ORDER BY seq", (self.pid, self._last_seq))]
            self.rows_read += len(new)
            for a in new:
                self._act_pos[a.activity_id] = len(self.activities)
                self.activities.append(a)
            self._act_index.add(activity_text(a) for a in new)
            self._last_seq = max_seq
        if count != len(self.activities):
            self._rebuild()
            return True
        self._refresh_entities()
        self.placements = {p.entity_id: p for p in self.store.placements(self.pid)}
        if knowledge != self._knowledge_raw:
            self._knowledge_raw = knowledge
            if self.include_knowledge:
                self.routines, self.preferences = self.store.routines(self.pid), self.store.preferences(self.pid)
                self.index_knowledge()
        return False

    def _refresh_entities(self) -> None:
        rows = self.store.query("SELECT * FROM entities WHERE participant_id = ? AND deleted = 0"
                                " ORDER BY first_seen_seq, entity_id", (self.pid,))
        cache, out = {}, []
        for r in rows:
            raw = tuple(r)
            seen = self._entity_rows.get(r["entity_id"])
            rec = seen[1] if seen is not None and seen[0] == raw else self.store._entity(r)
            cache[r["entity_id"]] = (raw, rec)
            out.append(rec)
        self._entity_rows, self.entities = cache, out

    def _rebuild(self) -> None:
        before = self.rows_read
        LiveMemora.__init__(self, self.condition_id, self.store, self.pid)  # in place: the tool handlers stay bound
        self.rows_read += before


class LiveConditions:
    """Per-participant live views over one store directory, for a long-running reader (one caller at a time).

    `get(pid)` returns a current condition: the kept view refreshed (LIVE_CONDITIONS) or, for any other
    condition, a fresh build; None while the store does not exist yet. A store that cannot be read (replaced
    under the reader) is reopened once.
    """

    def __init__(self, store_dir: Path | str, condition_id: str) -> None:
        self.store_dir, self.condition_id = Path(store_dir), condition_id
        self._store: SQLiteStore | None = None
        self._views: dict[str, LiveMemora] = {}

    def get(self, participant_id: str) -> ConditionMemory | None:
        if not (self.store_dir / DB_FILENAME).exists():
            self.close()
            return None
        try:
            return self._get(participant_id)
        except sqlite3.DatabaseError:
            self.close()
            return self._get(participant_id)

    def _get(self, pid: str) -> ConditionMemory:
        if self._store is None:
            self._store = SQLiteStore(self.store_dir, readonly=True)
        if self.condition_id not in LIVE_CONDITIONS:
            from memora_core.conditions import build_condition

            return build_condition(self.condition_id, self._store, pid)
        view = self._views.get(pid)
        if view is None:
            view = self._views[pid] = LiveMemora(self.condition_id, self._store, pid)
        else:
            view.refresh()
        return view

    def close(self) -> None:
        self._views.clear()
        if self._store is not None:
            self._store.close()
            self._store = None
