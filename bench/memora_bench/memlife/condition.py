"""MemLife as a condition of `memora-bench eam-qa` (`--conditions memlife`).

Per participant: the EAM-QA `video_scope` videos are the history (global timeline in video-id order); MemLife
writes one entry per 30 s segment (writer from robot_configs/memlife.yaml; entries cached under
OUT/memlife/<pid>/entries.jsonl per writer id, so a rerun reuses them), indexes them, and the reader answers each
item. Question time: EAM-QA items carry no time of asking; each is asked after the whole history (the end of the
timeline). Each item also gets an oracle trace (evidence-aligned entries handed to the reader).
Outputs: AnswerRecords (so MemLife sits in the same tables as the seven conditions), traces under
OUT/memlife/<pid>/traces.jsonl, and a `memlife` block (accuracy, recall, oracle accuracy, writer/reader ids).
"""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from tqdm import tqdm

from memora_core.store.embedding import make_embedder

from memora_bench.data import BenchData, QaItem
from memora_bench.memlife.config import MemLifeConfig, load_memlife_config
from memora_bench.memlife.evaluate import evaluate, evidence_intervals, oracle_entries, pooled
from memora_bench.memlife.index import MemLifeIndex
from memora_bench.memlife.reader import make_reader
from memora_bench.memlife.segments import build_history
from memora_bench.memlife.types import MemoryEntry, ReaderTrace
from memora_bench.memlife.writer import MemLifeWriter, TemplateWriter
from memora_bench.metrics.eamqa import AnswerRecord

log = logging.getLogger(__name__)
CONDITION_ID = "memlife"
EVAL_NOTES = {"accuracy": "letter set equal to the gold set, all items (controls included); parse failure wrong",
              "recall": "answerable items where any returned entry overlaps an evidence interval of the same video "
                        "(evidence: answer-aligned narration rows of the item's videos)",
              "oracle_accuracy": "the same reader handed the evidence-aligned entries (<= oracle_k) directly"}


def split_conditions(spec: str | list[str] | None) -> tuple[str | list[str] | None, bool]:
    """('all,memlife' | [...]) -> (the spec without memlife, whether memlife was asked for)."""
    if spec is None:
        return None, False
    items = [c.strip() for c in (spec.split(",") if isinstance(spec, str) else spec) if c.strip()]
    want = CONDITION_ID in items
    rest = [c for c in items if c != CONDITION_ID]
    if rest == ["all"]:
        return "all", want
    if "all" in rest:
        raise ValueError("'all' cannot be combined with other core conditions (memlife may be added)")
    return rest, want


def needs_llm(cfg: MemLifeConfig) -> bool:
    return cfg.writer.kind != "template" or cfg.reader.kind == "llm"


def make_memlife_llm(cfg: MemLifeConfig) -> Any:
    """The LLM the configured writer/reader need (memlife.yaml `llm:`, else robot_configs/llm.yaml), or None."""
    if not needs_llm(cfg):
        return None
    from memora_core.llm import load_llm_config, make_llm

    llm = make_llm(cfg.llm or load_llm_config())
    if llm is None:
        raise ValueError(f"memlife writer '{cfg.writer.kind}' / reader '{cfg.reader.kind}' need an LLM; "
                         "set `llm:` in robot_configs/memlife.yaml or a backend in robot_configs/llm.yaml")
    return llm


def make_writer(cfg: MemLifeConfig, llm: Any = None) -> MemLifeWriter | TemplateWriter:
    w = cfg.writer
    if w.kind == "template":
        return TemplateWriter(w.max_entry_chars)
    if llm is None:
        raise ValueError(f"memlife writer '{w.kind}' needs an LLM backend (robot_configs/llm.yaml)")
    return MemLifeWriter(llm, w.prompt_version, w.max_new_tokens, vlm=w.kind == "vlm",
                         max_entry_chars=w.max_entry_chars, max_prompt_json_chars=w.max_prompt_json_chars)


