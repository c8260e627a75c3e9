"""Run a set of processes as one unit: prefixed output, signal forwarding, crash reporting, clean shutdown.

Used by `memora launch` to start the ROS node graph on machines without `ros2 launch`. Semantics:
- SIGINT / SIGTERM to the supervisor are forwarded (as SIGINT, then SIGTERM, then SIGKILL after grace
  periods) to every child's process group; the supervisor exits 128+signal.
- A required process that exits (non-zero: a crash; zero: it should not end on its own) is reported by
  name, everything else is shut down, and the supervisor exits 1.
- A process marked `ends_graph` that exits 0 (e.g. a demo driver) shuts the graph down with exit 0.
- A process marked `ends_graph` that exits EXIT_COMPLETED_WITH_FAILURES finished its job with failures to
  report (the demo driver with failed tasks): not a crash. The graph shuts down and the supervisor exits
  with that code, reporting the process's outcome line (`outcome: demo finished: 1/2 tasks failed`).
  An exception (exit 1) or a signal is still reported as a crash.
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

log = logging.getLogger(__name__)

# The exit code and output line by which a graph-ending process says "done, and here is what failed". Not 1:
# that is what an uncaught exception (and memora's run_node on a node failure) exits with.
EXIT_COMPLETED_WITH_FAILURES = 3
OUTCOME_PREFIX = "outcome: "


class ProcessOutcome(BaseModel):
    name: str
    pid: int
    returncode: int | None = None
    seconds: float = 0.0
    killed: bool = False  # needed SIGKILL
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
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass

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
            code, reason, failed = self._watch(children)
        finally:
            self._shutdown(children)
            for s, handler in old.items():
                signal.signal(s, handler)
        report = SupervisorReport(exit_code=code, reason=reason, failed=failed,
                                  processes=[c.outcome for c in children])
        for child in children:
            if child.spec.name in failed and child.tail:
                self.out.write(f"[supervisor] last output of {child.spec.name}:\n")
                self.out.write("".join(f"    {line}\n" for line in child.tail[-10:]))
        self.out.write(f"[supervisor] {reason}\n")
        self.out.flush()
        return report

    def _watch(self, children: list[_Child]) -> tuple[int, str, list[str]]:
        while True:
            if self._signal is not None:
                name = signal.Signals(self._signal).name
                return 128 + self._signal, f"received {name}: shut down all nodes", []
            running = 0
            for child in children:
                rc = child.proc.poll()
                if rc is None:
                    running += 1
                    continue
                if child.outcome.returncode is not None:
                    continue  # already handled
                child.finish()
                verdict = self._verdict(child, rc)
                if verdict is not None:
                    return verdict
            if running == 0:
                return 0, "all nodes finished", []
            time.sleep(self.config.poll_s)

    @staticmethod
    def _verdict(child: _Child, rc: int) -> tuple[int, str, list[str]] | None:
        name = child.spec.name
        how = f"was killed by {signal.Signals(-rc).name}" if rc < 0 else f"exited with code {rc}"
        said = child.outcome.outcome
        if rc == 0 and child.spec.ends_graph:
            return 0, f"{name} finished{f' ({said})' if said else ''}: shut down the graph", []
        if rc == EXIT_COMPLETED_WITH_FAILURES and child.spec.ends_graph:
            what = said or f"{name} finished with failures"
            return rc, f"{what} ({name} {how}): shut down the graph", []
        if child.spec.required:
            what = "crashed" if rc != 0 else "stopped unexpectedly"
            return 1, f"node {name} {what} ({how}): shut down the graph", [name]
        log.warning("optional node %s %s; the graph keeps running", name, how)
        return None

    def _shutdown(self, children: list[_Child]) -> None:
        steps = [(signal.SIGINT, self.config.sigint_grace_s), (signal.SIGTERM, self.config.sigterm_grace_s)]
        for sig, grace in steps:
            alive = [c for c in children if c.proc.poll() is None]
            if not alive:
                break
            for child in alive:
                child.signal(sig)
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and any(c.proc.poll() is None for c in alive):
                time.sleep(0.05)
        for child in children:
            if child.proc.poll() is None:
                child.signal(signal.SIGKILL)
                child.proc.wait()
                child.outcome.killed = True
            if child.outcome.returncode is None:
                child.finish()
