"""Samples of a running node graph: RSS of every node process (from /proc), the store's size on disk and
how much video the store holds (its segments table, read with a query-only SQLite connection)."""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path

DB_FILENAME = "memory.sqlite"


def child_pids(parent: int) -> list[int]:
    """Direct children of `parent` (from /proc/<pid>/stat)."""
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # exited meanwhile
        # the command name (field 2) may hold spaces and parentheses: ppid is the 2nd field after the last ')'
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
            out.append(int(entry.name))
    return out


def node_name(pid: int) -> str | None:
    """The ROS node name of a node process (its `-r __node:=NAME` remapping), or None."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    for arg in argv:
        if arg.startswith(b"__node:="):
            return arg[len(b"__node:="):].decode()
    return None


def rss_bytes(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def dir_bytes(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass  # a file removed while walking (Chroma / SQLite temporaries)
    return total


def store_video(store_dir: Path) -> tuple[int, float]:
    """(segments, seconds of video) committed in the store; (0, 0.0) before the store exists."""
    db = store_dir / DB_FILENAME
    if not db.exists():
        return 0, 0.0
    con = sqlite3.connect(db, timeout=10.0)
    try:
        con.execute("PRAGMA query_only = 1")
        n, secs = con.execute("SELECT COUNT(*), COALESCE(SUM(end_s - start_s), 0) FROM segments").fetchone()
        return int(n), float(secs)
    finally:
        con.close()


class Sampler:
    """Every `period_s`: one JSON line {wall, segments, video_s, store_bytes, rss: {node: bytes}} on `out`."""

    def __init__(self, supervisor_pid: int, store_dir: Path, out: Path, period_s: float) -> None:
        self.supervisor_pid, self.store_dir, self.out, self.period_s = supervisor_pid, store_dir, out, period_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.last: dict | None = None

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30.0)

    def sample(self) -> dict:
        rss = {}
        for pid in child_pids(self.supervisor_pid):
            name, value = node_name(pid), rss_bytes(pid)
            if name and value is not None:
                rss[name] = value
        segments, video_s = store_video(self.store_dir)
        return {"wall": time.time(), "segments": segments, "video_s": video_s,
                "store_bytes": dir_bytes(self.store_dir) if self.store_dir.exists() else 0, "rss": rss}

    def _run(self) -> None:
        with self.out.open("a", buffering=1) as fh:
            while not self._stop.is_set():
                self.last = self.sample()
                fh.write(json.dumps(self.last) + "\n")
                self._stop.wait(self.period_s)
