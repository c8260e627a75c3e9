"""Filtered vector searches whose candidates come from the system of record.

A time- or video-filtered search ("what did I do with the kettle in this video between 2 and 4 min")
needs the few records inside the window, then their ranking by similarity. Chroma selects records by a
metadata filter through its own tables: tens of milliseconds on a participant with 100k+ activities.
SQLite holds the same fields behind the indexes the tools already use ((participant, video, start),
(participant, seq)), so it lists the candidates in well under a millisecond; their vectors are then
fetched from Chroma by id and ranked exactly (measured, 187k activities of one participant, a 2-min
window: p95 95-128 ms -> 6.5 ms, see bench/benchmarks/store_bench.py). A filter that admits more records
than are worth ranking exactly (a fifth of a long history) is applied by SQLite to the participant's
nearest records, whose metadata Chroma then need not fetch (10-25 ms of a 12-30 ms query).

`METADATA_COLUMNS` says which column of which table each vector metadata key is stored from
(`MemoryStore._documents` writes them); a filter that uses anything else (another key, $or, a value of an
unexpected type) is not translated, and the caller keeps the vector index's own filtering.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memora_core.store.vector_filters import flatten


@dataclass(frozen=True)
class RecordTable:
    table: str
    id_column: str
    columns: dict[str, tuple[str, type | tuple[type, ...]]]  # metadata key -> (column, accepted value types)
    always: str = ""  # a condition every indexed record meets


_NUMBER = (int, float)
METADATA_COLUMNS: dict[str, RecordTable] = {
    "activities": RecordTable("activities", "activity_id", {
        "participant_id": ("participant_id", str), "video_id": ("video_id", str),
        "t_s": ("start_s", _NUMBER), "seq": ("seq", _NUMBER)}),
    "entities": RecordTable("entities", "entity_id", {
        "participant_id": ("participant_id", str), "video_id": ("first_seen_video", str),
        "t_s": ("first_seen_s", _NUMBER), "seq": ("first_seen_seq", _NUMBER)}, always="deleted = 0"),
}
_SQL_OPS = {"$eq": "=", "$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


def _typed(value: Any, accepted: type | tuple[type, ...]) -> bool:
    return isinstance(value, accepted) and not isinstance(value, bool)


def _clause_sql(clause: dict[str, Any], table: RecordTable, ref: str) -> tuple[list[str], list[Any]] | None:
    (key, value), = clause.items()
    if key not in table.columns:
        return None
    column, accepted = table.columns[key]
    column = ref + column
    tests = value if isinstance(value, dict) else {"$eq": value}
    terms, params = [], []
    for op, want in tests.items():
        if op == "$in" and isinstance(want, list) and want and all(_typed(v, accepted) for v in want):
            terms.append(f"{column} IN ({','.join('?' * len(want))})")
            params += want
        elif op in _SQL_OPS and _typed(want, accepted):
            terms.append(f"{column} {_SQL_OPS[op]} ?")
            params.append(want)
        else:
            return None
    return (terms, params) if terms else None


def candidate_query(collection: str, participant_id: str, where: dict[str, Any], limit: int,
                    among: list[str] | None = None) -> tuple[str, list[Any]] | None:
    """SQL listing at most `limit` ids of one participant's records that the filter admits (only ids in
    `among`, when given), or None when the filter is not one this translation reproduces exactly."""
    table = METADATA_COLUMNS.get(collection)
    if table is None or not where:
        return None
    # Given ids, look them up by primary key: '+column' keeps SQLite from scanning a filter column's index
    # instead (a fifth of a long history by seq: 15-38 ms against < 1 ms for 150 key lookups).
    ref = "+" if among is not None else ""
    terms, params = [f"{ref}participant_id = ?"], [participant_id]
    if table.always:
        terms.append(ref + table.always)
    for clause in flatten(where):
        if not isinstance(clause, dict) or len(clause) != 1:
            return None
        got = _clause_sql(clause, table, ref)
        if got is None:
            return None
        terms += got[0]
        params += got[1]
    if among is not None:
        terms.append(f"{table.id_column} IN ({','.join('?' * len(among))})" if among else "0")
        params += among
    sql = f"SELECT {table.id_column} FROM {table.table} WHERE {' AND '.join(terms)} LIMIT ?"
    return sql, [*params, int(limit)]
