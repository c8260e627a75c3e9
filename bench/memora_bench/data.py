"""Loaders for MEMORA-Bench items (the compact shared files and the original release layout) and EPIC narrations.

Compact layout (../shared/data):      memora_bench/eam_qa_pXX.json, memora_bench/planning_pXX.json, epic100/*.csv
Original release (src/memora_bench):  eam_qa/questions/pXX.json, planning/suites/{replay,generalize}/pXX.json
Both are read into the same pydantic models; any participant whose files exist can be evaluated.
"""
from __future__ import annotations

import ast
import csv
import json
import logging
import re
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

log = logging.getLogger(__name__)
LETTERS = "ABCDE"
_MASKED = re.compile(r"\?")
DEFAULT_OPTION_E = "The information is not available based on the given context"


def to_seconds(stamp: str | float | int) -> float:
    """'HH:MM:SS.ff' (or plain seconds) → seconds."""
    if isinstance(stamp, (int, float)):
        return float(stamp)
    parts = str(stamp).strip().split(":")
    total = 0.0
    for p in parts:
        total = total * 60 + float(p)
    return total


def norm_pid(pid: str) -> str:
    """p06, P06, 06, 6 → P06."""
    p = pid.strip().upper()
    p = p[1:] if p.startswith("P") else p
    return f"P{int(p):02d}" if p.isdigit() else f"P{p}"


class QaItem(BaseModel):
    qid: str
    participant_id: str
    question: str  # stem, without the suffix
    suffix: str = ""
    choices: list[str] = Field(min_length=5, max_length=5)  # A–E; E is "not available"
    answer: str
    qa_type: str
    gt: str = ""
    video_ids: list[str] = Field(default_factory=list)  # evidence videos (real ids only)
    num_videos: int | None = None
    unanswerable: bool = False
    source: str | None = None

    @field_validator("answer")
    @classmethod
    def _letter(cls, v: str) -> str:
        v = v.strip().upper()
        if v not in LETTERS:
            raise ValueError(f"answer must be one of A-E, got {v!r}")
        return v

    def prompt(self) -> str:
        return self.question + self.suffix


class QaSet(BaseModel):
    participant_id: str
    video_scope: list[str]
    option_e: str = DEFAULT_OPTION_E
    items: list[QaItem]


class RefStep(BaseModel):
    narration_id: str = ""
    narration: str
    verb: str = ""
    noun: str = ""
    start_s: float | None = None
    end_s: float | None = None


class PlanningTask(BaseModel):
    task_id: str
    participant_id: str
    split: str  # replay | generalize
    task_type: str
    query: str
    video_id: str | None = None
    steps: list[RefStep]
    primary_objects: list[str] = Field(default_factory=list)
    target_object: str | None = None
    source_object: str | None = None
    components: list[str] = Field(default_factory=list)


class PlanningSet(BaseModel):
    participant_id: str
    replay: list[PlanningTask] = Field(default_factory=list)
    generalize: list[PlanningTask] = Field(default_factory=list)


class Narration(BaseModel):
    narration_id: str
    participant_id: str
    video_id: str
    start_s: float
    end_s: float
    narration: str
    verb: str
    noun: str
    all_nouns: list[str] = Field(default_factory=list)
    verb_class: int | None = None
    noun_class: int | None = None


def _real_ids(ids: list[Any] | None) -> list[str]:
    return [str(v) for v in (ids or []) if v and not _MASKED.search(str(v))]


# ------------------------------------------------------------------ EAM-QA parsing
def _qa_compact(doc: dict) -> QaSet:
    pid = norm_pid(doc["participant_id"])
    suffix, option_e = doc.get("question_suffix", ""), doc.get("option_e", DEFAULT_OPTION_E)
    items = []
    for q in doc["questions"]:
        items.append(QaItem(
            qid=q["id"], participant_id=pid, question=q["q"], suffix=suffix, choices=[*q["choices"], option_e],
            answer=q["answer"], qa_type=q["type"], gt=str(q.get("gt", "")), video_ids=_real_ids(q.get("video_ids")),
            num_videos=q.get("num_videos"), unanswerable=bool(q.get("unanswerable", False)), source=q.get("source")))
    return QaSet(participant_id=pid, video_scope=list(doc.get("video_scope", [])), option_e=option_e, items=items)


def _split_suffix(question: str) -> tuple[str, str]:
    """The release stores stem + suffix in one string; the suffix begins at the blank line before IMPORTANT."""
    idx = question.find("\n\nIMPORTANT:")
    return (question, "") if idx < 0 else (question[:idx], question[idx:])


