"""The MemOpt page: reward curve (PNG) and a few held-out entries before / after training, side by side
(Jinja2, on the shared report base template and stylesheet)."""
from __future__ import annotations

from pathlib import Path

from memora_core.report.render import environment, render_page

from memora_bench.memopt.config import MemOptConfig
from memora_bench.memopt.data import MemOptData

TEMPLATES = Path(__file__).resolve().with_name("templates")
CURVES = ("reward", "faithfulness", "informativeness", "retrievability", "validity")


def plot_rewards(tlog: dict, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = tlog["steps"]
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    for name in CURVES:
        pts = [(s["step"], s[name]) for s in steps if s.get(name) is not None]
        if pts:
            ax.plot(*zip(*pts), marker="o" if name == "reward" else None, lw=2 if name == "reward" else 1,
                    label="FIRM (mean token reward)" if name == "reward" else name)
    ax.set_xlabel("optimiser step")
    ax.set_ylabel("reward")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def side_by_side(data: MemOptData, before: dict[str, list[dict]], after: dict[str, list[dict]],
                 n: int) -> list[dict]:
    rows = []
    for p in data.test:
        b = {(e["video_id"], e["segment_index"]): e["text"] for e in before.get(p.participant_id, [])}
        a = {(e["video_id"], e["segment_index"]): e["text"] for e in after.get(p.participant_id, [])}
        for s in p.segments:
            if len(rows) >= n:
                return rows
            rows.append({"segment": f"{s.video_id} #{s.index} ({s.start_s:.0f}-{s.end_s:.0f} s)",
                         "before": b.get((s.video_id, s.index), "-"), "after": a.get((s.video_id, s.index), "-")})
    return rows


def write_report(out: Path, cfg: MemOptConfig, tlog: dict, result: dict, data: MemOptData,
                 before: dict[str, list[dict]], after: dict[str, list[dict]]) -> Path:
    plot_rewards(tlog, out / "reward_curve.png")
    metrics = [(m, result["untrained"][m], result["trained"][m]) for m in ("accuracy", "recall", "oracle_accuracy")]
    return render_page(environment(TEMPLATES), "memopt.html", out / "report.html",
                       title=f"MemOpt ({cfg.name})", cfg=cfg, result=result, metrics=metrics,
                       steps=tlog["steps"], rows=side_by_side(data, before, after, cfg.eval.html_entries))
