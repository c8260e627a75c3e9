"""Why a store cannot be opened for writing: the directory is unusable, or another writer holds it."""
from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from memora_core.errors import BadInputError, ExitCode, MemoraError


class StorePathError(BadInputError):
    """The store path cannot hold a writable store (a file, a read-only or unwritable directory,
    a file that is not a memora SQLite store)."""

    def __init__(self, root: Path | str, problem: str) -> None:
        self.root = Path(root)
        self.problem = problem
        super().__init__(f"store {self.root}: {problem}")


class StoreLockedError(MemoraError):
    """Another writer holds the store's lock; `pid`/`host` name it when it recorded itself."""

    exit_code: ClassVar[ExitCode] = ExitCode.STORE_LOCKED

    def __init__(self, root: Path | str, pid: int | None, host: str | None) -> None:
        self.root = Path(root)
        self.pid = pid
        self.host = host
        holder = f"pid {pid} on host {host}" if pid is not None else "a process that has not named itself yet"
        super().__init__(f"store {self.root} is being written by {holder}; one writer per store "
                         "(readers such as plan/ask/stats need no lock)")