def _qa_original(doc: dict | list, pid_hint: str) -> QaSet:
    questions = doc["questions"] if isinstance(doc, dict) else doc
    items, scope = [], []
    option_e = DEFAULT_OPTION_E
    for q in questions:
        pid = norm_pid(q.get("participant_id") or q.get("target_participant") or pid_hint)
        stem, suffix = _split_suffix(q["question"])
        choices = list(q["choices"])
        if len(choices) == 4:
            choices.append(DEFAULT_OPTION_E)
        option_e = choices[4]
        unans = bool(q.get("is_unanswerable", False))
        if not unans:
            scope.extend(_real_ids(q.get("video_scope")))
        items.append(QaItem(
            qid=q.get("question_id") or q.get("id"), participant_id=pid, question=stem, suffix=suffix,
            choices=choices, answer=q.get("correct_answer") or q.get("answer"), qa_type=q.get("qa_type") or q["type"],
            gt=str(q.get("ground_truth", "")), video_ids=[] if unans else _real_ids(q.get("video_ids")),
            num_videos=q.get("num_videos"), unanswerable=unans, source=q.get("source_participant")))
    return QaSet(participant_id=norm_pid(pid_hint), video_scope=list(dict.fromkeys(scope)), option_e=option_e,
                 items=items)


# ------------------------------------------------------------------ planning parsing
def _step_from(raw: Any) -> RefStep:
    if isinstance(raw, str):
        return RefStep(narration=raw)
    if isinstance(raw, (list, tuple)):  # compact: [narration_id, narration, verb, noun, start, end]
        nid, narr, verb, noun, start, end = (list(raw) + [None] * 6)[:6]
        return RefStep(narration_id=str(nid or ""), narration=str(narr or ""), verb=str(verb or ""),
                       noun=str(noun or ""), start_s=to_seconds(start) if start else None,
                       end_s=to_seconds(end) if end else None)
    return RefStep(narration_id=str(raw.get("narration_id", "")), narration=str(raw.get("narration", "")),
                   verb=str(raw.get("verb", "")), noun=str(raw.get("noun", "")),
                   start_s=to_seconds(raw["start_time"]) if raw.get("start_time") else None,
                   end_s=to_seconds(raw["end_time"]) if raw.get("end_time") else None)


def _task(raw: dict, split: str, pid: str) -> PlanningTask:
    steps = raw.get("steps") if raw.get("steps") is not None else raw.get("ground_truth_steps", [])
    return PlanningTask(
        task_id=raw["task_id"], participant_id=norm_pid(raw.get("participant_id") or pid), split=split,
        task_type=raw.get("task_type", ""), query=raw["task_query"], video_id=raw.get("video_id"),
        steps=[_step_from(s) for s in steps], primary_objects=list(raw.get("primary_objects", [])),
        target_object=raw.get("target_object"), source_object=raw.get("source_object"),
        components=list(raw.get("components", [])))


