"""MEMORA-Bench's report.html (bench/memora_bench/runners/report.py + templates/bench.html on the shared
memora_core base) from a real EAM-QA run on the synthetic participant, in a real headless Chromium: no
console errors, every plot decoded, every table as its CSV file says."""
from __future__ import annotations

import csv
from pathlib import Path

from memora_bench.config import BenchConfig
from memora_bench.data import BenchData
from memora_bench.runners.common import RunSettings
from memora_bench.runners.eam_qa import run_eam_qa
from memora_core.report.render import TEMPLATES
from tests.browser import chromium, needs_chromium, open_page


def _run(compact_root: Path, out: Path) -> Path:
    run_eam_qa(BenchData(compact_root), RunSettings(participants=["PX1"], conditions=["parametric"],
                                                    out=out, progress=False), BenchConfig())
    return out / "report.html"


def test_bench_report_uses_the_shared_base(compact_root, tmp_path):
    page = _run(compact_root, tmp_path / "qa").read_text()
    css = (TEMPLATES / "report.css").read_text()
    assert css.strip() in page  # one stylesheet for the demo and the bench reports, inlined
    assert "http://" not in page and "https://" not in page
    for img in ("compression.png", "editor_decisions.png", "eam_qa_decision_profile.png"):
        assert f'src="{img}"' in page and (tmp_path / "qa" / img).stat().st_size > 0


@needs_chromium
def test_bench_report_page_in_chromium(compact_root, tmp_path):
    out = tmp_path / "qa"
    page = _run(compact_root, out)
    with chromium() as driver:
        check = open_page(driver, page)
        assert check.errors == []
        assert check.broken_images == []
        assert len(check.images) == len(list(out.glob("*.png")))
        tables = driver.execute_script("""return Array.from(document.querySelectorAll('table.bench-table'))
          .map(t => ({name: t.dataset.table, rows: Array.from(t.querySelectorAll('tr'))
            .map(r => Array.from(r.children).map(c => c.textContent.trim()))}));""")
    csvs = sorted(out.glob("*.csv"))
    assert len(tables) == len(csvs) > 0
    shown = {tuple(map(tuple, t["rows"])) for t in tables}
    for path in csvs:
        with path.open() as fh:
            assert tuple(tuple(r) for r in csv.reader(fh)) in shown, path.name
