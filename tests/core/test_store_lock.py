"""One writer per store, enforced (issue 17): a second writer is refused with StoreLockedError naming the
holder's pid and host (exit 4 from `memora write`), readers never wait for the lock, and a writer that
dies - even by kill -9 - leaves the store free. Real processes, real SQLite, real flock."""
from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memora_core.cli.main import main
from memora_core.errors import ExitCode
from memora_core.store import MemoryStore, SQLiteStore, StoreLockedError
from memora_core.store.lock import LOCK_FILENAME, StoreLock, read_holder
from tests.factories import segment_write

PID = "P06"
NARRATIONS = "epic100/EPIC_100_extension_narrations_P06_P28.csv"
CLI_BASE = ["--vectors", "none", "--embedding", "hashing", "--quiet", "--json"]


# ------------------------------------------------------------------------------------------ in one process
def test_second_writer_is_refused_naming_the_holder(tmp_path, sqlite_only_config):
    root = tmp_path / "mem"
    first = MemoryStore.open_writer(root, sqlite_only_config)
    first.commit_segment(segment_write(PID, "P06_101", 0, 0, ["cup"]))
    with pytest.raises(StoreLockedError) as refused:
        MemoryStore.open(root, sqlite_only_config)  # the default open (the ROS writer node's path) is a writer
    assert (refused.value.pid, refused.value.host) == (os.getpid(), socket.gethostname())
    assert refused.value.exit_code == ExitCode.STORE_LOCKED
    with pytest.raises(StoreLockedError):
        SQLiteStore(root)
    first.commit_segment(segment_write(PID, "P06_101", 1, 1, ["pan"]))  # the holder is unaffected
    first.close()
    again = MemoryStore.open_writer(root, sqlite_only_config)  # released on close
    assert again.stats(PID).segments == 2
    again.close()


