"""Typed failures that end a command, and the exit code each one means.

The CLI branches on these classes (never on message text): a `MemoraError` reaching the top level is
printed as one line and the process exits with the class's `exit_code`.
"""
from __future__ import annotations

from enum import IntEnum
from typing import ClassVar


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1          # anything else that went wrong
    BAD_INPUT = 2      # usage, an input file or row, a video, a store path: nothing was written
    DAMAGED = 3        # a damaged video was written up to the damage
    STORE_LOCKED = 4   # another process is writing the store
    INTERRUPTED = 130


class MemoraError(Exception):
    """Base of the failures a command reports as one line with `exit_code`."""

    exit_code: ClassVar[ExitCode] = ExitCode.ERROR


class BadInputError(MemoraError, ValueError):
    """The user's input (a file, a row, a path) cannot be used; refused before anything is written."""

    exit_code: ClassVar[ExitCode] = ExitCode.BAD_INPUT
