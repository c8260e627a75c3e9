"""Run a set of processes as one unit: prefixed output, signal forwarding, crash reporting, clean shutdown.

Used by `memora launch` and `make demo` to start the ROS node graph on machines without `ros2 launch`.
- SIGINT / SIGTERM to the supervisor are forwarded (as SIGINT, then SIGTERM, then SIGKILL after grace
  periods) to every child's process group; the supervisor exits 128+signal.
- What a process's exit means (a crash, a driver that is done, done with failed tasks) is decided by
  memora_core.runtime.verdict.judge_exit, the rule the ROS 2 launch file applies too; the first verdict
  shuts the graph down and gives the exit code.
- Each process's time from the stop signal to its exit is reported (`stop_s`): every node must stop well
  within the SIGINT grace period.
"""
from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

from pydantic import BaseModel, Field

from memora_core.runtime.config import SupervisorConfig
from memora_core.runtime.graph import ProcessSpec
from memora_core.runtime.verdict import (EXIT_COMPLETED_WITH_FAILURES, OUTCOME_PREFIX, Verdict, interrupted,
                                         judge_exit)

__all__ = ["EXIT_COMPLETED_WITH_FAILURES", "OUTCOME_PREFIX", "ProcessOutcome", "Supervisor", "SupervisorReport"]
log = logging.getLogger(__name__)


class ProcessOutcome(BaseModel):
    name: str
    pid: int
    returncode: int | None = None
    seconds: float = 0.0
    killed: bool = False  # needed SIGKILL
    stop_s: float | None = None  # seconds from the first stop signal (SIGINT) to its exit; None: exited by itself
    outcome: str | None = None  # the last `outcome: ...` line the process printed


class SupervisorReport(BaseModel):
    exit_code: int
    reason: str
    failed: list[str] = Field(default_factory=list)
    processes: list[ProcessOutcome] = Field(default_factory=list)


class _Child:
    def __init__(self, spec: ProcessSpec, env: dict[str, str] | None, out: TextIO, log_dir: Path | None):
        self.spec = spec
        self.started = time.monotonic()
        # Own session/process group: a terminal's Ctrl-C reaches only the supervisor, which then
        # shuts the children down in order instead of all of them racing.
        self.proc = subprocess.Popen(spec.argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True, text=True, bufsize=1,
                                     errors="replace")
        self.outcome = ProcessOutcome(name=spec.name, pid=self.proc.pid)
        self.tail: list[str] = []
        self.stop_sent: float | None = None  # monotonic time of the first stop signal
        self._log = (log_dir / f"{spec.name}.log").open("w") if log_dir else None
        self._pump = threading.Thread(target=self._copy_output, args=(out,), daemon=True)
        self._pump.start()

    def _copy_output(self, out: TextIO) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.tail = (self.tail + [line.rstrip()])[-20:]
            if line.startswith(OUTCOME_PREFIX):
                self.outcome.outcome = line[len(OUTCOME_PREFIX):].strip()
            out.write(f"[{self.spec.name}] {line}")
            out.flush()
            if self._log:
                self._log.write(line)
                self._log.flush()

    def signal(self, sig: int) -> None:
        if self.proc.poll() is None:
            if self.stop_sent is None:
                self.stop_sent = time.monotonic()
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def exited(self) -> bool:
        """Poll; on the first poll that sees the exit, note how long the process took to stop."""
        if self.proc.poll() is None:
            return False
        if self.stop_sent is not None and self.outcome.stop_s is None:
            self.outcome.stop_s = round(time.monotonic() - self.stop_sent, 3)
        return True

    def finish(self) -> None:
        self._pump.join(timeout=2.0)
        self.outcome.returncode = self.proc.returncode
        self.outcome.seconds = round(time.monotonic() - self.started, 3)
        if self._log:
            self._log.close()


class Supervisor:
    def __init__(self, specs: list[ProcessSpec], config: SupervisorConfig | None = None,
                 env: dict[str, str] | None = None, out: TextIO | None = None, log_dir: Path | None = None):
        if not specs:
            raise ValueError("nothing to supervise: the graph resolved to no processes")
        self.specs = specs
        self.config = config or SupervisorConfig()
        self.env = env
        self.out = out or sys.stdout
        self.log_dir = log_dir
        self._signal: int | None = None

    def _on_signal(self, signum: int, _frame: object) -> None:
        self._signal = signum

    def run(self) -> SupervisorReport:
        if self.log_dir:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        old = {s: signal.signal(s, self._on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        children: list[_Child] = []
        try:
            for spec in self.specs:
                children.append(_Child(spec, self.env, self.out, self.log_dir))
                log.info("started %s (pid %d)", spec.name, children[-1].proc.pid)
            verdict = self._watch(children)
        finally:
            self._shutdown(children)
            for s, handler in old.items():
                signal.signal(s, handler)
        report = SupervisorReport(exit_code=verdict.exit_code, reason=verdict.reason, failed=verdict.failed,
                                  processes=[c.outcome for c in children])
        for child in children:
            if child.spec.name in verdict.failed and child.tail:
                self.out.write(f"[supervisor] last output of {child.spec.name}:\n")
                self.out.write("".join(f"    {line}\n" for line in child.tail[-10:]))
        self.out.write(f"[supervisor] {verdict.reason}\n")
        self.out.flush()
        return report

    def _watch(self, children: list[_Child]) -> Verdict:
        while True:
            if self._signal is not None:
                return interrupted(self._signal)
            running = 0
            for child in children:
                rc = child.proc.poll()
                if rc is None:
                    running += 1
                    continue
                if child.outcome.returncode is not None:
                    continue  # already handled
                child.finish()
                verdict = judge_exit(child.spec.name, rc, required=child.spec.required,
                                     ends_graph=child.spec.ends_graph, outcome=child.outcome.outcome)
                if verdict is not None:
                    return verdict
                log.warning("optional node %s exited with %d; the graph keeps running", child.spec.name, rc)
            if running == 0:
                return Verdict(exit_code=0, reason="all nodes finished")
            time.sleep(self.config.poll_s)

    def _shutdown(self, children: list[_Child]) -> None:
        steps = [(signal.SIGINT, self.config.sigint_grace_s), (signal.SIGTERM, self.config.sigterm_grace_s)]
        for sig, grace in steps:
            alive = [c for c in children if c.proc.poll() is None]
            if not alive:
                break
            for child in alive:
                child.signal(sig)
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and not all([c.exited() for c in alive]):
                time.sleep(0.02)
        for child in children:
            if not child.exited():
                child.signal(signal.SIGKILL)
                child.proc.wait()
                child.outcome.killed = True
            if child.outcome.returncode is None:
                child.finish()
