"""CSV tables, matplotlib plots and the HTML report of a results dict. The page is rendered from
templates/bench.html, which extends memora_core's shared report base (one stylesheet for every report)."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from memora_bench.metrics.eamqa import QA_TYPES
from memora_core.report import plots
from memora_core.report.plots import grouped_bars, plt, save
from memora_core.report.render import environment, num, render_page

TEMPLATES = Path(__file__).resolve().with_name("templates")

EAM_COLUMNS = [*QA_TYPES, "answerable", "controls", "all"]
PLAN_COLUMNS = ["rgp", "order_exec_lcs", "order_exec_prefix", "keyobj", "prefadh", "exec", "kbground",
                "objgt_r", "objgt_p", "objgt_f1", "gr", "gp", "gf1", "rgp_nonempty_only", "n_tasks", "n_empty",
                "n_errors"]


fmt = num  # how tables print a value: '-' for none, floats to 3 decimals


def _write_csv(path: Path, header: list[str], rows: list[list[Any]]) -> Path:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        for r in rows:
            w.writerow([fmt(x) for x in r])
    return path


def eam_qa_tables(results: dict[str, Any], out: Path) -> dict[str, Path]:
    conds = results["conditions"]
    acc = [[cid] + [conds[cid][c]["accuracy"] for c in EAM_COLUMNS] for cid in conds]
    macro = [[cid] + [conds[cid][c]["accuracy_macro"] for c in EAM_COLUMNS] for cid in conds]
    extra = []
    for cid, b in conds.items():
        d = b.get("diagnostic", {})
        extra.append([cid, b["answerable"]["e_rate"], b["controls"]["accuracy"], b["answerable"]["evidence_recall"],
                      b["answerable"]["evidence_recall_all"], b["answerable"]["unparseable_rate"],
                      d.get("commit_rate"), d.get("commit_accuracy"), d.get("n_parametric_missed")])
    per_pid = []
    for pid, by_c in results.get("per_participant", {}).items():
        for cid, b in by_c.items():
            per_pid.append([pid, cid] + [b[c]["accuracy"] for c in EAM_COLUMNS] + [b["answerable"]["evidence_recall"]])
    return {
        "accuracy": _write_csv(out / "eam_qa_accuracy.csv", ["condition", *EAM_COLUMNS], acc),
        "accuracy_macro": _write_csv(out / "eam_qa_accuracy_macro.csv", ["condition", *EAM_COLUMNS], macro),
        "decisions": _write_csv(out / "eam_qa_decisions.csv",
                                ["condition", "e_rate_answerable", "controls_accuracy", "evidence_recall",
                                 "evidence_recall_all", "unparseable_rate", "commit_rate_on_parametric_misses",
                                 "commit_accuracy", "n_parametric_missed"], extra),
        "per_participant": _write_csv(out / "eam_qa_per_participant.csv",
                                      ["participant", "condition", *EAM_COLUMNS, "evidence_recall"], per_pid),
    }


def planning_tables(results: dict[str, Any], out: Path) -> dict[str, Path]:
    rows, per_pid, tools = [], [], []
    for cid, splits in results["conditions"].items():
        for split, agg in splits.items():
            rows.append([cid, split] + [agg.get(c) for c in PLAN_COLUMNS])
            tools.append([cid, split, "; ".join(f"{k}={v:.2f}" for k, v in agg.get("tool_share", {}).items())])
    for pid, by_c in results.get("per_participant", {}).items():
        for cid, splits in by_c.items():
            for split, agg in splits.items():
                per_pid.append([pid, cid, split] + [agg.get(c) for c in PLAN_COLUMNS])
    return {
        "planning": _write_csv(out / "planning.csv", ["condition", "split", *PLAN_COLUMNS], rows),
        "per_participant": _write_csv(out / "planning_per_participant.csv",
                                      ["participant", "condition", "split", *PLAN_COLUMNS], per_pid),
        "tool_share": _write_csv(out / "planning_tool_share.csv", ["condition", "split", "tool_share"], tools),
    }


def plot_compression(results: dict[str, Any], out: Path) -> Path:
    mem = results.get("memory", {})
    counts = {p: {"narrations": m["narrations"], "entity observations": m["entity_observations"],
                  "entities retained": m["entities"]} for p, m in mem.items()}
    return plots.plot_compression(counts, {p: m["compression_ratio"] for p, m in mem.items()}, out / "compression.png",
                                  "Per-participant compression (observations per retained entity)")


def plot_decisions(results: dict[str, Any], out: Path) -> Path | None:
    """The online editor's Add / Update / Delete / Noop counts over every participant's memory."""
    total: dict[str, int] = {}
    for m in results.get("memory", {}).values():
        for op, n in (m.get("decisions") or {}).items():
            total[op] = total.get(op, 0) + n
    return plots.plot_decision_profile(total, out / "editor_decisions.png") if total else None


def plot_eam_qa(results: dict[str, Any], out: Path) -> list[Path]:
    conds = results["conditions"]
    cids = list(conds)
    fig, ax = plt.subplots(figsize=(8, 4))
    grouped_bars(ax, cids, {t: [conds[c][t]["accuracy"] for c in cids] for t in (*QA_TYPES, "controls")},
                 "accuracy")
    ax.set_title(f"EAM-QA accuracy per type by condition ({results['mode']})")
    p1 = save(fig, out / "eam_qa_accuracy.png")
    fig, ax = plt.subplots(figsize=(8, 4))
    bottoms = [0.0] * len(cids)
    for part in ("correct", "wrong_committed", "abstain_e", "unparseable"):
        vals = [conds[c]["decision_profile"][part] for c in cids]
        ax.bar(range(len(cids)), vals, bottom=bottoms, label=part)
        bottoms = [b + v for b, v in zip(bottoms, vals)]
    ax.set_xticks(range(len(cids)))
    ax.set_xticklabels(cids, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("share of questions")
    ax.set_title("EAM-QA decision profile")
    ax.legend(fontsize=7)
    return [p1, save(fig, out / "eam_qa_decision_profile.png")]


def plot_planning(results: dict[str, Any], out: Path) -> Path:
    conds = results["conditions"]
    cids = list(conds)
    fig, ax = plt.subplots(figsize=(8, 4))
    grouped_bars(ax, cids, {s: [conds[c][s]["rgp"] for c in cids] for s in ("replay", "generalize")}, "RGP")
    ax.set_title(f"RGP by condition and split ({results['mode']})")
    return save(fig, out / "planning_rgp.png")


def _csv_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open() as fh:
        rows = list(csv.reader(fh))
    return (rows[0], rows[1:]) if rows else ([], [])


def _html(title: str, results: dict[str, Any], tables: dict[str, Path], images: list[Path], out: Path) -> Path:
    """report.html from templates/bench.html: every CSV table, the plots, the memory figures and the notes."""
    decisions = plot_decisions(results, out)
    return render_page(
        environment(TEMPLATES), "bench.html", out / "report.html", title=title, results=results,
        tables={name: _csv_rows(path) for name, path in tables.items()},
        images=[p.relative_to(out).as_posix() for p in [*images, *([decisions] if decisions else [])]],
        memory=results.get("memory", {}), notes=results.get("notes", {}))


def _strict_view(results: dict[str, Any]) -> dict[str, Any]:
    """The tables above read the `strict` family; the headline `reference` family has its own tables."""
    if "strict" not in results:
        return results
    return {**results, "conditions": results["strict"], "per_participant": results.get("per_participant_strict", {})}


def write_eam_qa_report(results: dict[str, Any], out: Path) -> Path:
    from memora_bench.runners.report_reference import write_tables

    tables = {**(write_tables(results, out, _write_csv) if "strict" in results else {}),
              **{f"strict {k}": v for k, v in eam_qa_tables(_strict_view(results), out).items()}}
    images = [plot_compression(results, out), *plot_eam_qa(_strict_view(results), out)]
    return _html("MEMORA-Bench EAM-QA", results, tables, images, out)


def write_planning_report(results: dict[str, Any], out: Path) -> Path:
    from memora_bench.runners.report_reference import write_tables

    tables = {**(write_tables(results, out, _write_csv) if "strict" in results else {}),
              **{f"strict {k}": v for k, v in planning_tables(_strict_view(results), out).items()}}
    images = [plot_compression(results, out), plot_planning(results, out)]
    return _html("MEMORA-Bench Planning", results, tables, images, out)
