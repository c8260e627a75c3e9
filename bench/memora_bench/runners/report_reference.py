"""CSV tables of the headline `reference` family (results["conditions"], ["per_participant"])."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from memora_bench.metrics.eamqa import QA_TYPES

REF_PLAN_COLUMNS = ["rgp", "order_exec", "keyobj", "prefadh", "exec", "n_tasks", "n_scored", "n_empty",
                    "n_order_exec_defined", "n_keyobj_defined", "n_prefadh_defined"]
REF_EAM_COLUMNS = ["accuracy", "e_rate", "n"]


def planning_rows(results: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    """(header, rows): pooled rows (participant "pooled") then one row per participant, condition, split."""
    rows = []
    blocks = [("pooled", results["conditions"]), *results.get("per_participant", {}).items()]
    for pid, by_c in blocks:
        for cid, splits in by_c.items():
            for split, agg in splits.items():
                rows.append([pid, cid, split] + [agg.get(c) for c in REF_PLAN_COLUMNS])
    return ["participant", "condition", "split", *REF_PLAN_COLUMNS], rows


def eam_qa_rows(results: dict[str, Any]) -> tuple[list[str], list[list[Any]]]:
    """(header, rows): accuracy, E-rate, n and per-type accuracy (controls included), pooled then per
    participant, with the filtered-subset accuracy where defined."""
    rows = []
    blocks = [("pooled", results["conditions"]), *results.get("per_participant", {}).items()]
    filtered = results.get("filtered_subset", {})
    for pid, by_c in blocks:
        fs = filtered.get("pooled", {}) if pid == "pooled" else filtered.get("per_participant", {}).get(pid, {})
        for cid, b in by_c.items():
            rows.append([pid, cid] + [b.get(c) for c in REF_EAM_COLUMNS]
                        + [b.get("per_type_accuracy", {}).get(t) for t in QA_TYPES]
                        + [fs.get(cid, {}).get("accuracy"), fs.get(cid, {}).get("total")])
    return ["participant", "condition", *REF_EAM_COLUMNS, *QA_TYPES, "filtered_accuracy", "filtered_n"], rows


def write_tables(results: dict[str, Any], out: Path, write_csv: Any) -> dict[str, Path]:
    rows = planning_rows if results.get("benchmark") == "planning" else eam_qa_rows
    header, body = rows(results)
    name = "planning_reference.csv" if results.get("benchmark") == "planning" else "eam_qa_reference.csv"
    return {"reference (headline)": write_csv(out / name, header, body)}
