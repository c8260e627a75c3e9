"""The system of record: one SQLite file per store, WAL, foreign keys, one transaction per segment."""
from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import Field

from memora_core.schemas import (
    Activity,
    EditDecision,
    EditOp,
    EntityObservation,
    EntityRecord,
    ObjectPlacement,
    Place,
    Preference,
    RoutineSkill,
    SegmentObservation,
    StrictModel,
)
from memora_core.schemas.knowledge import Habit, Knowledge
from memora_core.store.errors import StorePathError
from memora_core.store.lock import StoreLock
from memora_core.store.migrations import migrate

log = logging.getLogger(__name__)

DB_FILENAME = "memory.sqlite"


class SegmentWrite(StrictModel):
    """Everything one segment changes in memory; committed all-or-nothing."""

    observation: SegmentObservation
    seq: int = Field(ge=0)
    entities: list[EntityRecord] = Field(default_factory=list)  # inserted or replaced (post-edit state)
    entity_observations: list[EntityObservation] = Field(default_factory=list)
    decisions: list[EditDecision] = Field(default_factory=list)
    activity: Activity | None = None
    places: list[Place] = Field(default_factory=list)
    placements: list[ObjectPlacement] = Field(default_factory=list)


class StoreStats(StrictModel):
    participant_id: str
    segments: int
    entities: int
    entities_deleted: int
    entity_observations: int
    activities: int
    places: int
    routines: int
    preferences: int
    decisions: dict[str, int]

    @property
    def compression_ratio(self) -> float:
        retained = self.entities
        return self.entity_observations / retained if retained else 0.0


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))



def _select(table: str, participant_id: str, video_id: str | None, lower: tuple[str, float | None],
            upper: tuple[str, float | None]) -> tuple[str, list]:
    """`SELECT *` from `table` for one participant, optionally one video, with `lower[0] >= lower[1]` and
    `upper[0] <= upper[1]` where those bounds are given (table and column names are ours, never input)."""
    sql, params = f"SELECT * FROM {table} WHERE participant_id = ?", [participant_id]
    for clause, value in (("video_id = ?", video_id), (f"{lower[0]} >= ?", lower[1]), (f"{upper[0]} <= ?", upper[1])):
        if value is not None:
            sql += f" AND {clause}"
            params.append(value)
    return sql, params