# ------------------------------------------------------------------ the data root
class BenchData:
    """Finds items and narrations under a data root in either layout."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        if not self.root.exists():
            raise FileNotFoundError(f"data root {self.root} does not exist (set --data or MEMORA_DATA)")

    # -------- layout discovery
    def _bench_dirs(self) -> list[Path]:
        cands = [self.root / "memora_bench", self.root, self.root / "src" / "memora_bench"]
        return [c for c in cands if c.is_dir()]

    def _qa_path(self, pid: str) -> tuple[Path, str] | None:
        low = norm_pid(pid).lower()
        for d in self._bench_dirs():
            if (d / f"eam_qa_{low}.json").exists():
                return d / f"eam_qa_{low}.json", "compact"
            if (d / "eam_qa" / "questions" / f"{low}.json").exists():
                return d / "eam_qa" / "questions" / f"{low}.json", "original"
        return None

    def participants(self) -> list[str]:
        found: set[str] = set()
        for d in self._bench_dirs():
            for p in d.glob("eam_qa_p*.json"):
                found.add(norm_pid(p.stem.split("_")[-1]))
            for p in d.glob("planning_p*.json"):
                found.add(norm_pid(p.stem.split("_")[-1]))
            for p in (d / "eam_qa" / "questions").glob("p*.json"):
                found.add(norm_pid(p.stem))
            for p in (d / "planning" / "suites" / "replay").glob("p*.json"):
                found.add(norm_pid(p.stem))
        return sorted(found)

    def eam_qa(self, pid: str) -> QaSet:
        hit = self._qa_path(pid)
        if hit is None:
            raise FileNotFoundError(f"no EAM-QA file for {pid} under {self.root}")
        path, layout = hit
        doc = json.loads(path.read_text())
        qa = _qa_compact(doc) if layout == "compact" else _qa_original(doc, pid)
        if not qa.video_scope:
            qa.video_scope = self.videos_of(qa.participant_id)
        return qa

    def planning(self, pid: str) -> PlanningSet:
        low = norm_pid(pid).lower()
        for d in self._bench_dirs():
            compact = d / f"planning_{low}.json"
            if compact.exists():
                doc = json.loads(compact.read_text())
                return PlanningSet(participant_id=norm_pid(pid),
                                   replay=[_task(t, "replay", pid) for t in doc.get("replay", [])],
                                   generalize=[_task(t, "generalize", pid) for t in doc.get("generalize", [])])
            rp, gp = d / "planning" / "suites" / "replay" / f"{low}.json", \
                d / "planning" / "suites" / "generalize" / f"{low}.json"
            if rp.exists() or gp.exists():
                load = lambda p: json.loads(p.read_text()) if p.exists() else []  # noqa: E731
                return PlanningSet(participant_id=norm_pid(pid),
                                   replay=[_task(t, "replay", pid) for t in load(rp)],
                                   generalize=[_task(t, "generalize", pid) for t in load(gp)])
        raise FileNotFoundError(f"no planning file for {pid} under {self.root}")

    def video_scope(self, pid: str) -> list[str]:
        """The participant's videos in memory: the EAM-QA scope, else every narrated video of theirs."""
        try:
            return self.eam_qa(pid).video_scope
        except FileNotFoundError:
            return self.videos_of(pid)

    # -------- narrations
    def _narration_files(self) -> list[Path]:
        for d in (self.root / "epic100", self.root):
            if d.is_dir():
                files = sorted(p for p in d.glob("EPIC_100_*.csv") if "classes" not in p.name
                               and "video_info" not in p.name)
                if files:
                    return files
        return []

    @cached_property
    def _narrations(self) -> dict[str, list[Narration]]:
        by_pid: dict[str, dict[str, Narration]] = {}
        for path in self._narration_files():
            with path.open(newline="") as fh:
                reader = csv.DictReader(fh)
                if not reader.fieldnames or "narration_id" not in reader.fieldnames:
                    continue
                for row in reader:
                    n = _narration(row)
                    if n is not None:
                        by_pid.setdefault(n.participant_id, {})[n.narration_id] = n
        return {pid: sorted(rows.values(), key=lambda n: (n.video_id, n.start_s)) for pid, rows in by_pid.items()}

    def narrations(self, pid: str, videos: list[str] | None = None) -> list[Narration]:
        rows = self._narrations.get(norm_pid(pid), [])
        if videos is not None:
            keep = set(videos)
            rows = [n for n in rows if n.video_id in keep]
        return rows

    def videos_of(self, pid: str) -> list[str]:
        return sorted({n.video_id for n in self._narrations.get(norm_pid(pid), [])})

    def taxonomy_path(self, kind: str = "noun") -> Path | None:
        name = "EPIC_100_noun_classes_v2.csv" if kind == "noun" else "EPIC_100_verb_classes.csv"
        for d in (self.root / "epic100", self.root):
            if (d / name).exists():
                return d / name
        return None


def _narration(row: dict[str, str]) -> Narration | None:
    try:
        nouns = ast.literal_eval(row.get("all_nouns") or "[]")
    except (ValueError, SyntaxError):
        nouns = []
    try:
        return Narration(
            narration_id=row["narration_id"], participant_id=row["participant_id"], video_id=row["video_id"],
            start_s=to_seconds(row["start_timestamp"]), end_s=to_seconds(row["stop_timestamp"]),
            narration=row.get("narration", ""), verb=row.get("verb", ""), noun=row.get("noun", ""),
            all_nouns=[str(x) for x in nouns],
            verb_class=int(row["verb_class"]) if row.get("verb_class", "").isdigit() else None,
            noun_class=int(row["noun_class"]) if row.get("noun_class", "").isdigit() else None)
    except (KeyError, ValueError) as exc:
        log.warning("skipping narration row %s: %s", row.get("narration_id"), exc)
        return None
