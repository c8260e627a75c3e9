"""EAM-QA across conditions: each question is asked against its own participant's memory only."""
from __future__ import annotations

import logging
import time
from typing import Any

from tqdm import tqdm

from memora_bench.config import BenchConfig
from memora_bench.data import BenchData, QaItem
from memora_bench.metrics import eamqa as strict
from memora_bench.metrics.eamqa import LETTERS, AnswerRecord, parse_letter, video_ids_in
from memora_bench.metrics.reference import eamqa as ref
from memora_bench.runners.common import (
    Checkpoint, RunSettings, agent_factory, finish_run, make_llm_if_needed, prepare_memories,
)

log = logging.getLogger(__name__)
METRIC_FAMILIES = {
    "reference": "headline (conditions, per_participant, filtered_subset): the reference code's rules "
                 "(yuzihaowashu/MEMORA @ 9c80048); see memora_bench.metrics.reference.eamqa",
    "strict": "ours (strict, per_participant_strict): defensive letter parsing, per-type accuracy over "
              "answerable questions, controls apart; see memora_bench.metrics.eamqa"}


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


def _response(result: Any, agent: str) -> str:
    """The answer text as the agent gave it: an LLM agent's final reply; the structured answerer's answer is
    its letter (its `raw` is a score trace, not an answer)."""
    if agent == "structured":
        return str(getattr(result, "letter", None) or "")
    return str(getattr(result, "raw", "") or "")[:ref.MAX_RESPONSE_CHARS]


def answer_item(answerer: Any, item: QaItem, agent: str = "structured") -> AnswerRecord:
    try:
        result = answerer.answer(item.prompt(), dict(zip(LETTERS, item.choices)))
        predicted, retrieved, calls, error = _letter(result, item), _retrieved(result), \
            len(getattr(result, "tool_calls", None) or []), None
        response = _response(result, agent)
    except Exception as exc:  # noqa: BLE001 - one failing item must not end a long run; it scores as wrong
        log.warning("answerer failed on %s: %s", item.qid, exc)
        predicted, retrieved, calls, error, response = None, set(), 0, f"{type(exc).__name__}: {exc}", ""
    return AnswerRecord(qid=item.qid, participant_id=item.participant_id, qa_type=item.qa_type, gold=item.answer,
                        unanswerable=item.unanswerable, predicted=predicted, evidence_videos=item.video_ids,
                        retrieved_videos=sorted(retrieved), n_tool_calls=calls, error=error, response=response)


def reference_answer(rec: AnswerRecord) -> ref.RefAnswer:
    return ref.ref_answer(qid=rec.qid, participant_id=rec.participant_id, qa_type=rec.qa_type, gold=rec.gold,
                          response=rec.response)


def run_eam_qa(data: BenchData, settings: RunSettings, cfg: BenchConfig,
               memlife_cfg: Any = None) -> dict[str, Any]:
    """`memlife` in settings.conditions adds MemLife (memora_bench.memlife; `memlife_cfg` or memlife.yaml)."""
    t0 = time.perf_counter()
    from memora_core.conditions import build_condition

    from memora_bench.memlife import condition as memlife

    core = [c for c in settings.conditions if c != memlife.CONDITION_ID]
    llm = make_llm_if_needed(settings.agent) if core else None
    make_answerer = agent_factory(settings.agent, "answerer")
    memories = prepare_memories(data, settings, cfg) if core else {}
    if memlife.CONDITION_ID in settings.conditions:
        memlife_cfg = memlife_cfg or memlife.load_memlife_config()
        memlife_llm, memlife_blocks = memlife.make_memlife_llm(memlife_cfg), {}
    records: dict[str, list[AnswerRecord]] = {c: [] for c in settings.conditions}
    for pid in settings.participants:
        qa = data.eam_qa(pid)
        items = [q for q in qa.items if cfg.run.eam_qa.include_controls or not q.unanswerable]
        if settings.limit:
            items = items[:settings.limit]
        if memlife.CONDITION_ID in settings.conditions:
            recs, memlife_blocks[pid] = memlife.run_memlife(data, pid, items, settings.out, cfg=memlife_cfg,
                                                            llm=memlife_llm, progress=settings.progress)
            records[memlife.CONDITION_ID] += recs
        for cid in core:
            cp = Checkpoint(settings.out / "items" / f"eam_qa_{cid}_{pid}.jsonl")
            done = cp.load()
            answerer = make_answerer(settings.agent, build_condition(cid, memories[pid].store, pid), llm=llm)
            for item in tqdm(items, desc=f"eam-qa {pid} {cid}", unit="q", disable=not settings.progress):
                if item.qid in done and done[item.qid]["record"].get("response") is not None:
                    records[cid].append(AnswerRecord.model_validate(done[item.qid]["record"]))
                    continue
                # new, or saved before responses were kept: answered again (deterministic per input)
                rec = answer_item(answerer, item, settings.agent)
                cp.append({"item_id": item.qid, "record": rec.model_dump()})
                records[cid].append(rec)
    from memora_bench.runners.report import write_eam_qa_report

    results = summarize_run(records, settings)
    if memlife.CONDITION_ID in settings.conditions:
        results["memlife"] = memlife.summarize_memlife(memlife_blocks)
    return finish_run(results, memories, t0, settings, write_eam_qa_report)


