"""EAM-QA metrics: defensive answer parsing, accuracy per type (macro and pooled), E-selection, controls,
the conditional diagnostic against Parametric, and evidence recall."""
from __future__ import annotations

import re
from collections import defaultdict
from statistics import mean
from typing import Any, Iterable

from pydantic import BaseModel, Field

QA_TYPES = ("SPref", "SHabit", "SRoutine", "ERecall")
LETTERS = "ABCDE"
_VIDEO_RE = re.compile(r"\b(P\d{2,3}_\d{2,4})\b")

# Patterns from most to least explicit. A bare capital "A" is only a letter when it stands alone or is
# marked as one ("A)", "(A)", "A.", "A:"), never when it opens prose ("A person would ...").
_EXPLICIT = re.compile(r"(?:answer|option|choice)\s*(?:is|would be|:)?\s*[:\-]?\s*\(?\**\s*([A-E])\b(?![a-z'])",
                       re.IGNORECASE)
_LEADING = re.compile(r"^\W{0,3}([A-E])\s*(?:[\)\]\.:]|\*\*|$)(?!\w)")
_PAREN = re.compile(r"\(([A-E])\)")
_ALONE = re.compile(r"^\s*\**\(?([A-E])\)?\**\s*\.?\s*$")


def parse_letter(raw: str | None, choices: list[str] | None = None) -> str | None:
    """The chosen letter A–E, or None when the text does not commit to one (which scores as wrong)."""
    if not raw:
        return None
    text = raw.strip()
    for pattern in (_ALONE, _EXPLICIT, _LEADING):
        m = pattern.search(text)
        if m:
            letter = m.group(1).upper()
            # "answer: A" is only trusted when the capital was written as a capital (an article is lower-case
            # after "answer is a ...")
            if pattern is _EXPLICIT and m.group(1) != letter:
                continue
            return letter
    parens = set(_PAREN.findall(text))
    if len(parens) == 1:
        return parens.pop()
    if choices:
        lowered = " ".join(text.lower().split())
        hits = [LETTERS[i] for i, c in enumerate(choices)
                if c and re.search(r"(?<!\w)" + re.escape(" ".join(c.lower().strip(". ").split())) + r"(?!\w)", lowered)]
        if len(hits) == 1:
            return hits[0]
    return None


def video_ids_in(retrieved: Iterable[Any]) -> set[str]:
    """Video ids in whatever the agent retrieved: Evidence models, dicts, or text that cites them."""
    out: set[str] = set()
    for item in retrieved or []:
        vid = getattr(item, "video_id", None)
        if vid is None and isinstance(item, dict):
            vid = item.get("video_id")
        if vid:
            out.add(str(vid))
        text = item if isinstance(item, str) else (item.get("text", "") if isinstance(item, dict) else "")
        out.update(_VIDEO_RE.findall(str(text)))
        seg = getattr(item, "segment_id", None) or (item.get("segment_id") if isinstance(item, dict) else None)
        if seg and "/" in str(seg):
            out.add(str(seg).split("/")[1])
    return out


class AnswerRecord(BaseModel):
    qid: str
    participant_id: str
    qa_type: str
    gold: str
    unanswerable: bool
    predicted: str | None  # None: unparseable
    evidence_videos: list[str] = Field(default_factory=list)
    retrieved_videos: list[str] = Field(default_factory=list)
    n_tool_calls: int = 0
    error: str | None = None
    response: str | None = None  # the answer text as the agent gave it (what the reference parser reads)

    @property
    def correct(self) -> bool:
        return self.predicted is not None and self.predicted == self.gold

    @property
    def chose_e(self) -> bool:
        return self.predicted == "E"

    @property
    def committed(self) -> bool:
        return self.predicted is not None and self.predicted in "ABCD"


def _acc(records: list[AnswerRecord]) -> float | None:
    return mean(r.correct for r in records) if records else None


def _macro(records: list[AnswerRecord], fn) -> float | None:
    by_pid: dict[str, list[AnswerRecord]] = defaultdict(list)
    for r in records:
        by_pid[r.participant_id].append(r)
    vals = [v for v in (fn(rs) for rs in by_pid.values()) if v is not None]
    return mean(vals) if vals else None


def evidence_hit(r: AnswerRecord, *, require_all: bool = False) -> bool:
    gold, got = set(r.evidence_videos), set(r.retrieved_videos)
    return gold <= got if require_all else bool(gold & got)


def _evidence(records: list[AnswerRecord]) -> dict[str, float | None]:
    rs = [r for r in records if not r.unanswerable and r.evidence_videos]
    if not rs:
        return {"evidence_recall": None, "evidence_recall_all": None, "evidence_video_recall": None}
    return {
        "evidence_recall": mean(evidence_hit(r) for r in rs),  # at least one evidence video retrieved
        "evidence_recall_all": mean(evidence_hit(r, require_all=True) for r in rs),
        "evidence_video_recall": mean(len(set(r.evidence_videos) & set(r.retrieved_videos))
                                      / len(set(r.evidence_videos)) for r in rs),
    }


def bucket_metrics(records: list[AnswerRecord]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "n": len(records),
        "accuracy": _acc(records),
        "accuracy_macro": _macro(records, _acc),
        "e_rate": mean(r.chose_e for r in records) if records else None,
        "unparseable_rate": mean(r.predicted is None for r in records) if records else None,
    }
    out.update(_evidence(records))
    return out


def summarize(records: list[AnswerRecord]) -> dict[str, dict[str, Any]]:
    """{type: metrics} for the four types (answerable items), `answerable`, `controls` (E-correct) and `all`."""
    answerable = [r for r in records if not r.unanswerable]
    out = {t: bucket_metrics([r for r in answerable if r.qa_type == t]) for t in QA_TYPES}
    out["answerable"] = bucket_metrics(answerable)
    out["controls"] = bucket_metrics([r for r in records if r.unanswerable])
    out["all"] = bucket_metrics(records)
    return out


def conditional_diagnostic(parametric: list[AnswerRecord], other: list[AnswerRecord]) -> dict[str, Any]:
    """On answerable questions Parametric missed: how often the condition commits to A–D, and how often
    those commitments are right."""
    missed = {r.qid for r in parametric if not r.unanswerable and not r.correct}
    rs = [r for r in other if r.qid in missed]
    committed = [r for r in rs if r.committed]
    return {
        "n_parametric_missed": len(rs),
        "commit_rate": (len(committed) / len(rs)) if rs else None,
        "commit_accuracy": _acc(committed),
        "n_committed": len(committed),
    }


def decision_profile(records: list[AnswerRecord]) -> dict[str, float]:
    """Share of answers that are correct A–D, wrong A–D, E (abstain) and unparseable."""
    n = len(records) or 1
    return {
        "correct": sum(r.correct and r.committed for r in records) / n,
        "wrong_committed": sum(r.committed and not r.correct for r in records) / n,
        "abstain_e": sum(r.chose_e for r in records) / n,
        "unparseable": sum(r.predicted is None for r in records) / n,
    }
