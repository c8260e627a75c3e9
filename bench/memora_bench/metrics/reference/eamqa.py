"""EAM-QA as the reference scores it (yuzihaowashu/MEMORA @ 9c80048).

- Answer letter (`src/memora/evaluation/eam_qa/answers.py`: `extract_multiple_choice_answer`): the first
  "Answer:" (any case, optional ** around) followed by a letter A-E (any case) and then ")", whitespace or
  "*"; else the first capital A-E directly followed by ")" at a word start; else the first capital A-E that
  stands as a word; else no letter ("", which is wrong).
- Correct: the parsed letter equals the gold letter (`eam_qa/runner.py`: `_run_one_eval`).
- Accuracy, overall and per type, counts every question of the group, the E-correct controls included
  (`_run_one_eval`: `overall_accuracy`, `per_type_accuracy`, `per_type_e_rate`).
- Filtered subset (`scripts/paper_results/eam_qa_metrics.py`: `compute_filtered_results`): per participant,
  the questions the no-memory condition got wrong and the full-MEMORA condition committed to A-D on;
  accuracy pooled over participants on that subset. Our `parametric` is their `no_memory`, our `memora`
  their `memora_full`.
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, Iterable

from pydantic import BaseModel

_ANSWER_TAG = re.compile(r"\*?\*?answer:\s*\*?\*?\s*([a-e])[)\s*]", re.IGNORECASE)
_LETTER_PAREN = re.compile(r"\b([A-E])\)")
_LETTER_WORD = re.compile(r"\b([A-E])\b")
MAX_RESPONSE_CHARS = 20_000  # responses are cut before parsing: linear time on untrusted text
NO_MEMORY, FULL_MEMORY = "parametric", "memora"


def parse_answer(response: str | None) -> str:
    """The reference's answer letter ("" when none)."""
    text = (response or "")[:MAX_RESPONSE_CHARS]
    for pattern in (_ANSWER_TAG, _LETTER_PAREN, _LETTER_WORD):
        m = pattern.search(text)
        if m:
            return m.group(1).upper()
    return ""


class RefAnswer(BaseModel):
    qid: str
    participant_id: str
    qa_type: str
    gold: str
    predicted: str  # "" when the response names no letter

    @property
    def correct(self) -> bool:
        return self.predicted == self.gold.strip().upper()

    @property
    def committed(self) -> bool:
        return self.predicted in ("A", "B", "C", "D")


def ref_answer(*, qid: str, participant_id: str, qa_type: str, gold: str, response: str | None) -> RefAnswer:
    return RefAnswer(qid=qid, participant_id=participant_id, qa_type=qa_type, gold=gold,
                     predicted=parse_answer(response))


def _share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def summarize(answers: list[RefAnswer]) -> dict[str, Any]:
    """Overall and per-type accuracy and E-rate over every question (controls included)."""
    by_type: dict[str, list[RefAnswer]] = defaultdict(list)
    for a in answers:
        by_type[a.qa_type].append(a)
    return {
        "n": len(answers),
        "accuracy": _share([a.correct for a in answers]),
        "e_rate": _share([a.predicted == "E" for a in answers]),
        "per_type_accuracy": {t: _share([a.correct for a in rs]) for t, rs in sorted(by_type.items())},
        "per_type_e_rate": {t: _share([a.predicted == "E" for a in rs]) for t, rs in sorted(by_type.items())},
        "per_type_n": {t: len(rs) for t, rs in sorted(by_type.items())},
    }


def filtered_subset(by_condition: dict[str, Iterable[RefAnswer]]) -> dict[str, dict[str, Any]]:
    """{condition: correct, total, accuracy} on the paper's filtered subset, pooled over participants;
    {} when either anchor condition is missing."""
    maps = {c: {(a.participant_id, a.qid): a for a in rs} for c, rs in by_condition.items()}
    if NO_MEMORY not in maps or FULL_MEMORY not in maps:
        return {}
    none, full = maps[NO_MEMORY], maps[FULL_MEMORY]
    eligible = {k for k in none.keys() & full.keys() if not none[k].correct and full[k].committed}
    out: dict[str, dict[str, Any]] = {}
    for c, m in maps.items():
        keys = [k for k in eligible if k in m]
        if keys:
            k_ok = sum(m[k].correct for k in keys)
            out[c] = {"correct": k_ok, "total": len(keys), "accuracy": k_ok / len(keys)}
    return out