def write_entries(segments: list, writer: Any, cache: Path, progress: bool) -> list[MemoryEntry]:
    """Entries for all segments; those already in `cache` from the same writer are reused (resumable)."""
    done: dict[tuple, MemoryEntry] = {}
    if cache.exists():
        for line in cache.read_text(encoding="utf-8").splitlines():
            try:
                e = MemoryEntry.model_validate_json(line)
            except ValueError:
                continue  # a line cut by a kill: rewritten below
            if e.writer_id == writer.writer_id:
                done[e.key] = e
    cache.parent.mkdir(parents=True, exist_ok=True)
    out = []
    with cache.open("a", encoding="utf-8") as fh:
        for seg in tqdm(segments, desc="memlife write", unit="seg", disable=not progress):
            e = done.get(seg.key)
            if e is None:
                e = writer.write(seg)
                fh.write(e.model_dump_json() + "\n")
                fh.flush()
            out.append(e)
    return out


def _record(item: QaItem, trace: ReaderTrace, entries: dict) -> AnswerRecord:
    vids = sorted({v for v, _ in trace.returned_intervals(entries)})
    predicted = trace.answer if trace.answer and len(trace.answer) == 1 else None
    return AnswerRecord(qid=item.qid, participant_id=item.participant_id, qa_type=item.qa_type, gold=item.answer,
                        unanswerable=item.unanswerable, predicted=predicted, evidence_videos=item.video_ids,
                        retrieved_videos=vids, n_tool_calls=len(trace.actions),
                        error="parse_failure" if trace.parse_failure else None, response=trace.answer or "")


def run_memlife(data: BenchData, pid: str, items: list[QaItem], out: Path, *, cfg: MemLifeConfig | None = None,
                llm: Any = None, progress: bool = True) -> tuple[list[AnswerRecord], dict[str, Any]]:
    cfg = cfg or load_memlife_config()
    history = build_history(data.root, pid, data.video_scope(pid), cfg.segmenting)
    writer = make_writer(cfg, llm)
    entries = write_entries(history.segments, writer, out / "memlife" / pid / "entries.jsonl", progress)
    index = MemLifeIndex(make_embedder(cfg.embedding))
    index.add(entries)
    by_key = {e.key: e for e in entries}
    reader = make_reader(cfg.reader.kind, cfg.reader, llm=llm, timeline=history.timeline)
    qtime = history.timeline.end  # EAM-QA items are asked after the whole history
    if hasattr(reader, "queries"):  # the deterministic reader's searches: embedded in one batch, not one by one
        index.query_vectors([q for it in items for q in reader.queries(it)])
    traces, oracle, records = [], [], []
    evidence = {it.qid: evidence_intervals(it, history.rows, history.timeline) for it in items}
    tpath = out / "memlife" / pid / "traces.jsonl"
    with tpath.open("w", encoding="utf-8") as fh:
        for it in tqdm(items, desc=f"eam-qa {pid} memlife", unit="q", disable=not progress):
            t = reader.answer(it, index, qtime)
            o = reader.answer(it, index, qtime, handed=oracle_entries(evidence[it.qid], entries, cfg.oracle_k))
            traces.append(t)
            oracle.append(o)
            records.append(_record(it, t, by_key))
            fh.write(json.dumps({"trace": t.model_dump(), "oracle": o.model_dump()}) + "\n")
    block = evaluate(traces, items, entries=by_key, evidence=evidence, oracle=oracle)
    block.update({"writer_id": writer.writer_id, "reader_id": reader.reader_id, "entries": len(entries),
                  "question_time_s": round(qtime, 1), "segment_s": cfg.segmenting.segment_s})
    return records, block


def summarize_memlife(blocks: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """results.json `memlife`: pooled accuracy/recall/oracle accuracy, per participant blocks, what produced them."""
    first = next(iter(blocks.values()), {})
    return {"pooled": pooled(list(blocks.values())), "per_participant": blocks,
            "writer_id": first.get("writer_id"), "reader_id": first.get("reader_id"),
            "notes": {"question_time": "EAM-QA items carry no time: each is asked at the end of the participant's "
                                       "video_scope timeline", **EVAL_NOTES}}