def test_readers_need_no_lock_while_a_writer_runs(tmp_path, sqlite_only_config, capsys):
    root = tmp_path / "mem"
    writer = MemoryStore.open_writer(root, sqlite_only_config)
    writer.commit_segment(segment_write(PID, "P06_101", 0, 0, ["cup"]))
    reader = MemoryStore.open_reader(root, sqlite_only_config)
    assert reader.readonly and not reader.holds_writer_lock and writer.holds_writer_lock
    assert reader.stats(PID).entities == 1
    writer.commit_segment(segment_write(PID, "P06_101", 1, 1, ["pan"]))
    assert reader.stats(PID).segments == 2  # reads the writer's commits as they land
    assert main(["stats", "--store", str(root), "--participant", PID, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["segments"] == 2
    reader.close()
    writer.close()
    reader2 = SQLiteStore(root, readonly=True)  # a reader open does not keep a writer out either
    MemoryStore.open_writer(root, sqlite_only_config).close()
    reader2.close()


def test_cli_write_refused_while_store_is_written(tmp_path, sqlite_only_config, shared_data, capsys):
    """Also for another participant: was 'two participants at once on one Chroma path both succeed'."""
    root = tmp_path / "mem"
    holder = MemoryStore.open_writer(root, sqlite_only_config)
    holder.commit_segment(segment_write(PID, "P06_101", 0, 0, ["cup"]))
    code = main(["write", "--participant", "P28", "--narrations", str(shared_data / NARRATIONS), "--store", str(root),
                 *CLI_BASE])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == ExitCode.STORE_LOCKED and len(lines) == 1 and "Traceback" not in err, err
    assert f"pid {os.getpid()}" in lines[0] and socket.gethostname() in lines[0]
    assert holder.stats(PID).segments == 1
    holder.close()


def test_failed_or_dropped_writer_frees_the_store(tmp_path, sqlite_only_config):
    root = tmp_path / "mem"
    MemoryStore.open_writer(root, sqlite_only_config).close()
    conn = sqlite3.connect(root / "memory.sqlite")
    conn.execute("PRAGMA user_version = 999")  # a newer schema: the open fails after taking the lock
    conn.close()
    with pytest.raises(RuntimeError):
        MemoryStore.open_writer(root, sqlite_only_config)
    StoreLock.acquire(root).release()  # the failed open let go of it

    other = tmp_path / "other"
    dropped = MemoryStore.open_writer(other, sqlite_only_config)
    dropped.cycle = dropped  # never closed, and unreachable only once the cycle collector runs
    del dropped
    MemoryStore.open_writer(other, sqlite_only_config).close()  # a writer of this process nobody holds


# ------------------------------------------------------------------------------------------ real processes
def _cli_writer(root: Path, shared_data: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "memora_core.cli.main", "write", "--participant", PID,
                             "--narrations", str(shared_data / NARRATIONS), "--store", str(root), *CLI_BASE],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_until_locked_by(root: Path, proc: subprocess.Popen, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while read_holder(root)[0] != proc.pid:
        assert proc.poll() is None, f"writer ended before it was seen holding the lock: {proc.communicate()}"
        assert time.monotonic() < deadline, "writer never took the lock"
        time.sleep(0.005)


def _finish(proc: subprocess.Popen) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=180)
    return proc.returncode, out, err


def _assert_complete(root: Path, shared_data: Path, written: dict) -> None:
    """The first writer's memory is whole: every segment committed once, and a rerun finds nothing to do."""
    conn = sqlite3.connect(f"file:{root / 'memory.sqlite'}?mode=ro", uri=True)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    segments, seqs = conn.execute("SELECT COUNT(*), COUNT(DISTINCT seq) FROM segments").fetchone()
    conn.close()
    assert segments == seqs == written["processed"] + written["skipped"] > 400
    code, out, err = _finish(_cli_writer(root, shared_data))
    assert code == 0, err
    assert json.loads(out)["processed"] == 0


def _assert_refused_by(err: str, holder_pid: int) -> None:
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert f"pid {holder_pid}" in lines[0] and socket.gethostname() in lines[0], lines[0]


def test_two_writers_started_together(tmp_path, shared_data):
    """Was: one died with `sqlite3.OperationalError: table segments already exists` (racing migrations)."""
    root = tmp_path / "mem"
    a, b = _cli_writer(root, shared_data), _cli_writer(root, shared_data)
    results = {p.pid: _finish(p) for p in (a, b)}
    codes = sorted(code for code, _, _ in results.values())
    assert codes == [ExitCode.OK, ExitCode.STORE_LOCKED], results
    (winner, (_, out, _)), = [(pid, r) for pid, r in results.items() if r[0] == 0]
    (_, _, err), = [r for r in results.values() if r[0] == ExitCode.STORE_LOCKED]
    _assert_refused_by(err, winner)
    _assert_complete(root, shared_data, json.loads(out))


def test_staggered_second_writer_refused_first_intact(tmp_path, shared_data):
    """Was: `IntegrityError: UNIQUE constraint failed` once both wrote."""
    root = tmp_path / "mem"
    first = _cli_writer(root, shared_data)
    _wait_until_locked_by(root, first)
    # Paused while it holds the lock (the flock stays held): on a quiet machine the first writer could finish
    # before the second had even started, which is not the case this test is about.
    os.kill(first.pid, signal.SIGSTOP)
    try:
        code2, _, err2 = _finish(_cli_writer(root, shared_data))
    finally:
        os.kill(first.pid, signal.SIGCONT)
    code1, out1, err1 = _finish(first)
    assert code2 == ExitCode.STORE_LOCKED, err2
    _assert_refused_by(err2, first.pid)
    assert code1 == 0, err1
    _assert_complete(root, shared_data, json.loads(out1))


def test_killed_writer_leaves_the_store_free(tmp_path, shared_data):
    root = tmp_path / "mem"
    first = _cli_writer(root, shared_data)
    _wait_until_locked_by(root, first)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    assert read_holder(root)[0] == first.pid  # its record is still there, stale: it is the flock that counts
    StoreLock.acquire(root).release()         # ... and the kernel released that with the process
    code, out, err = _finish(_cli_writer(root, shared_data))  # the next writer resumes where it died
    assert code == 0, err
    _assert_complete(root, shared_data, json.loads(out))
    assert (root / LOCK_FILENAME).read_bytes() == b""  # a clean close leaves no holder named
