"""The reports' matplotlib figures (PNG, headless): grouped bars, compression, the editor's decision profile.
Shared by the demo report and the MEMORA-Bench report so both draw alike."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: runs on CI and robots without a display
import matplotlib.pyplot as plt  # noqa: E402

# One colour per editing operation, the same in the plots and the page's badges (report.css).
OP_COLOURS = {"add": "#2e7d32", "update": "#1565c0", "delete": "#c62828", "noop": "#9e9e9e"}


def save(fig: Any, path: Path, dpi: int = 110) -> Path:
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def grouped_bars(ax: Any, groups: list[str], series: dict[str, list[float | None]], ylabel: str) -> None:
    """One bar per series in each group (None draws as 0)."""
    n = max(len(series), 1)
    width = 0.8 / n
    for i, (name, vals) in enumerate(series.items()):
        xs = [g + (i - (n - 1) / 2) * width for g in range(len(groups))]
        ax.bar(xs, [v if v is not None else 0 for v in vals], width, label=name)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=30 if len(groups) > 3 else 0, ha="right" if len(groups) > 3 else "center",
                       fontsize=8)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)


def plot_compression(counts: dict[str, dict[str, float]], ratios: dict[str, float], path: Path,
                     title: str = "Compression (observations per retained entity)") -> Path:
    """`counts`: group (participant) -> series -> records; the ratio is written above the first series."""
    groups = list(counts)
    names = list(next(iter(counts.values()), {}))
    fig, ax = plt.subplots(figsize=(6, 3.5))
    grouped_bars(ax, groups, {s: [counts[g].get(s) for g in groups] for s in names}, "records")
    for i, g in enumerate(groups):
        top = max(counts[g].values(), default=0)
        ax.text(i, top, f"x{ratios.get(g, 0.0):.1f}", ha="center", va="bottom", fontsize=8)
    ax.set_title(title, fontsize=10)
    return save(fig, path)


def plot_decision_profile(decisions: dict[str, int], path: Path, title: str = "Editor decisions") -> Path:
    """Counts of Add / Update / Delete / Noop, one bar each, in the operations' colours."""
    ops = [op for op in OP_COLOURS if op in decisions] + [op for op in decisions if op not in OP_COLOURS]
    vals = [decisions[op] for op in ops]
    fig, ax = plt.subplots(figsize=(5, 3.2))
    bars = ax.bar(ops, vals, color=[OP_COLOURS.get(op, "#6d4c41") for op in ops])
    total = sum(vals) or 1
    for bar, v in zip(bars, vals):
        ax.text(bar.get_x() + bar.get_width() / 2, v, f"{v} ({100 * v / total:.0f}%)", ha="center", va="bottom",
                fontsize=8)
    ax.set_ylabel("decisions")
    ax.set_title(title, fontsize=10)
    return save(fig, path)
