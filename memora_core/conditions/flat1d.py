"""Flat-1D memory (Socratic-models style): one chronological text log with keyword search.

raw: one line per stored perception record (segments.observation_json), append-only, as perceived.
processed: one line per Activity Memory record plus one line per current Entity Memory record (after
the online editor). Tools: search_memory (BM25 keywords), read_log (a video's lines in a time range).
"""
from __future__ import annotations

from typing import Any

from memora_core.conditions.base import ConditionMemory
from memora_core.schemas import Evidence
from memora_core.store.sqlite_store import SQLiteStore
from memora_core.tools.registry import ReadLogArgs, SearchMemoryArgs, ToolResult
from memora_core.tools.text import BM25


def _line(video: str, t0: float, t1: float, text: str, kind: str = "log") -> dict[str, Any]:
    return {"video_id": video, "start_s": round(t0, 2), "end_s": round(max(t0, t1), 2), "text": text, "kind": kind}


def raw_lines(store: SQLiteStore, pid: str) -> list[dict[str, Any]]:
    out = []
    for obs in store.segment_observations(pid):
        seg = obs.segment
        acts = "; ".join(a.text or " ".join([a.verb, *a.nouns]) for a in obs.actions)
        seen = ", ".join(o.name + (f" ({o.colour})" if o.colour else "") for o in obs.objects)
        text = acts or obs.summary
        if seen:
            text += f" | seen: {seen}"
        out.append(_line(seg.video_id, seg.start_s, seg.end_s, text))
    return out


def processed_lines(store: SQLiteStore, pid: str) -> list[dict[str, Any]]:
    out = [_line(a.video_id, a.start_s, a.end_s, a.summary) for a in store.activities(pid)]
    for e in store.entities(pid):
        out.append(_line(e.last_seen_video, e.last_seen_s, e.last_seen_s,
                         "object " + e.describe().split(" ", 1)[1], kind="entity"))
    return out


class Flat1DMemory(ConditionMemory):
    family = "flat1d"

    def __init__(self, condition_id: str, participant_id: str, lines: list[dict[str, Any]]) -> None:
        self.lines = lines
        self._index = BM25([ln["text"] for ln in lines])
        super().__init__(condition_id, participant_id,
                         {"search_memory": self.search_memory, "read_log": self.read_log})

    @staticmethod
    def _render(lines: list[dict[str, Any]]) -> str:
        return "\n".join(f"[{ln['video_id']} {ln['start_s']:.0f}-{ln['end_s']:.0f}s] {ln['text']}" for ln in lines)

    @staticmethod
    def _evidence(lines: list[dict[str, Any]]) -> list[Evidence]:
        return [Evidence(video_id=ln["video_id"], start_s=ln["start_s"], end_s=ln["end_s"]) for ln in lines]

    def search_memory(self, args: SearchMemoryArgs) -> ToolResult:
        cands = [i for i, ln in enumerate(self.lines) if args.video_id is None or ln["video_id"] == args.video_id]
        hits = [{**self.lines[i], "line": i, "score": round(s, 4)}
                for i, s in self._index.top(args.query, args.top_k, candidates=cands)]
        return ToolResult(tool="search_memory", text=self._render(hits) or "no matching memory", items=hits,
                          evidence=self._evidence(hits), store="flat_text")

    def read_log(self, args: ReadLogArgs) -> ToolResult:
        hits = [{**ln, "line": i} for i, ln in enumerate(self.lines)
                if ln["video_id"] == args.video_id and ln["kind"] == "log"
                and ln["end_s"] >= args.start_s and ln["start_s"] <= args.end_s][:40]
        return ToolResult(tool="read_log", text=self._render(hits) or "nothing logged there", items=hits,
                          evidence=self._evidence(hits), store="flat_text")

    def stats(self) -> dict[str, Any]:
        return {**super().stats(), "lines": len(self.lines)}

    def export(self) -> dict[str, Any]:
        return {**self.stats(), "log": self.lines}