class SQLiteStore:
    """Typed access to the SQLite file. Readers may share it; exactly one writer, held by `StoreLock`."""

    def __init__(self, root: Path | str, *, readonly: bool = False) -> None:
        """Open for reading (`readonly=True`: no lock, the file must exist) or as the store's one writer
        (takes the writer lock first: StoreLockedError if another writer holds it, StorePathError if the
        directory cannot hold a writable store)."""
        self.root = Path(root)
        self.readonly = readonly
        self.path = self.root / DB_FILENAME
        self._writer_lock: StoreLock | None = None
        if readonly:
            if not self.path.exists():
                raise FileNotFoundError(f"no memory store at {self.path}")
        else:
            self._writer_lock = StoreLock.acquire(self.root)
        try:
            self._connect()
        except BaseException:
            self._release_writer_lock()
            raise

    def _connect(self) -> None:
        if not self.readonly and self.path.exists() and not os.access(self.path, os.R_OK | os.W_OK):
            raise StorePathError(self.root, f"{DB_FILENAME} is not writable")
        uri = f"file:{self.path}?mode=ro" if self.readonly else f"file:{self.path}"
        self._conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        try:
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA busy_timeout = 10000")
            if not self.readonly:
                self._conn.execute("PRAGMA journal_mode = WAL")
                self._conn.execute("PRAGMA synchronous = NORMAL")
                self.schema_version = migrate(self._conn)
            else:
                self.schema_version = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            if self.readonly:
                raise
            raise StorePathError(self.root, f"{DB_FILENAME} cannot be written as a memory store: {exc}") from exc
        except BaseException:
            self._conn.close()
            raise

    @property
    def holds_writer_lock(self) -> bool:
        return self._writer_lock is not None and self._writer_lock.held

    def close(self) -> None:
        try:
            self._conn.close()
        finally:
            self._release_writer_lock()

    def _release_writer_lock(self) -> None:
        if self._writer_lock is not None:
            self._writer_lock.release()

    # ------------------------------------------------------------------ transactions
    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        if self.readonly:
            raise PermissionError(f"store {self.root} is open read-only")
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")

    def query(self, sql: str, params: tuple | list = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    # ------------------------------------------------------------------ segment writes
    def has_segment(self, segment_id: str) -> bool:
        return bool(self.query("SELECT 1 FROM segments WHERE segment_id = ?", (segment_id,)))

    def committed_segment_ids(self, participant_id: str) -> set[str]:
        rows = self.query("SELECT segment_id FROM segments WHERE participant_id = ?", (participant_id,))
        return {r[0] for r in rows}

    def next_seq(self, participant_id: str) -> int:
        row = self.query("SELECT MAX(seq) FROM segments WHERE participant_id = ?", (participant_id,))[0]
        return 0 if row[0] is None else int(row[0]) + 1

    def commit_segment(self, write: SegmentWrite) -> None:
        """Apply one segment's edits in a single transaction: all of them or none."""
        seg = write.observation.segment
        pid = seg.participant_id
        with self.transaction() as c:
            c.execute(
                "INSERT INTO segments VALUES (?,?,?,?,?,?,?,?,?)",
                (seg.segment_id, pid, seg.video_id, seg.index, write.seq, seg.start_s, seg.end_s,
                 write.observation.backend, write.observation.model_dump_json()),
            )
            for e in write.entities:
                self._check_participant(e.participant_id, pid)
                c.execute(
                    "INSERT OR REPLACE INTO entities VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (e.entity_id, pid, e.name, _dump(e.aliases), _dump(e.attributes), e.state, e.location,
                     e.first_seen_video, e.first_seen_s, e.last_seen_video, e.last_seen_s,
                     e.first_seen_seq, e.last_seen_seq, e.observation_count, int(e.deleted)),
                )
                c.execute("INSERT OR IGNORE INTO vector_outbox VALUES ('entities', ?)", (e.entity_id,))
            c.executemany(
                "INSERT INTO entity_observations (entity_id, participant_id, segment_id, video_id, t_s, seq, op,"
                " changes_json, state, location) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [(o.entity_id, pid, o.segment_id, o.video_id, o.t_s, o.seq, o.op.value, _dump(o.changes),
                  o.state, o.location) for o in write.entity_observations
                 if self._check_participant(o.participant_id, pid)],
            )
            c.executemany(
                "INSERT INTO edit_decisions (participant_id, segment_id, op, observed_name, target_entity_id,"
                " reason, converted_from, before_json, after_json) VALUES (?,?,?,?,?,?,?,?,?)",
                [(pid, seg.segment_id, d.op.value, d.observed_name, d.target_entity_id, d.reason,
                  d.converted_from.value if d.converted_from else None,
                  None if d.before is None else _dump(d.before), None if d.after is None else _dump(d.after))
                 for d in write.decisions],
            )
            if write.activity is not None:
                a = write.activity
                self._check_participant(a.participant_id, pid)
                c.execute(
                    "INSERT INTO activities VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    (a.activity_id, pid, a.segment_id, a.video_id, a.start_s, a.end_s, a.seq, a.summary,
                     _dump(a.verbs), _dump(a.objects), _dump([x.model_dump() for x in a.actions])),
                )
                c.execute("INSERT OR IGNORE INTO vector_outbox VALUES ('activities', ?)", (a.activity_id,))
            for p in write.places:
                self._check_participant(p.participant_id, pid)
                c.execute(
                    "INSERT INTO places VALUES (?,?,?,?,?,?) ON CONFLICT (participant_id, name) DO UPDATE SET"
                    " kind = excluded.kind, last_seen_video = excluded.last_seen_video,"
                    " last_seen_s = excluded.last_seen_s",
                    (p.place_id, pid, p.name, p.kind, p.last_seen_video, p.last_seen_s),
                )
            for pl in write.placements:
                self._check_participant(pl.participant_id, pid)
                c.execute(
                    "INSERT OR REPLACE INTO placements VALUES (?,?,?,?,?,?)",
                    (pid, pl.entity_id, pl.place_name, pl.video_id, pl.t_s, pl.segment_id),
                )

    @staticmethod
    def _check_participant(record_pid: str, segment_pid: str) -> bool:
        if record_pid != segment_pid:
            raise ValueError(f"record for participant {record_pid!r} inside a segment of {segment_pid!r}")
        return True

    # ------------------------------------------------------------------ entity reads
    @staticmethod
    def _entity(row: sqlite3.Row) -> EntityRecord:
        return EntityRecord(
            entity_id=row["entity_id"], participant_id=row["participant_id"], name=row["name"],
            aliases=json.loads(row["aliases_json"]), attributes=json.loads(row["attributes_json"]),
            state=row["state"], location=row["location"], first_seen_video=row["first_seen_video"],
            first_seen_s=row["first_seen_s"], last_seen_video=row["last_seen_video"],
            last_seen_s=row["last_seen_s"], first_seen_seq=row["first_seen_seq"],
            last_seen_seq=row["last_seen_seq"], observation_count=row["observation_count"],
            deleted=bool(row["deleted"]),
        )

    def entities(self, participant_id: str, *, include_deleted: bool = False) -> list[EntityRecord]:
        sql = "SELECT * FROM entities WHERE participant_id = ?"
        if not include_deleted:
            sql += " AND deleted = 0"
        return [self._entity(r) for r in self.query(sql + " ORDER BY first_seen_seq, entity_id", (participant_id,))]

    def entity(self, entity_id: str, participant_id: str | None = None) -> EntityRecord | None:
        sql, params = "SELECT * FROM entities WHERE entity_id = ?", [entity_id]
        if participant_id is not None:
            sql += " AND participant_id = ?"
            params.append(participant_id)
        rows = self.query(sql, params)
        return self._entity(rows[0]) if rows else None

    def entity_history(self, entity_id: str, participant_id: str) -> list[EntityObservation]:
        rows = self.query(
            "SELECT * FROM entity_observations WHERE entity_id = ? AND participant_id = ? ORDER BY seq, obs_id",
            (entity_id, participant_id),
        )
        return [
            EntityObservation(
                entity_id=r["entity_id"], participant_id=r["participant_id"], segment_id=r["segment_id"],
                video_id=r["video_id"], t_s=r["t_s"], seq=r["seq"], op=EditOp(r["op"]),
                changes=json.loads(r["changes_json"]), state=r["state"], location=r["location"],
            )
            for r in rows
        ]

    def entity_observations_in(self, participant_id: str, *, video_id: str | None = None,
                               t0: float | None = None, t1: float | None = None,
                               limit: int = 100) -> list[sqlite3.Row]:
        sql, params = _select("entity_observations", participant_id, video_id, ("t_s", t0), ("t_s", t1))
        return self.query(sql + " ORDER BY seq LIMIT ?", [*params, limit])

    # ------------------------------------------------------------------ activity / environment reads
    @staticmethod
    def _activity(row: sqlite3.Row) -> Activity:
        return Activity(
            activity_id=row["activity_id"], participant_id=row["participant_id"], segment_id=row["segment_id"],
            video_id=row["video_id"], start_s=row["start_s"], end_s=row["end_s"], seq=row["seq"],
            summary=row["summary"], verbs=json.loads(row["verbs_json"]), objects=json.loads(row["objects_json"]),
            actions=json.loads(row["actions_json"]),
        )

    def activities(self, participant_id: str, *, video_id: str | None = None, t0: float | None = None,
                   t1: float | None = None, limit: int | None = None) -> list[Activity]:
        sql, params = _select("activities", participant_id, video_id, ("end_s", t0), ("start_s", t1))
        sql += " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [self._activity(r) for r in self.query(sql, params)]

    def activity(self, activity_id: str) -> Activity | None:
        rows = self.query("SELECT * FROM activities WHERE activity_id = ?", (activity_id,))
        return self._activity(rows[0]) if rows else None

    def places(self, participant_id: str) -> list[Place]:
        rows = self.query("SELECT * FROM places WHERE participant_id = ? ORDER BY name", (participant_id,))
        return [Place(place_id=r["place_id"], participant_id=r["participant_id"], name=r["name"], kind=r["kind"],
                      last_seen_video=r["last_seen_video"], last_seen_s=r["last_seen_s"]) for r in rows]

    def placements(self, participant_id: str) -> list[ObjectPlacement]:
        rows = self.query("SELECT * FROM placements WHERE participant_id = ?", (participant_id,))
        return [ObjectPlacement(participant_id=r["participant_id"], entity_id=r["entity_id"],
                                place_name=r["place_name"], video_id=r["video_id"], t_s=r["t_s"],
                                segment_id=r["segment_id"]) for r in rows]

    def videos(self, participant_id: str) -> list[str]:
        rows = self.query("SELECT video_id, MIN(seq) s FROM segments WHERE participant_id = ? GROUP BY video_id"
                          " ORDER BY s", (participant_id,))
        return [r[0] for r in rows]

    def segment_observations(self, participant_id: str) -> Iterator[SegmentObservation]:
        for r in self.query("SELECT observation_json FROM segments WHERE participant_id = ? ORDER BY seq",
                            (participant_id,)):
            yield SegmentObservation.model_validate_json(r[0])

    def participants(self) -> list[str]:
        return [r[0] for r in self.query("SELECT DISTINCT participant_id FROM segments ORDER BY 1")]

    def decisions(self, participant_id: str, segment_id: str | None = None) -> list[EditDecision]:
        sql, params = "SELECT * FROM edit_decisions WHERE participant_id = ?", [participant_id]
        if segment_id is not None:
            sql += " AND segment_id = ?"
            params.append(segment_id)
        return [
            EditDecision(op=EditOp(r["op"]), observed_name=r["observed_name"], target_entity_id=r["target_entity_id"],
                         reason=r["reason"], converted_from=EditOp(r["converted_from"]) if r["converted_from"] else None,
                         before=json.loads(r["before_json"]) if r["before_json"] else None,
                         after=json.loads(r["after_json"]) if r["after_json"] else None)
            for r in self.query(sql + " ORDER BY decision_id", params)
        ]

    # ------------------------------------------------------------------ inferred knowledge
    def replace_knowledge(self, participant_id: str, routines: list[RoutineSkill],
                          preferences: list[Knowledge]) -> None:
        """Consolidation output (routines; typed preferences and habits) replaces the previous one atomically
        (re-running is idempotent)."""
        with self.transaction() as c:
            for table, key in (("routines", "routine_id"), ("preferences", "pref_id")):
                old = [r[0] for r in c.execute(f"SELECT {key} FROM {table} WHERE participant_id = ?",
                                               (participant_id,))]
                c.executemany("INSERT OR IGNORE INTO vector_outbox VALUES (?, ?)", [(table, i) for i in old])
                c.execute(f"DELETE FROM {table} WHERE participant_id = ?", (participant_id,))
            c.execute("DELETE FROM habits WHERE participant_id = ?", (participant_id,))  # not vector-indexed
            for r in routines:
                self._check_participant(r.participant_id, participant_id)
                c.execute("INSERT INTO routines VALUES (?,?,?)", (r.routine_id, participant_id, r.model_dump_json()))
                c.execute("INSERT OR IGNORE INTO vector_outbox VALUES ('routines', ?)", (r.routine_id,))
            for p in preferences:
                self._check_participant(p.participant_id, participant_id)
                if isinstance(p, Habit):
                    c.execute("INSERT INTO habits VALUES (?,?,?,?)",
                              (p.habit_id, participant_id, f"{p.after_action}|{p.after_object}", p.model_dump_json()))
                    continue
                c.execute("INSERT INTO preferences VALUES (?,?,?)", (p.pref_id, participant_id, p.model_dump_json()))
                c.execute("INSERT OR IGNORE INTO vector_outbox VALUES ('preferences', ?)", (p.pref_id,))

    def routines(self, participant_id: str) -> list[RoutineSkill]:
        rows = self.query("SELECT json FROM routines WHERE participant_id = ? ORDER BY routine_id", (participant_id,))
        return [RoutineSkill.model_validate_json(r[0]) for r in rows]

    def preferences(self, participant_id: str) -> list[Knowledge]:
        """Typed preferences and habits (Inferred Knowledge besides routines), in id order: one namespace in
        the consolidation's strength order."""
        rows = self.query("SELECT json FROM preferences WHERE participant_id = ? ORDER BY pref_id", (participant_id,))
        items: list[Knowledge] = [*(Preference.model_validate_json(r[0]) for r in rows), *self.habits(participant_id)]
        return sorted(items, key=lambda k: k.pref_id)

    def habits(self, participant_id: str) -> list[Habit]:
        rows = self.query("SELECT json FROM habits WHERE participant_id = ? ORDER BY habit_id", (participant_id,))
        return [Habit.model_validate_json(r[0]) for r in rows]

    def routine(self, routine_id: str) -> RoutineSkill | None:
        rows = self.query("SELECT json FROM routines WHERE routine_id = ?", (routine_id,))
        return RoutineSkill.model_validate_json(rows[0][0]) if rows else None

    def preference(self, pref_id: str) -> Preference | None:
        rows = self.query("SELECT json FROM preferences WHERE pref_id = ?", (pref_id,))
        return Preference.model_validate_json(rows[0][0]) if rows else None

    # ------------------------------------------------------------------ vector outbox
    def pending_vectors(self) -> list[tuple[str, str]]:
        return [(r[0], r[1]) for r in self.query("SELECT collection, item_id FROM vector_outbox ORDER BY 1, 2")]

    def clear_pending(self, items: list[tuple[str, str]]) -> None:
        with self.transaction() as c:
            c.executemany("DELETE FROM vector_outbox WHERE collection = ? AND item_id = ?", items)

    # ------------------------------------------------------------------ stats
    def stats(self, participant_id: str) -> StoreStats:
        def count(sql: str) -> int:
            return int(self.query(sql, (participant_id,))[0][0])

        decisions = {op.value: 0 for op in EditOp}
        for r in self.query("SELECT op, COUNT(*) FROM edit_decisions WHERE participant_id = ? GROUP BY op",
                            (participant_id,)):
            decisions[r[0]] = int(r[1])
        return StoreStats(
            participant_id=participant_id,
            segments=count("SELECT COUNT(*) FROM segments WHERE participant_id = ?"),
            entities=count("SELECT COUNT(*) FROM entities WHERE participant_id = ? AND deleted = 0"),
            entities_deleted=count("SELECT COUNT(*) FROM entities WHERE participant_id = ? AND deleted = 1"),
            entity_observations=count("SELECT COUNT(*) FROM entity_observations WHERE participant_id = ?"),
            activities=count("SELECT COUNT(*) FROM activities WHERE participant_id = ?"),
            places=count("SELECT COUNT(*) FROM places WHERE participant_id = ?"),
            routines=count("SELECT COUNT(*) FROM routines WHERE participant_id = ?"),
            preferences=count("SELECT (SELECT COUNT(*) FROM preferences WHERE participant_id = ?1)"
                              " + (SELECT COUNT(*) FROM habits WHERE participant_id = ?1)"),
            decisions=decisions,
        )
