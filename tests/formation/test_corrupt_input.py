"""Bad input: damaged videos keep every segment before the damage and say where; bad CSVs are refused."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from memora_core.config import SegmentingConfig
from memora_core.ingest.narration import REQUIRED_COLUMNS, NarrationFormatError, load_narrations
from memora_core.ingest.video import VideoDecodeError, VideoReport, iter_video_segments
from tests.formation.conftest import make_video

SIZE = (128, 96)


@pytest.mark.parametrize("suffix", [".webm", ".mkv"])
def test_truncated_video_keeps_segments_before_damage(tmp_path, suffix):
    good = make_video(tmp_path / f"good{suffix}", seconds=35.0, fps=10, size=SIZE)
    data = good.read_bytes()
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(data[: int(len(data) * 0.6)])
    full = list(iter_video_segments(good, "P99", SegmentingConfig()))
    report = VideoReport(str(cut))
    kept = list(iter_video_segments(cut, "P99", SegmentingConfig(), report=report))
    assert not report.ok
    assert report.failed_at_s is not None and 10.0 < report.failed_at_s < 35.0
    assert report.failed_segment_index == int(report.failed_at_s // 10)
    # every segment wholly before the damage survives, identical to the undamaged file's
    assert [s.segment.index for s in kept] == list(range(report.failed_segment_index))
    for a, b in zip(kept, full):
        assert (a.segment.start_s, a.segment.end_s, a.segment.frame_times_s) == \
            (b.segment.start_s, b.segment.end_s, b.segment.frame_times_s)
        assert len(a.frames) == len(b.frames) == 20
    assert f"damaged at {report.failed_at_s:.2f}s" in report.describe()


def test_corrupt_middle_is_reported_where(tmp_path):
    good = make_video(tmp_path / "clip.mp4", seconds=35.0, fps=10, size=SIZE)
    data = bytearray(good.read_bytes())
    mid = len(data) // 2
    data[mid:mid + 4000] = bytes(4000)
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(data))
    report = VideoReport(str(bad))
    kept = list(iter_video_segments(bad, "P99", SegmentingConfig(), report=report))
    assert not report.ok and report.error
    assert [s.segment.index for s in kept] == list(range(report.failed_segment_index))
    assert kept, "the segments before the damage must be kept"


def test_unopenable_file_raises_naming_it(tmp_path):
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"\x00not a video" * 100)
    with pytest.raises(VideoDecodeError, match="junk.mp4"):
        list(iter_video_segments(junk, "P99", SegmentingConfig()))


def test_cli_writes_damaged_video_up_to_damage(tmp_path):
    """`memora write --video` on a truncated file: exit 3, the damage on stderr, the good segments stored."""
    good = make_video(tmp_path / "kitchen.mkv", seconds=35.0, fps=10, size=SIZE)
    data = good.read_bytes()
    cut = tmp_path / "kitchen_cut.mkv"
    cut.write_bytes(data[: int(len(data) * 0.6)])
    pcfg = tmp_path / "perception.yaml"
    # a real perception backend that needs no server: the stub's absence would be a VLM test, not this one
    pcfg.write_text("backend: blank\nplugins: {blank: tests.formation.blank_perception}\n")
    store = tmp_path / "store"
    proc = subprocess.run([sys.executable, "-m", "memora_core.cli.main", "write", "--participant", "P99",
                           "--video", str(cut), "--store", str(store), "--perception-config", str(pcfg),
                           "--vectors", "none", "--embedding", "hashing", "--quiet", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "damaged at" in proc.stderr and "segment 2" in proc.stderr
    out = json.loads(proc.stdout)
    assert out["processed"] == 2
    stats = subprocess.run([sys.executable, "-m", "memora_core.cli.main", "stats", "--store", str(store),
                            "--participant", "P99", "--json"], capture_output=True, text=True, timeout=60)
    assert json.loads(stats.stdout)["segments"] == 2


def _write_csv(path, columns, shared_data):
    src = shared_data / "epic100" / "EPIC_100_extension_narrations_P06_P28.csv"
    lines = src.read_text().splitlines()[:20]
    header = lines[0].split(",")
    keep = [header.index(c) for c in columns]
    import csv
    import io

    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        for r in rows:
            w.writerow([r[i] for i in keep])
    return path


def test_csv_missing_columns_refused_by_name(tmp_path, shared_data):
    cols = [c for c in REQUIRED_COLUMNS if c not in ("all_nouns", "stop_timestamp")]
    bad = _write_csv(tmp_path / "bad.csv", cols, shared_data)
    with pytest.raises(NarrationFormatError, match="missing columns: stop_timestamp, all_nouns"):
        load_narrations(bad)
    proc = subprocess.run([sys.executable, "-m", "memora_core.cli.main", "write", "--participant", "P06",
                           "--narrations", str(bad), "--store", str(tmp_path / "s"), "--vectors", "none", "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2  # bad input (memora write --help lists the exit codes)
    assert "stop_timestamp" in proc.stderr and "all_nouns" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_csv_bad_value_names_the_line(tmp_path, shared_data):
    src = shared_data / "epic100" / "EPIC_100_extension_narrations_P06_P28.csv"
    lines = src.read_text().splitlines()[:5]
    cells = lines[3].split(",")
    cells[4] = "xx:00:01.00"  # start_timestamp
    lines[3] = ",".join(cells)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(NarrationFormatError, match=r"bad.csv:4"):
        load_narrations(bad)


def test_shared_data_untouched(shared_data):
    assert shutil.disk_usage(shared_data)  # read-only mount still there; nothing above wrote to it
