"""runs/<name>/report.html: the kitchen demo as one page — tasks, plans with their evidence, execution key
frames per step, the memory inspector, decision profile and compression plots, demonstrations, recording.
Thumbnails and plots go to report_files/ beside the page; links are relative, so the run directory can be
copied and opened anywhere (no network)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from memora_core.report.frames import FrameSheet, find_videos, video_duration
from memora_core.report.memory_view import MemoryView, read_memory
from memora_core.report.plots import plot_compression, plot_decision_profile
from memora_core.report.render import environment, render_page
from memora_core.report.tasks_view import read_plans, task_views

ASSETS = "report_files"  # thumbnails and plots, beside report.html
SPREAD_FRAMES = 4  # frames per demonstration when memory has no segments of it


def _plots(memory: MemoryView, out: Path, page_dir: Path) -> list[dict[str, str]]:
    s = memory.stats
    decisions = plot_decision_profile(s.decisions, out / "decision_profile.png",
                                      f"Editor decisions ({sum(s.decisions.values())} in all)")
    compression = plot_compression(
        {memory.participant: {"segments": s.segments, "entity observations": s.entity_observations,
                              "entities retained": s.entities, "activities": s.activities}},
        {memory.participant: s.compression_ratio}, out / "compression.png")
    return [{"src": p.relative_to(page_dir).as_posix(), "alt": alt}
            for p, alt in ((decisions, "decision profile: Add / Update / Delete / Noop"),
                           (compression, "compression: observations per retained entity"))]


def _spread(videos: dict[str, Path], ids: list[str], sheet: FrameSheet) -> dict[str, list[Any]]:
    """Evenly spaced frames of each demonstration memory has no segments of."""
    out = {}
    for vid in ids:
        if vid in videos:
            d = video_duration(videos[vid])
            out[vid] = [sheet.want(vid, d * (k + 0.5) / SPREAD_FRAMES) for k in range(SPREAD_FRAMES)]
    return out


def write_demo_report(run_dir: Path, summary: dict[str, Any]) -> Path:
    run_dir = run_dir.resolve()
    assets = run_dir / ASSETS
    videos = find_videos(run_dir / "demos")
    sheet = FrameSheet(videos, assets, run_dir)
    memory = read_memory(run_dir / "memory", summary.get("participant", "P01"), sheet)
    tasks = task_views(summary, read_plans(run_dir / "plans.json"), run_dir / "execution" / "frames", run_dir, sheet)
    demo_ids = list(summary.get("demonstrations") or videos)
    spread = _spread(videos, [v for v in demo_ids if not (memory and v in memory.videos)], sheet)
    sheet.extract()
    video = run_dir / "execution" / "execution.mp4"
    return render_page(
        environment(), "demo.html", run_dir / "report.html", title="memora kitchen demo", summary=summary,
        tasks=tasks, memory=memory, plots=_plots(memory, assets, run_dir) if memory else [],
        demo_ids=demo_ids, spread=spread, recording=summary.get("recording") or {},
        execution_video=video.relative_to(run_dir).as_posix() if video.exists() else None,
        n_ok=sum(bool(t.get("success")) for t in summary.get("tasks", [])))
