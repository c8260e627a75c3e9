"""Crash and resume: a real `memora write` process killed with SIGKILL mid-run, then rerun, ends with
exactly the memory an uninterrupted run gives (entity, observation, decision, activity, place tables)."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memora_core.cli.main import main
from memora_core.store.sqlite_store import DB_FILENAME

pytestmark = [pytest.mark.slow, pytest.mark.shared_data]

PID = "P06"
TABLES = {
    "segments": "SELECT segment_id, video_id, idx, seq, start_s, end_s, backend, observation_json FROM segments",
    "entities": "SELECT * FROM entities",
    "entity_observations": "SELECT entity_id, segment_id, video_id, t_s, seq, op, changes_json, state, location"
                           " FROM entity_observations",
    "edit_decisions": "SELECT segment_id, op, observed_name, target_entity_id, reason, converted_from, before_json,"
                      " after_json FROM edit_decisions",
    "activities": "SELECT * FROM activities",
    "places": "SELECT * FROM places",
    "placements": "SELECT * FROM placements",
}


def dump(store: Path) -> dict[str, list]:
    conn = sqlite3.connect(f"file:{store / DB_FILENAME}?mode=ro", uri=True)
    try:
        return {t: sorted(map(tuple, conn.execute(q).fetchall()), key=repr) for t, q in TABLES.items()}
    finally:
        conn.close()


def committed(store: Path) -> int:
    db = store / DB_FILENAME
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return conn.execute("SELECT COUNT(*) FROM segments").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:  # not created yet
        return 0


def write_args(csv_path: Path, store: Path) -> list[str]:
    return ["write", "--participant", PID, "--narrations", str(csv_path), "--store", str(store),
            "--embedding", "hashing", "--quiet", "--json"]


def run_and_kill(args: list[str], store: Path, after_segments: int) -> int:
    """Start a real writer process, SIGKILL it once `after_segments` are committed; returns the count seen."""
    proc = subprocess.Popen([sys.executable, "-m", "memora_core.cli.main", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    try:
        while committed(store) < after_segments:
            if proc.poll() is not None:
                raise AssertionError(f"writer ended before the kill: {proc.stderr.read().decode()[-2000:]}")
            if time.monotonic() > deadline:
                raise AssertionError("writer too slow")
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    return committed(store)


def test_kill9_then_resume_equals_uninterrupted(tmp_path, shared_data, capsys):
    csv_path = shared_data / "epic100" / "EPIC_100_extension_narrations_P06_P28.csv"
    reference = tmp_path / "reference"
    assert main(write_args(csv_path, reference)) == 0
    total = json.loads(capsys.readouterr().out)["processed"]

    crashed = tmp_path / "crashed"
    first = run_and_kill(write_args(csv_path, crashed), crashed, 60)
    second = run_and_kill(write_args(csv_path, crashed), crashed, first + 120)
    assert 60 <= first < second < total, (first, second, total)

    assert main(write_args(csv_path, crashed)) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["skipped"] == second and resumed["processed"] == total - second

    a, b = dump(reference), dump(crashed)
    for table in TABLES:
        assert a[table] == b[table], f"table {table} differs after crash + resume"
    assert len(a["entity_observations"]) > 1000

    # the vector index (derived, fed through the outbox) also caught up with every retained entity
    from memora_core.config import load_config
    from memora_core.store import MemoryStore

    cfg = load_config()
    cfg.store.embedding.backend = "hashing"
    store = MemoryStore.open(crashed, cfg)
    assert store.pending_vectors() == []
    assert store.vectors.count("entities") == store.stats(PID).entities
    assert store.vectors.count("activities") == total
    store.close()
