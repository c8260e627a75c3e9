"""CSV tables, matplotlib plots and a small HTML report from a results dict."""
from __future__ import annotations

import csv
import html
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: runs on CI and robots without a display
import matplotlib.pyplot as plt  # noqa: E402

from memora_bench.metrics.eamqa import QA_TYPES  # noqa: E402

EAM_COLUMNS = [*QA_TYPES, "answerable", "controls", "all"]
PLAN_COLUMNS = ["rgp", "order_exec_lcs", "order_exec_prefix", "keyobj", "prefadh", "exec", "kbground",
                "objgt_r", "objgt_p", "objgt_f1", "gr", "gp", "gf1", "rgp_nonempty_only", "n_tasks", "n_empty",
                "n_errors"]


def fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


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


def _grouped_bars(ax, groups: list[str], series: dict[str, list[float]], ylabel: str) -> None:
    n = max(len(series), 1)
    width = 0.8 / n
    for i, (name, vals) in enumerate(series.items()):
        xs = [g + (i - (n - 1) / 2) * width for g in range(len(groups))]
        ax.bar(xs, [v if v is not None else 0 for v in vals], width, label=name)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)


def plot_compression(results: dict[str, Any], out: Path) -> Path:
    mem = results.get("memory", {})
    pids = list(mem)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    _grouped_bars(ax, pids, {"narrations": [mem[p]["narrations"] for p in pids],
                             "entity observations": [mem[p]["entity_observations"] for p in pids],
                             "entities retained": [mem[p]["entities"] for p in pids]}, "records")
    for i, p in enumerate(pids):
        ax.text(i, mem[p]["narrations"], f"x{mem[p]['compression_ratio']:.1f}", ha="center", fontsize=8)
    ax.set_title("Per-participant compression (observations per retained entity)")
    fig.tight_layout()
    path = out / "compression.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_eam_qa(results: dict[str, Any], out: Path) -> list[Path]:
    conds = results["conditions"]
    cids = list(conds)
    fig, ax = plt.subplots(figsize=(8, 4))
    _grouped_bars(ax, cids, {t: [conds[c][t]["accuracy"] for c in cids] for t in (*QA_TYPES, "controls")},
                  "accuracy")
    ax.set_title(f"EAM-QA accuracy per type by condition ({results['mode']})")
    fig.tight_layout()
    p1 = out / "eam_qa_accuracy.png"
    fig.savefig(p1, dpi=110)
    plt.close(fig)
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
    fig.tight_layout()
    p2 = out / "eam_qa_decision_profile.png"
    fig.savefig(p2, dpi=110)
    plt.close(fig)
    return [p1, p2]


def plot_planning(results: dict[str, Any], out: Path) -> Path:
    conds = results["conditions"]
    cids = list(conds)
    fig, ax = plt.subplots(figsize=(8, 4))
    _grouped_bars(ax, cids, {s: [conds[c][s]["rgp"] for c in cids] for s in ("replay", "generalize")}, "RGP")
    ax.set_title(f"RGP by condition and split ({results['mode']})")
    fig.tight_layout()
    path = out / "planning_rgp.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _html_table(path: Path) -> str:
    with path.open() as fh:
        rows = list(csv.reader(fh))
    head = "".join(f"<th>{html.escape(h)}</th>" for h in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows[1:])
    return f"<table><tr>{head}</tr>{body}</table>"


def _html(title: str, results: dict[str, Any], tables: dict[str, Path], images: list[Path], out: Path) -> Path:
    parts = [f"<html><head><meta charset='utf-8'><title>{html.escape(title)}</title><style>"
             "body{font-family:sans-serif} table{border-collapse:collapse;font-size:12px}"
             "td,th{border:1px solid #ccc;padding:2px 6px}</style></head><body>",
             f"<h1>{html.escape(title)}</h1><p>mode: <b>{html.escape(results['mode'])}</b>, participants: "
             f"{html.escape(', '.join(results['participants']))}, wall: {results.get('wall_s')} s</p>"]
    for name, path in tables.items():
        parts.append(f"<h2>{html.escape(name)}</h2>{_html_table(path)}")
    for img in images:
        parts.append(f"<p><img src='{html.escape(img.name)}'></p>")
    parts.append("<h2>notes</h2><ul>" + "".join(f"<li><b>{html.escape(k)}</b>: {html.escape(v)}</li>"
                                                for k, v in results.get("notes", {}).items()) + "</ul>")
    parts.append("</body></html>")
    path = out / "report.html"
    path.write_text("\n".join(parts))
    return path


def write_eam_qa_report(results: dict[str, Any], out: Path) -> Path:
    tables = eam_qa_tables(results, out)
    images = [plot_compression(results, out), *plot_eam_qa(results, out)]
    return _html("MEMORA-Bench EAM-QA", results, tables, images, out)


def write_planning_report(results: dict[str, Any], out: Path) -> Path:
    tables = planning_tables(results, out)
    images = [plot_compression(results, out), plot_planning(results, out)]
    return _html("MEMORA-Bench Planning", results, tables, images, out)
