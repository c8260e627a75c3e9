"""`memora write` on bad input (issue 17): one line on stderr naming what is wrong (file:line: column for a
CSV row), a non-zero exit that says what kind of failure it was, no traceback, and a store exactly as it was.

Each case runs the real CLI (`main()` in process, or a subprocess where a process boundary matters) against
a real store that already holds a first write, and compares every table before and after.
"""
from __future__ import annotations

import csv
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from memora_core.cli.main import main
from memora_core.errors import ExitCode
from tests.formation.conftest import make_video

PID = "P06"
GOOD_ROWS = 5        # P06_101_0..4: segment 0 of P06_101, written before each bad run
BAD_AT = 8           # P06_101_8 (file line 10, 20.3 s): segment 2, after a segment the old code committed
BASE = ["--vectors", "none", "--embedding", "hashing", "--quiet"]


def _rows(shared_data: Path, n: int) -> tuple[list[str], list[list[str]]]:
    with (shared_data / "epic100" / "EPIC_100_extension_narrations_P06_P28.csv").open(newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:n + 1]


def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows([header, *rows])
    return path


def dump(store: Path) -> dict[str, list[tuple]]:
    """Every row of every table (read-only connection: looking must not change anything)."""
    conn = sqlite3.connect(f"file:{store / 'memory.sqlite'}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: sorted(conn.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in tables}
    finally:
        conn.close()


def run_cli(capsys, *args: str) -> tuple[int, str]:
    code = main(["write", "--participant", PID, *args, *BASE])
    return code, capsys.readouterr().err


def assert_one_line(code: int, err: str, expected: ExitCode, *names: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == expected, err
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("memora write: error: "), err
    for name in names:  # what the user must be told: file:line, column, path
        assert name in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def written(tmp_path_factory, shared_data) -> tuple[Path, dict]:
    """A store holding segment 0 of P06_101, and its contents."""
    root = tmp_path_factory.mktemp("bad_input")
    header, rows = _rows(shared_data, GOOD_ROWS)
    good = _write_csv(root / "good.csv", header, rows)
    store = root / "store"
    assert main(["write", "--participant", PID, "--narrations", str(good), "--store", str(store), *BASE]) == 0
    before = dump(store)
    assert len(before["segments"]) == 1
    return store, before


BAD_VALUES = [
    # (column, value, column named in the message)
    ("start_timestamp", "99999999:00:00.00", "start_timestamp"),   # was: unbounded allocation (5.4 GB in 40 s)
    ("start_timestamp", "00:00:nan", "start_timestamp"),           # was: OverflowError traceback
    ("stop_timestamp", "00:00:inf", "stop_timestamp"),
    ("start_timestamp", "-00:00:20.32", "start_timestamp"),        # was: accepted silently
    ("stop_timestamp", "00:00:19.00", "stop_timestamp"),           # stop before start: was accepted silently
    ("stop_timestamp", "05:00:00.00", "stop_timestamp"),           # past the end of P06_101 (1859 s)
    ("verb", "", "verb"),                                          # was: pydantic traceback after a commit
    ("narration", "  ", "narration"),
    ("narration", "x" * 10_000_000, "CSV"),                        # was: raw _csv.Error
    ("narration", "x" * 5000, "narration"),                        # under csv's limit, over ours
    ("verb_class", "three", "verb_class"),
    ("all_nouns", "['drawer', '']", "all_nouns"),
    ("all_noun_classes", "[1e999]", "all_noun_classes"),
    ("video_id", "", "video_id"),
]


@pytest.mark.parametrize("column,value,named", BAD_VALUES, ids=[f"{c}={v[:20]!r}" for c, v, _ in BAD_VALUES])
def test_bad_narration_row_is_refused_before_anything_is_written(capsys, tmp_path, shared_data, written,
                                                                 column, value, named):
    store, before = written
    header, rows = _rows(shared_data, 12)
    rows[BAD_AT][header.index(column)] = value
    bad = _write_csv(tmp_path / "bad.csv", header, rows)
    code, err = run_cli(capsys, "--narrations", str(bad), "--store", str(store))
    line = assert_one_line(code, err, ExitCode.BAD_INPUT, named)
    if named != "CSV":
        assert f"bad.csv:{BAD_AT + 2}:" in line  # file and line (header is line 1)
    assert dump(store) == before  # nothing committed, not even the segments before the bad row


def test_absurd_timestamp_stays_bounded_in_a_real_process(tmp_path, shared_data, written):
    """The 99999999 h timestamp used to grow without bound; now the process ends quickly (timeout = fail)."""
    store, before = written
    header, rows = _rows(shared_data, 12)
    rows[BAD_AT][header.index("start_timestamp")] = "99999999:00:00.00"
    bad = _write_csv(tmp_path / "bad.csv", header, rows)
    proc = subprocess.run([sys.executable, "-m", "memora_core.cli.main", "write", "--participant", PID,
                           "--narrations", str(bad), "--store", str(store), *BASE],
                          capture_output=True, text=True, timeout=60)
    assert_one_line(proc.returncode, proc.stderr, ExitCode.BAD_INPUT, "bad.csv:10:", "start_timestamp")
    assert dump(store) == before


def test_bad_video_info_is_refused(capsys, tmp_path, shared_data, written, monkeypatch):
    """A broken EPIC_100_video_info.csv (the durations rows are checked against) is bad input too."""
    store, before = written
    data = tmp_path / "data"
    (data / "epic100").mkdir(parents=True)
    (data / "epic100" / "EPIC_100_video_info.csv").write_text("video_id,duration,fps,resolution\nP06_101,nan,50,x\n")
    monkeypatch.setenv("MEMORA_DATA", str(data))
    header, rows = _rows(shared_data, 12)
    good = _write_csv(tmp_path / "good.csv", header, rows)
    code, err = run_cli(capsys, "--narrations", str(good), "--store", str(store))
    assert_one_line(code, err, ExitCode.BAD_INPUT, "EPIC_100_video_info.csv:2:", "duration")
    assert dump(store) == before


# ----------------------------------------------------------------------------------------------- videos
def _half_written_mp4(path: Path) -> Path:
    """An mp4 cut while being written: its index (moov, written last by default) never made it."""
    full = make_video(path.with_name("full.mp4"), seconds=12.0, fps=10, size=(64, 48))
    data = full.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


VIDEOS = {
    "empty": lambda p: (p.write_bytes(b""), p)[1],
    "half_written": _half_written_mp4,
    "not_a_video": lambda p: (p.write_bytes(b"memora" * 5000), p)[1],
    "missing": lambda p: p,
}


@pytest.mark.parametrize("kind", sorted(VIDEOS))
def test_unusable_video_is_refused_before_the_store_is_touched(capsys, tmp_path, written, kind):
    store, before = written
    video = VIDEOS[kind](tmp_path / "clip.mp4")
    pcfg = tmp_path / "perception.yaml"
    pcfg.write_text("backend: blank\nplugins: {blank: tests.formation.blank_perception}\n")
    fresh = tmp_path / "fresh_store"
    for target in (store, fresh):
        code, err = run_cli(capsys, "--video", str(video), "--store", str(target), "--perception-config", str(pcfg))
        assert_one_line(code, err, ExitCode.BAD_INPUT, "clip.mp4")
    assert dump(store) == before
    assert not fresh.exists()  # refused before a store directory was even created


# ----------------------------------------------------------------------------------------------- stores
def test_store_path_that_is_a_file(capsys, tmp_path, shared_data):
    header, rows = _rows(shared_data, GOOD_ROWS)
    good = _write_csv(tmp_path / "good.csv", header, rows)
    target = tmp_path / "notes.txt"
    target.write_text("my notes")
    code, err = run_cli(capsys, "--narrations", str(good), "--store", str(target))
    assert_one_line(code, err, ExitCode.BAD_INPUT, str(target))
    assert target.read_text() == "my notes"
    code, err = run_cli(capsys, "--narrations", str(good), "--store", str(target / "store"))  # under a file
    assert_one_line(code, err, ExitCode.BAD_INPUT, str(target / "store"))


def test_store_file_that_is_not_a_database(capsys, tmp_path, shared_data):
    header, rows = _rows(shared_data, GOOD_ROWS)
    good = _write_csv(tmp_path / "good.csv", header, rows)
    store = tmp_path / "store"
    store.mkdir()
    (store / "memory.sqlite").write_bytes(b"not sqlite at all" * 100)
    code, err = run_cli(capsys, "--narrations", str(good), "--store", str(store))
    assert_one_line(code, err, ExitCode.BAD_INPUT, str(store))
    assert (store / "memory.sqlite").read_bytes() == b"not sqlite at all" * 100


def _read_only_runner(path: Path) -> list[str]:
    """A command prefix under which `path` is read-only: chmod for a normal user; as root (which ignores
    modes) a read-only bind mount in a private user+mount namespace."""
    import os
    import shutil

    if os.geteuid() != 0:
        path.chmod(0o555)
        return []
    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare or "unshare", "-rm", "true"], capture_output=True) if unshare else None
    if probe is None or probe.returncode != 0:
        pytest.skip("running as root without user namespaces: no way to make a read-only directory")
    return [unshare, "-rm", "sh", "-c", f'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"',
            str(path)]


def test_read_only_store_is_refused_in_one_line(tmp_path, shared_data, written):
    """Was a Chroma InternalError traceback. Real read-only directory, real CLI process."""
    import shutil

    src, before = written
    store = tmp_path / "store"
    shutil.copytree(src, store)
    header, rows = _rows(shared_data, 12)
    good = _write_csv(tmp_path / "more.csv", header, rows)
    prefix = _read_only_runner(store)
    try:
        proc = subprocess.run([*prefix, sys.executable, "-m", "memora_core.cli.main", "write", "--participant", PID,
                               "--narrations", str(good), "--store", str(store), "--quiet"],
                              capture_output=True, text=True, timeout=120)
    finally:
        store.chmod(0o755)
    assert_one_line(proc.returncode, proc.stderr, ExitCode.BAD_INPUT, str(store), "not writable")
    assert dump(store) == before
