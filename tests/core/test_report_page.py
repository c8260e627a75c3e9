"""The demo's report.html (memora_core/report) on a small real run directory (tests/core/report_run.py):
frames taken at the cited times, every link relative, and in a real headless Chromium: no console errors,
every image decoded, the task table as summary.json says, the entity filter working, also once copied."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import cv2
import pytest

from memora_core.report import write_demo_report
from memora_core.report.frames import FrameSheet, find_videos
from memora_core.report.memory_view import read_memory
from memora_core.store.sqlite_store import SQLiteStore
from tests.browser import chromium, needs_chromium, open_page
from tests.core.report_run import FPS, PARTICIPANT, SECONDS, VIDEOS, build_demo_run, grey_at, write_video

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, dict]:
    run_dir = tmp_path_factory.mktemp("run") / "demo"
    summary = build_demo_run(run_dir)
    write_demo_report(run_dir, summary)
    return run_dir, summary


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.srcs: list[str] = []
        self.rows = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if tag in ("img", "video") and a.get("src"):
            self.srcs.append(a["src"])
        if tag == "tr" and "data-task" in a:
            self.rows += 1


def test_frames_come_from_the_asked_times(tmp_path):
    video = write_video(tmp_path / "v" / "clip.mp4")
    sheet = FrameSheet(find_videos(tmp_path / "v"), tmp_path / "files", tmp_path)
    asked = {t: sheet.want("clip", t) for t in (0.0, 5.0, 12.5, 17.0)}
    past_end = sheet.want("clip", SECONDS + 40.0)
    absent = sheet.want("no_such_video", 3.0)
    assert sheet.want("clip", 5.02) is asked[5.0]  # the same moment is extracted once
    assert sheet.extract() == len(asked) + 1
    for t, thumb in {**asked, SECONDS - 1 / FPS: past_end}.items():
        img = cv2.imread(str(tmp_path / thumb.src), cv2.IMREAD_GRAYSCALE)
        assert abs(float(img.mean()) - grey_at(t)) < 6, (t, img.mean())
        assert img.shape[1] <= sheet.width
    assert absent.src is None
    assert video.exists()


def test_frames_are_bounded(tmp_path):
    write_video(tmp_path / "v" / "clip.mp4")
    sheet = FrameSheet(find_videos(tmp_path / "v"), tmp_path / "files", tmp_path, limit=2)
    thumbs = [sheet.want("clip", t) for t in (1.0, 2.0, 3.0)]
    assert sheet.extract() == 2 and thumbs[2].src is None


def test_a_broken_video_loses_its_frames_not_the_page(tmp_path):
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "torn.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 4)
    write_video(tmp_path / "v" / "clip.mp4")
    sheet = FrameSheet(find_videos(tmp_path / "v"), tmp_path / "files", tmp_path)
    torn, good = sheet.want("torn", 1.0), sheet.want("clip", 1.0)
    assert sheet.extract() == 1
    assert torn.src is None and good.src is not None


def test_report_links_are_relative_and_resolve(run):
    run_dir, summary = run
    page = (run_dir / "report.html").read_text()
    links = _Links()
    links.feed(page)
    assert links.rows == len(summary["tasks"])
    assert links.srcs and all(not Path(s).is_absolute() and (run_dir / s).is_file() for s in links.srcs)
    assert "<style>" in page and "http://" not in page and "https://" not in page  # self-contained
    store = SQLiteStore(run_dir / "memory", readonly=True)
    try:
        assert page.count('class="entity') == len(store.entities(PARTICIPANT, include_deleted=True))
    finally:
        store.close()


def test_entity_timelines_keep_every_observation_and_fold_noops(run, tmp_path):
    run_dir, _ = run
    sheet = FrameSheet(find_videos(run_dir / "demos"), tmp_path / "files", tmp_path)
    memory = read_memory(run_dir / "memory", PARTICIPANT, sheet)
    assert memory is not None and memory.entities
    for e in memory.entities:
        ops = [item.op for item in e.timeline]
        assert sum(len(item.rows) for item in e.timeline) == len(e.history) == e.record.observation_count
        assert all(not (a == b == "noop") for a, b in zip(ops, ops[1:])), ops
        assert ops[0] == "add"
    assert any(len(item.rows) > 1 for e in memory.entities for item in e.timeline)  # the store has noops
    # every history row is shown by the frame the memory writer saw mid-segment
    assert all(h.thumb.video_id == h.obs.video_id for e in memory.entities for h in e.history)


@needs_chromium
def test_report_page_in_chromium(run, tmp_path):
    run_dir, summary = run
    # Only the page and what it links: the copy must work without the store or the demonstrations.
    copy = tmp_path / "copied"
    copy.mkdir()
    shutil.copy(run_dir / "report.html", copy)
    for sub in ("report_files", "execution"):
        shutil.copytree(run_dir / sub, copy / sub)
    saved = json.loads((run_dir / "summary.json").read_text())
    with chromium() as driver:
        check = open_page(driver, copy / "report.html")
        assert check.errors == []
        assert check.broken_images == []
        srcs = [i["src"] for i in check.images]
        n_frames = len(list((run_dir / "execution" / "frames").glob("*.png")))
        assert sum(s.startswith("execution/frames/") for s in srcs) == n_frames  # a key frame per step run
        assert {"report_files/decision_profile.png", "report_files/compression.png"} <= set(srcs)
        assert sum(s.startswith("report_files/P01_drink_") for s in srcs) >= len(VIDEOS)
        rows = driver.execute_script("""return Array.from(document.querySelectorAll('#task-table tbody tr'))
          .map(r => ({instruction: r.querySelector('.instruction').firstChild.textContent.trim(),
                      success: r.querySelector('.success').dataset.success === 'true',
                      chosen: r.querySelector('.chosen').textContent.trim(),
                      expected: r.querySelector('.expected').textContent.trim()}));""")
        assert rows == [{"instruction": t["instruction"], "success": bool(t["success"]),
                         "chosen": ", ".join(t.get("chosen_objects") or []),
                         "expected": ", ".join(t["expected_objects"])} for t in saved["tasks"]]
        assert [r["success"] for r in rows] == [True, True, False]
        failed = driver.execute_script("return document.querySelectorAll('.run.failed').length")
        assert failed == sum(len(t["events"]) for t in summary["tasks"]) == 1
        box = driver.find_element("id", "entity-filter")
        box.send_keys("fanta")
        shown = driver.execute_script("""return Array.from(document.querySelectorAll('#entities details.entity'))
          .filter(d => d.style.display !== 'none').map(d => d.dataset.name);""")
        assert shown == ["fanta can"]
        assert [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"] == []


def test_report_cli_rewrites_and_rejects_bad_input(run, tmp_path):
    run_dir, _ = run
    ok = subprocess.run([sys.executable, "-m", "memora_core.report", str(run_dir)], capture_output=True, text=True,
                        cwd=REPO, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert Path(ok.stdout.strip()) == run_dir.resolve() / "report.html"
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = subprocess.run([sys.executable, "-m", "memora_core.report", str(empty)], capture_output=True,
                             text=True, cwd=REPO, timeout=60)
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    (empty / "summary.json").write_text('{"tasks": [\n oops')
    broken = subprocess.run([sys.executable, "-m", "memora_core.report", str(empty)], capture_output=True,
                            text=True, cwd=REPO, timeout=60)
    assert broken.returncode == 2 and broken.stderr.startswith(f"{empty / 'summary.json'}:2:")
    assert not (empty / "report.html").exists()
