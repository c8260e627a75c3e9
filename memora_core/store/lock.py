"""One writer per store, enforced: an exclusive `flock` on `<store>/writer.lock`.

The writer takes the lock before it touches SQLite or Chroma and holds it for its life; the kernel
releases it when the file is closed, so a writer that dies (even by kill -9) frees the store. The file
records the holder's pid and host, which a refused writer reports. The lock file is never deleted
(deleting it would let two writers lock two different files). Readers never take it.

flock is per open file, so a second writer in the same process is refused too. It does not work
across machines on network filesystems; stores shared between machines go through `chroma_http`.
"""
from __future__ import annotations

import fcntl
import gc
import json
import os
import socket
import time
import weakref
from pathlib import Path

from memora_core.store.errors import StoreLockedError, StorePathError

LOCK_FILENAME = "writer.lock"
_HOLDER_MAX_BYTES = 4096


def prepare_writable_dir(root: Path) -> None:
    """Make sure `root` is (or can become) a directory this process can write, or say why not."""
    if root.exists() and not root.is_dir():
        raise StorePathError(root, "is a file, not a store directory")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorePathError(root, f"cannot create the store directory: {exc.strerror or exc}") from exc
    if not os.access(root, os.W_OK | os.X_OK):
        raise StorePathError(root, "the store directory is not writable (read-only or no permission)")


class StoreLock:
    """The held writer lock of one store directory; `release()` (or process death) frees it."""

    def __init__(self, root: Path, fd: int) -> None:
        self.root = root
        self.path = root / LOCK_FILENAME
        self._fd: int | None = fd
        # a writer dropped without close() (e.g. a test's store object) frees the store when collected
        self._finalizer = weakref.finalize(self, os.close, fd)

    @classmethod
    def acquire(cls, root: Path | str) -> "StoreLock":
        """Take the lock without waiting; StoreLockedError names the holder, StorePathError a bad path."""
        root = Path(root)
        prepare_writable_dir(root)
        try:
            fd = os.open(root / LOCK_FILENAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StorePathError(root, f"cannot create the writer lock: {exc.strerror or exc}") from exc
        try:
            _flock_or_collect(fd)
        except BlockingIOError:
            pid, host = _holder(fd)
            os.close(fd)
            raise StoreLockedError(root, pid, host) from None
        except OSError as exc:
            os.close(fd)
            raise StorePathError(root, f"cannot lock the store: {exc.strerror or exc}") from exc
        record = json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                             "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}).encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, record + b"\n", 0)
        return cls(root, fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Free the store for the next writer (idempotent)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        self._finalizer.detach()
        try:
            os.ftruncate(fd, 0)  # no stale holder named once the store is free
        finally:
            os.close(fd)  # closing the only descriptor of this open file drops the flock


def _flock_or_collect(fd: int) -> None:
    """flock, non-blocking. If this very process holds the lock through a writer nothing references any
    more (dropped without close(), waiting in a reference cycle), collecting it releases the lock: retry
    once after a collection. A writer that is still reachable keeps the lock."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        if _parse_holder(os.pread(fd, _HOLDER_MAX_BYTES, 0))[0] != os.getpid():
            raise
        gc.collect()
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def read_holder(root: Path | str) -> tuple[int | None, str | None]:
    """(pid, host) recorded by the current or last writer of `root`; (None, None) if none is recorded."""
    try:
        fd = os.open(Path(root) / LOCK_FILENAME, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None, None
    try:
        return _parse_holder(os.pread(fd, _HOLDER_MAX_BYTES, 0))
    finally:
        os.close(fd)


def _holder(fd: int, wait_s: float = 0.5) -> tuple[int | None, str | None]:
    """The holder's record; it writes it just after locking, so give it a moment to appear."""
    deadline = time.monotonic() + wait_s
    while True:
        pid, host = _parse_holder(os.pread(fd, _HOLDER_MAX_BYTES, 0))
        if pid is not None or time.monotonic() >= deadline:
            return pid, host
        time.sleep(0.02)


def _parse_holder(data: bytes) -> tuple[int | None, str | None]:
    try:
        rec = json.loads(data.decode("utf-8", errors="replace") or "null")
    except ValueError:
        return None, None
    if not isinstance(rec, dict):
        return None, None
    pid, host = rec.get("pid"), rec.get("host")
    return (pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
            host if isinstance(host, str) else None)
