"""EAM-QA across conditions: each question is asked against its own participant's memory only."""
from __future__ import annotations

import logging
import time
from typing import Any

from tqdm import tqdm

from memora_bench.config import BenchConfig
from memora_bench.data import BenchData, QaItem
from memora_bench.metrics.eamqa import (
    LETTERS, AnswerRecord, conditional_diagnostic, decision_profile, parse_letter, summarize, video_ids_in,
)
from memora_bench.runners.common import (
    Checkpoint, RunSettings, agent_factory, finish_run, make_llm_if_needed, prepare_memories,
)

log = logging.getLogger(__name__)


def _letter(result: Any, item: QaItem) -> str | None:
    """The answerer's letter if it is a clean A–E, else whatever the raw text commits to (None: wrong)."""
    letter = getattr(result, "letter", None)
    if isinstance(letter, str) and letter.strip().upper() in LETTERS and len(letter.strip()) == 1:
        return letter.strip().upper()
    return parse_letter(str(getattr(result, "raw", "") or ""), item.choices)


def _retrieved(result: Any) -> set[str]:
    got = video_ids_in(getattr(result, "retrieved_evidence", None) or [])
    for call in getattr(result, "tool_calls", None) or []:
        if isinstance(call, dict):
            got |= video_ids_in(call.get("evidence") or [])
    return got


def answer_item(answerer: Any, item: QaItem) -> AnswerRecord:
    try:
        result = answerer.answer(item.prompt(), dict(zip(LETTERS, item.choices)))
        predicted, retrieved, calls, error = _letter(result, item), _retrieved(result), \
            len(getattr(result, "tool_calls", None) or []), None
    except Exception as exc:  # noqa: BLE001 - one failing item must not end a long run; it scores as wrong
        log.warning("answerer failed on %s: %s", item.qid, exc)
        predicted, retrieved, calls, error = None, set(), 0, f"{type(exc).__name__}: {exc}"
    return AnswerRecord(qid=item.qid, participant_id=item.participant_id, qa_type=item.qa_type, gold=item.answer,
                        unanswerable=item.unanswerable, predicted=predicted, evidence_videos=item.video_ids,
                        retrieved_videos=sorted(retrieved), n_tool_calls=calls, error=error)


def run_eam_qa(data: BenchData, settings: RunSettings, cfg: BenchConfig) -> dict[str, Any]:
    t0 = time.perf_counter()
    from memora_core.conditions import build_condition

    llm = make_llm_if_needed(settings.agent)
    make_answerer = agent_factory(settings.agent, "answerer")
    memories = prepare_memories(data, settings, cfg)
    records: dict[str, list[AnswerRecord]] = {c: [] for c in settings.conditions}
    for pid in settings.participants:
        qa = data.eam_qa(pid)
        items = [q for q in qa.items if cfg.run.eam_qa.include_controls or not q.unanswerable]
        if settings.limit:
            items = items[:settings.limit]
        for cid in settings.conditions:
            cp = Checkpoint(settings.out / "items" / f"eam_qa_{cid}_{pid}.jsonl")
            done = cp.load()
            answerer = make_answerer(settings.agent, build_condition(cid, memories[pid].store, pid), llm=llm)
            for item in tqdm(items, desc=f"eam-qa {pid} {cid}", unit="q", disable=not settings.progress):
                if item.qid in done:
                    records[cid].append(AnswerRecord.model_validate(done[item.qid]["record"]))
                    continue
                rec = answer_item(answerer, item)
                cp.append({"item_id": item.qid, "record": rec.model_dump()})
                records[cid].append(rec)
    from memora_bench.runners.report import write_eam_qa_report

    return finish_run(summarize_run(records, settings), memories, t0, settings, write_eam_qa_report)


def summarize_run(records: dict[str, list[AnswerRecord]], settings: RunSettings) -> dict[str, Any]:
    conditions: dict[str, Any] = {}
    per_participant: dict[str, dict[str, Any]] = {}
    for cid, recs in records.items():
        block = summarize(recs)
        block["decision_profile"] = decision_profile(recs)
        if "parametric" in records and cid != "parametric":
            block["diagnostic"] = conditional_diagnostic(records["parametric"], recs)
        conditions[cid] = block
        for pid in sorted({r.participant_id for r in recs}):
            per_participant.setdefault(pid, {})[cid] = summarize([r for r in recs if r.participant_id == pid])
    return {"benchmark": "eam_qa", "mode": settings.mode, "agent": settings.agent,
            "participants": settings.participants, "conditions": conditions, "per_participant": per_participant,
            "notes": {"accuracy": "pooled over all questions of all participants; accuracy_macro: mean of "
                                  "per-participant accuracies",
                      "evidence_recall": "answerable questions with at least one evidence video among the "
                                         "videos the agent retrieved (evidence_recall_all: all of them)",
                      "unparseable": "an answer without a clear letter counts as wrong, never as E"}}
