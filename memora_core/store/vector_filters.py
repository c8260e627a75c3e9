"""Metadata filters for the vector index, split so that Chroma does only what it does fast.

Chroma selects records by an equality on a metadata key through an index, but a range clause
(`t_s >= a`) costs a scan of the collection. A where clause is therefore split into its equality clauses
(sent to Chroma to select the candidate records) and the rest (applied here to the candidates, which are
then ranked exactly by cosine distance). Only $and, $or and $eq/$gt/$gte/$lt/$lte/$in are applied here;
anything else makes the caller hand the whole filter to Chroma.
"""
from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

EXACT_MAX = 2000  # candidates ranked exactly; more go to Chroma's filtered search
OVERSAMPLE = 10  # a filter with no equality clause is applied to the 10 x k nearest first

_SCALARS = (str, int, float, bool)
_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": operator.eq, "$gt": operator.gt, "$gte": operator.ge, "$lt": operator.lt, "$lte": operator.le,
    "$in": lambda value, options: value in options,
}


def _and(clauses: list[dict[str, Any]]) -> dict[str, Any]:
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def flatten(where: dict[str, Any]) -> list[dict[str, Any]]:
    """A where clause as the list of clauses its top-level (and nested) $and joins."""
    out: list[dict[str, Any]] = []
    for key, value in where.items():
        if key == "$and" and isinstance(value, list):
            for part in value:
                out += flatten(part) if isinstance(part, dict) else [{key: value}]
        else:
            out.append({key: value})
    return out


def _is_equality(clause: dict[str, Any]) -> bool:
    (key, value), = clause.items()
    if key.startswith("$"):
        return False
    if isinstance(value, dict):
        return list(value) == ["$eq"] and isinstance(value["$eq"], _SCALARS)
    return isinstance(value, _SCALARS)


def _supported(clause: Any) -> bool:
    if not isinstance(clause, dict) or len(clause) != 1:
        return False
    (key, value), = clause.items()
    if key in ("$and", "$or"):
        return isinstance(value, list) and bool(value) and all(_supported(c) for c in value)
    if key.startswith("$"):
        return False
    if isinstance(value, dict):
        return bool(value) and all(op in _OPS for op in value)
    return isinstance(value, _SCALARS)


def split_where(where: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """(equality clauses, the other clauses); the other clauses are None when some cannot be applied here."""
    clauses = flatten(where)
    selected = [c for c in clauses if _is_equality(c)]
    rest = [c for c in clauses if not _is_equality(c)]
    return selected, (rest if all(_supported(c) for c in rest) else None)


def matches(metadata: dict[str, Any] | None, clause: dict[str, Any]) -> bool:
    """Whether one record's metadata satisfies a clause accepted by split_where (a missing key never does)."""
    (key, value), = clause.items()
    if key == "$and":
        return all(matches(metadata, c) for c in value)
    if key == "$or":
        return any(matches(metadata, c) for c in value)
    if not metadata or key not in metadata:
        return False
    have = metadata[key]
    tests = value if isinstance(value, dict) else {"$eq": value}
    try:
        return all(_OPS[op](have, want) for op, want in tests.items())
    except TypeError:  # a string compared with a number: no match, as in Chroma
        return False


def exact_top_k(query: np.ndarray, ids: list[str], embeddings: np.ndarray, k: int) -> list[tuple[str, float]]:
    """The k candidates nearest to the query by cosine distance (1 - cosine similarity), nearest first."""
    if not ids:
        return []
    norms = np.linalg.norm(embeddings, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
    dist = 1.0 - (embeddings @ query) / np.maximum(norms, 1e-12)
    order = np.argsort(dist, kind="stable")[:k]
    return [(ids[i], float(dist[i])) for i in order]
