"""What a node's exit means for the graph: one rule shared by the supervisor (`memora launch`, `make demo`) and
the ROS 2 launch file (`ros2 launch memora demo_kitchen.launch.py`), so both end the graph the same way.

- A process marked `ends_graph` that exits 0 (a driver that is done) ends the graph with exit 0.
- A process marked `ends_graph` that exits EXIT_COMPLETED_WITH_FAILURES finished its job with failures to
  report (the demo driver with failed tasks): not a crash, the graph ends with that code.
- A required process that exits otherwise (non-zero: a crash; zero: it should not end on its own) is a
  failure: the graph ends with exit 1 and the process is named in `failed`.
- An optional process that exits leaves the graph running (no verdict).
"""
from __future__ import annotations

import signal

from pydantic import BaseModel, Field

# The exit code and output line by which a graph-ending process says "done, and here is what failed". Not 1:
# that is what an uncaught exception (and memora's run_node on a node failure) exits with.
EXIT_COMPLETED_WITH_FAILURES = 3
OUTCOME_PREFIX = "outcome: "


class Verdict(BaseModel):
    exit_code: int
    reason: str
    failed: list[str] = Field(default_factory=list)


class GraphFailed(RuntimeError):
    """The graph ended with a non-zero verdict. Raised into ROS 2 launch, whose run loop turns an exception
    into a non-zero return code of `ros2 launch` (a Shutdown event alone ends with 0)."""

    def __init__(self, verdict: Verdict):
        super().__init__(f"memora graph failed (exit {verdict.exit_code}): {verdict.reason}")
        self.verdict = verdict


def interrupted(signum: int) -> Verdict:
    return Verdict(exit_code=128 + signum, reason=f"received {signal.Signals(signum).name}: shut down all nodes")


def judge_exit(name: str, returncode: int, *, required: bool, ends_graph: bool,
               outcome: str | None = None) -> Verdict | None:
    """The verdict on process `name` exiting with `returncode` (negative: killed by that signal) while the graph
    runs; None when the graph keeps running. `outcome` is the process's last `outcome: ...` line, if any."""
    how = f"was killed by {signal.Signals(-returncode).name}" if returncode < 0 else f"exited with code {returncode}"
    if returncode == 0 and ends_graph:
        return Verdict(exit_code=0, reason=f"{name} finished{f' ({outcome})' if outcome else ''}: shut down the graph")
    if returncode == EXIT_COMPLETED_WITH_FAILURES and ends_graph:
        what = outcome or f"{name} finished with failures"
        return Verdict(exit_code=returncode, reason=f"{what} ({name} {how}): shut down the graph")
    if required:
        what = "crashed" if returncode != 0 else "stopped unexpectedly"
        return Verdict(exit_code=1, reason=f"node {name} {what} ({how}): shut down the graph", failed=[name])
    return None
