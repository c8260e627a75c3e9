"""HTML reports rendered from Jinja2 templates (templates/: one shared base page and stylesheet): the kitchen
demo's report.html (`write_demo_report`, memora_core/report/demo_page.py) and the pieces MEMORA-Bench's report
uses (render, plots). Nothing heavy is imported until a report is written."""
from __future__ import annotations

from pathlib import Path
from typing import Any


def write_demo_report(run_dir: Path, summary: dict[str, Any]) -> Path:
    from memora_core.report.demo_page import write_demo_report as write  # matplotlib, jinja2, PyAV

    return write(run_dir, summary)
