"""What both runners share: settings, resumable per-item save points, memory preparation, agents."""
from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, Field

from memora_bench.config import BenchConfig
from memora_bench.data import BenchData, norm_pid
from memora_bench.runners.memory import ParticipantMemory, form_memory, store_config

log = logging.getLogger(__name__)


class RunSettings(BaseModel):
    participants: list[str]
    conditions: list[str]
    out: Path
    agent: str = "structured"  # planner / answerer kind
    vectors_backend: str = "none"
    embedding_backend: str | None = "hashing"
    editor_embedder: str | None = "hashing"
    limit: int | None = Field(default=None, ge=1)  # items per participant and split (smoke runs, tests)
    progress: bool = True

    @property
    def mode(self) -> str:
        return "cpu-structured" if self.agent == "structured" else "llm"


def resolve_conditions(spec: str | list[str] | None, known: tuple[str, ...]) -> list[str]:
    if spec is None or spec == "all" or spec == ["all"]:
        return list(known)
    items = spec.split(",") if isinstance(spec, str) else spec
    out = [c.strip() for c in items if c.strip()]
    unknown = [c for c in out if c not in known]
    if unknown:
        raise ValueError(f"unknown condition(s) {', '.join(unknown)}; expected {', '.join(known)} or all")
    return out


def resolve_participants(spec: str | list[str] | None, data: BenchData, default: list[str]) -> list[str]:
    if spec in (None, [], ""):
        return [norm_pid(p) for p in default]
    if spec == "all" or spec == ["all"]:
        return data.participants()
    items = spec.split(",") if isinstance(spec, str) else spec
    return [norm_pid(p) for p in items if p.strip()]


class Checkpoint:
    """One JSON line per finished item: a killed run restarts where it stopped, and never redoes work."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)

    def load(self) -> dict[str, dict]:
        done: dict[str, dict] = {}
        if not self.path.exists():
            return done
        for line in self.path.read_text().splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:  # a line cut by a crash: that item is simply redone
                continue
            done[row["item_id"]] = row
        return done

    def append(self, row: dict) -> None:
        with self.path.open("a") as fh:
            fh.write(json.dumps(row, default=str) + "\n")
            fh.flush()


def prepare_memories(data: BenchData, settings: RunSettings, cfg: BenchConfig) -> dict[str, ParticipantMemory]:
    mem_cfg = store_config(None, settings.vectors_backend, settings.embedding_backend)
    out = {}
    for pid in settings.participants:
        t0 = time.perf_counter()
        out[pid] = form_memory(data, pid, settings.out / "memory" / pid, config=mem_cfg,
                               editor_embedder=settings.editor_embedder, progress=settings.progress)
        log.info("memory for %s ready in %.1fs", pid, time.perf_counter() - t0)
    return out


def make_llm_if_needed(agent: str) -> Any:
    if agent == "structured":
        return None
    from memora_core.llm import load_llm_config, make_llm

    llm = make_llm(load_llm_config())
    if llm is None:
        raise ValueError(f"agent {agent!r} needs an LLM backend; robot_configs/llm.yaml has backend: none")
    return llm


def agent_factory(kind: str, role: str) -> Callable[..., Any]:
    """memora_core.agents.make_planner / make_answerer (imported late so metrics work without them); the
    structured agents are built directly where the core has no factory."""
    from memora_core import agents

    factory = getattr(agents, "make_planner" if role == "planner" else "make_answerer", None)
    if factory is not None:
        return factory
    if kind != "structured":
        raise ImportError(f"memora_core.agents has no {role} factory for {kind!r}")
    from memora_core.agents import structured

    cls = structured.StructuredPlanner if role == "planner" else structured.StructuredAnswerer
    return lambda _kind, memory, llm=None: cls(memory)


def write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, default=str))
    tmp.replace(path)  # atomic: a crash never leaves half a results file


def finish_run(results: dict[str, Any], memories: dict[str, ParticipantMemory], started: float,
               settings: RunSettings, write_report: Callable[[dict[str, Any], Path], None]) -> dict[str, Any]:
    """Common end of a benchmark run: memory stats, wall time, results.json, then the report; the memory
    stores are closed (their writer locks freed for a resumed or later run in the same process)."""
    try:
        results["memory"] = {pid: m.stats() for pid, m in memories.items()}
        results["wall_s"] = round(time.perf_counter() - started, 1)
        write_json(settings.out / "results.json", results)
        write_report(results, settings.out)
    finally:
        for m in memories.values():
            m.store.close()
    return results