def _per_participant(records: list[AnswerRecord], fn: Any) -> dict[str, Any]:
    return {pid: fn([r for r in records if r.participant_id == pid])
            for pid in sorted({r.participant_id for r in records})}


def summarize_run(records: dict[str, list[AnswerRecord]], settings: RunSettings) -> dict[str, Any]:
    """`conditions` / `per_participant`: the headline `reference` family; `strict` / `per_participant_strict`:
    ours, in the same shape; `filtered_subset`: the reference's filtered-subset accuracy."""
    refs = {cid: [reference_answer(r) for r in recs] for cid, recs in records.items()}
    conditions: dict[str, Any] = {}
    strict_block: dict[str, Any] = {}
    per_participant: dict[str, dict[str, Any]] = {}
    per_participant_strict: dict[str, dict[str, Any]] = {}
    for cid, recs in records.items():
        block = strict.summarize(recs)
        block["decision_profile"] = strict.decision_profile(recs)
        if "parametric" in records and cid != "parametric":
            block["diagnostic"] = strict.conditional_diagnostic(records["parametric"], recs)
        strict_block[cid] = block
        conditions[cid] = ref.summarize(refs[cid])
        for pid, b in _per_participant(recs, strict.summarize).items():
            per_participant_strict.setdefault(pid, {})[cid] = b
        for pid, b in _per_participant(refs[cid], ref.summarize).items():
            per_participant.setdefault(pid, {})[cid] = b
    pids = sorted({r.participant_id for recs in records.values() for r in recs})
    filtered = {"pooled": ref.filtered_subset(refs),
                "per_participant": {p: ref.filtered_subset({c: [a for a in rs if a.participant_id == p]
                                                            for c, rs in refs.items()}) for p in pids}}
    items = {cid: [{"qid": r.qid, "participant_id": r.participant_id, "qa_type": r.qa_type, "gold": r.gold,
                    "unanswerable": r.unanswerable, "response": r.response, "predicted_reference": a.predicted,
                    "predicted_strict": r.predicted} for r, a in zip(recs, refs[cid])]
             for cid, recs in records.items()}
    return {"benchmark": "eam_qa", "mode": settings.mode, "agent": settings.agent,
            "participants": settings.participants, "metric_families": METRIC_FAMILIES,
            "conditions": conditions, "per_participant": per_participant, "filtered_subset": filtered,
            "strict": strict_block, "per_participant_strict": per_participant_strict, "items": items,
            "notes": {"reference": "accuracy and per-type accuracy over every question of the group, E-correct "
                                   "controls included; letters parsed by the reference's rules from the "
                                   "agent's answer text (the structured answerer's answer is its letter)",
                      "filtered_subset": "questions parametric got wrong and memora committed to A-D on, "
                                         "per participant, pooled",
                      "accuracy": "strict: pooled over all questions of all participants; accuracy_macro: mean "
                                  "of per-participant accuracies; per type over answerable questions",
                      "evidence_recall": "answerable questions with at least one evidence video among the "
                                         "videos the agent retrieved (evidence_recall_all: all of them)",
                      "unparseable": "strict: an answer without a clear letter counts as wrong, never as E"}}
