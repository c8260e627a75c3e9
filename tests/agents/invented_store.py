"""A participant's memory formed from invented narration rows: the rows (EPIC-100 columns) written to a CSV, then
the real writer (hashing embeddings, no vectors) and consolidation on a real SQLite store."""
from __future__ import annotations

import contextlib
import csv
import io
from collections.abc import Iterable, Sequence
from pathlib import Path

from memora_core.consolidation import consolidate
from memora_core.store.sqlite_store import SQLiteStore
from tests.agents.conftest import write_participant

COLUMNS = ["narration_id", "participant_id", "video_id", "narration_timestamp", "start_timestamp", "stop_timestamp",
           "start_frame", "stop_frame", "narration", "verb", "verb_class", "noun", "noun_class", "all_nouns",
           "all_noun_classes"]


def formed_store(tmp_path: Path, participant: str, rows: Iterable[Sequence]) -> Path:
    """The store folder of `participant`'s memory written and consolidated from `rows` (one per narration)."""
    path = tmp_path / "narrations.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        w.writerows(rows)
    store_dir = tmp_path / "store"
    with contextlib.redirect_stdout(io.StringIO()):
        write_participant(store_dir, participant, path)
    writer = SQLiteStore(store_dir)
    try:
        consolidate(writer, participant)
    finally:
        writer.close()
    return store_dir
