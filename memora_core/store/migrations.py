"""SQLite schema and its versioned migrations. Each migration runs once, inside a transaction."""
from __future__ import annotations

import sqlite3

# Append new migrations; never edit one that has shipped.
MIGRATIONS: list[str] = [
    # v1: the typed stores
    """
    CREATE TABLE segments (
        segment_id TEXT PRIMARY KEY,
        participant_id TEXT NOT NULL,
        video_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        start_s REAL NOT NULL,
        end_s REAL NOT NULL,
        backend TEXT NOT NULL,
        observation_json TEXT NOT NULL,
        UNIQUE (participant_id, seq)
    );
    CREATE INDEX segments_pv ON segments (participant_id, video_id, idx);

    CREATE TABLE entities (
        entity_id TEXT PRIMARY KEY,
        participant_id TEXT NOT NULL,
        name TEXT NOT NULL,
        aliases_json TEXT NOT NULL,
        attributes_json TEXT NOT NULL,
        state TEXT,
        location TEXT,
        first_seen_video TEXT NOT NULL,
        first_seen_s REAL NOT NULL,
        last_seen_video TEXT NOT NULL,
        last_seen_s REAL NOT NULL,
        first_seen_seq INTEGER NOT NULL,
        last_seen_seq INTEGER NOT NULL,
        observation_count INTEGER NOT NULL,
        deleted INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX entities_pn ON entities (participant_id, name);

    CREATE TABLE entity_observations (
        obs_id INTEGER PRIMARY KEY AUTOINCREMENT,
        entity_id TEXT NOT NULL REFERENCES entities (entity_id),
        participant_id TEXT NOT NULL,
        segment_id TEXT NOT NULL REFERENCES segments (segment_id),
        video_id TEXT NOT NULL,
        t_s REAL NOT NULL,
        seq INTEGER NOT NULL,
        op TEXT NOT NULL,
        changes_json TEXT NOT NULL,
        state TEXT,
        location TEXT
    );
    CREATE INDEX entity_obs_entity ON entity_observations (entity_id, seq);
    CREATE INDEX entity_obs_time ON entity_observations (participant_id, video_id, t_s);
    CREATE INDEX entity_obs_seq ON entity_observations (participant_id, seq);

    CREATE TABLE edit_decisions (
        decision_id INTEGER PRIMARY KEY AUTOINCREMENT,
        participant_id TEXT NOT NULL,
        segment_id TEXT NOT NULL REFERENCES segments (segment_id),
        op TEXT NOT NULL,
        observed_name TEXT NOT NULL,
        target_entity_id TEXT,
        reason TEXT NOT NULL,
        converted_from TEXT,
        before_json TEXT,
        after_json TEXT
    );
    CREATE INDEX decisions_p ON edit_decisions (participant_id, op);

    CREATE TABLE activities (
        activity_id TEXT PRIMARY KEY,
        participant_id TEXT NOT NULL,
        segment_id TEXT NOT NULL UNIQUE REFERENCES segments (segment_id),
        video_id TEXT NOT NULL,
        start_s REAL NOT NULL,
        end_s REAL NOT NULL,
        seq INTEGER NOT NULL,
        summary TEXT NOT NULL,
        verbs_json TEXT NOT NULL,
        objects_json TEXT NOT NULL,
        actions_json TEXT NOT NULL
    );
    CREATE INDEX activities_time ON activities (participant_id, video_id, start_s);
    CREATE INDEX activities_seq ON activities (participant_id, seq);

    CREATE TABLE places (
        place_id TEXT PRIMARY KEY,
        participant_id TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        last_seen_video TEXT,
        last_seen_s REAL,
        UNIQUE (participant_id, name)
    );

    CREATE TABLE placements (
        participant_id TEXT NOT NULL,
        entity_id TEXT NOT NULL REFERENCES entities (entity_id),
        place_name TEXT NOT NULL,
        video_id TEXT NOT NULL,
        t_s REAL NOT NULL,
        segment_id TEXT NOT NULL REFERENCES segments (segment_id),
        PRIMARY KEY (participant_id, entity_id)
    );

    CREATE TABLE routines (
        routine_id TEXT PRIMARY KEY,
        participant_id TEXT NOT NULL,
        json TEXT NOT NULL
    );
    CREATE TABLE preferences (
        pref_id TEXT PRIMARY KEY,
        participant_id TEXT NOT NULL,
        json TEXT NOT NULL
    );

    -- rows the vector index still has to receive; written in the same transaction as the record,
    -- so a crash between the SQLite commit and the Chroma write is repaired on the next open.
    CREATE TABLE vector_outbox (
        collection TEXT NOT NULL,
        item_id TEXT NOT NULL,
        PRIMARY KEY (collection, item_id)
    );
    """,
    # v2: what text each vector was built from, so unchanged records are not re-embedded (re-upserting an
    # existing id in Chroma costs ~10x an insert).
    """
    CREATE TABLE vector_docs (
        collection TEXT NOT NULL,
        item_id TEXT NOT NULL,
        doc_hash TEXT NOT NULL,
        PRIMARY KEY (collection, item_id)
    );
    """,
    # v3: typed Inferred Knowledge. Habits get their own table; a preference row is a typed record (subject,
    # action, attribute, choice, ...). Rows written before as English sentences cannot be read as typed
    # records and are derived data (a pure function of the episodes): they are removed, their vectors are
    # queued for deletion, and `memora consolidate` (or the MEMORA condition, in memory) mines them again.
    """
    CREATE TABLE habits (
        habit_id TEXT PRIMARY KEY,
        participant_id TEXT NOT NULL,
        after_key TEXT NOT NULL,
        json TEXT NOT NULL
    );
    CREATE INDEX habits_trigger ON habits (participant_id, after_key);
    INSERT OR IGNORE INTO vector_outbox
        SELECT 'preferences', pref_id FROM preferences WHERE json_extract(json, '$.attribute') IS NULL;
    DELETE FROM preferences WHERE json_extract(json, '$.attribute') IS NULL;
    """,
]


def current_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the database to the newest schema version; returns that version."""
    version = current_version(conn)
    if version > len(MIGRATIONS):
        raise RuntimeError(
            f"store schema version {version} is newer than this code knows ({len(MIGRATIONS)}); upgrade memora"
        )
    for target in range(version + 1, len(MIGRATIONS) + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _split(MIGRATIONS[target - 1]):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {target}")
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise
    return len(MIGRATIONS)


def _split(script: str) -> list[str]:
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
