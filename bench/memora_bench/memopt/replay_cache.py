"""The action-replay cache behind the retrievability reward.

Built at each epoch start: the current writer's memory (one entry per training segment) is indexed, the frozen
reader answers every training question, and its search / fetch actions (query vector, clipped interval, budget)
are kept with the entries' vectors. A candidate is then scored without new reader reasoning: only its own entry
is replaced and the cached actions replayed (`returns`).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from memora_bench.memlife.index import MemLifeIndex
from memora_bench.memlife.types import EntryKey, Interval, MemoryEntry, ReaderTrace


class CachedAction(BaseModel):
    kind: str = Field(description="search or fetch_memory")
    query_vec: list[float] | None = Field(default=None, description="L2-normalised query embedding (search)")
    interval: Interval | None = Field(default=None, description="time constraint, already clipped")
    budget: int = Field(ge=0, description="how many entries the reader asked for")


class QuestionReplay(BaseModel):
    question_id: str
    evidence: list[EntryKey] = Field(description="training segments that hold the question's evidence")
    actions: list[CachedAction]


class ReplayCache(BaseModel):
    entries: list[MemoryEntry]
    vectors: list[list[float]] = Field(description="row i: L2-normalised embedding of entries[i]")
    questions: list[QuestionReplay]

    @classmethod
    def build(cls, index: MemLifeIndex, traces: list[ReaderTrace],
              evidence: dict[str, list[EntryKey]]) -> "ReplayCache":
        questions = []
        for tr in traces:
            acts = []
            for a in tr.actions:
                if a.kind == "search" and a.query is not None:
                    acts.append(CachedAction(kind="search", query_vec=index.embed([a.query])[0].tolist(),
                                             interval=a.interval, budget=a.budget))
                elif a.kind == "fetch_memory" and a.interval is not None:
                    acts.append(CachedAction(kind="fetch_memory", interval=a.interval, budget=a.budget))
            questions.append(QuestionReplay(question_id=tr.question_id,
                                            evidence=[tuple(k) for k in evidence.get(tr.question_id, [])],
                                            actions=acts))
        vecs = index.embed([e.text for e in index.entries]) if index.entries else np.zeros((0, 1))
        return cls(entries=list(index.entries), vectors=vecs.tolist(), questions=questions)

    # ---------------------------------------------------------------- replay
    def questions_of(self, key: EntryKey) -> list[QuestionReplay]:
        return [q for q in self.questions if tuple(key) in {tuple(k) for k in q.evidence}]

    def _matrix(self) -> np.ndarray:
        if not hasattr(self, "_m"):
            object.__setattr__(self, "_m", np.asarray(self.vectors, dtype=np.float32))
        return self._m  # type: ignore[attr-defined]

    def returns(self, action: CachedAction, key: EntryKey, interval: Interval, cand_vec: np.ndarray) -> bool:
        """Would `action` return the candidate (vector `cand_vec`) standing in for entry `key` at `interval`?"""
        inside = action.interval is None or action.interval.contains(interval)
        if action.kind == "fetch_memory":
            return action.interval is not None and inside
        if not inside or action.query_vec is None or action.budget <= 0:
            return False
        q = np.asarray(action.query_vec, dtype=np.float32)
        mine = float(np.dot(cand_vec, q))
        scores = self._matrix() @ q if self.entries else np.zeros(0)
        rank = 0  # entries ahead of the candidate: higher score, or equal score and earlier (the index's order)
        for e, s in zip(self.entries, scores):
            if e.key == tuple(key):
                continue
            if action.interval is not None and not action.interval.contains(e.interval):
                continue
            if s > mine or (s == mine and e.t_start < interval.start):
                rank += 1
                if rank >= action.budget:
                    return False
        return True

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(self.model_dump_json())
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> "ReplayCache":
        return cls.model_validate(json.loads(path.read_text()))
