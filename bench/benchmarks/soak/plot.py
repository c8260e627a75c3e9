"""The soak's figure: RSS per node and store size against video in memory, and planner-call latency."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from bench.benchmarks.soak.checks import video_at  # noqa: E402


def plot_soak(samples: list[dict], events: list[dict], path: Path, title: str) -> Path:
    fig, axes = plt.subplots(3, 1, figsize=(9, 10), sharex=True)
    hours = [s["video_s"] / 3600 for s in samples]
    nodes = sorted({n for s in samples for n in s["rss"]})
    for node in nodes:
        axes[0].plot(hours, [s["rss"].get(node, float("nan")) / 2**20 for s in samples], label=node)
    axes[0].plot(hours, [sum(s["rss"].values()) / 2**20 for s in samples], label="all nodes", color="black")
    axes[0].set_ylabel("RSS (MiB)")
    axes[0].legend(fontsize=8, loc="upper left")
    axes[1].plot(hours, [s["store_bytes"] / 2**20 for s in samples], color="tab:brown")
    axes[1].set_ylabel("store on disk (MiB)")
    queries = [q for q in events if q["kind"] == "query" and q["latency_s"] is not None]
    axes[2].scatter([video_at(samples, q["wall"]) / 3600 for q in queries], [q["latency_s"] * 1000 for q in queries],
                    s=4, alpha=0.5)
    axes[2].set_ylabel("planner call (ms)")
    axes[2].set_xlabel("video in memory (h)")
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
