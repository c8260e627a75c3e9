"""Memories written by a Hugging Face writer model (greedy), indexed, read by the frozen deterministic reader,
and scored with MemLife's metrics against the verified evidence intervals: accuracy, retrieval recall (a returned
entry overlaps an evidence interval of the same video) and oracle accuracy (evidence-aligned entries handed over)."""
from __future__ import annotations

import torch

from memora_core.store.embedding import Embedder

from memora_bench.memlife.config import ReaderConfig
from memora_bench.memlife.evaluate import evaluate, oracle_entries, pooled
from memora_bench.memlife.index import MemLifeIndex
from memora_bench.memlife.reader import DeterministicReader
from memora_bench.memlife.types import Interval, MemoryEntry, ReaderTrace, SegmentInput
from memora_bench.memlife.writer import MemLifeWriter, entry_for, sanitise_entry
from memora_bench.memopt.compact import compact_segment
from memora_bench.memopt.data import ParticipantData, TrainingQuestion


class CompactWriter(MemLifeWriter):
    """The MemLife writer's versioned prompt with the segment's perception in compact form (memopt/compact.py):
    the same facts in about a third of the tokens, cut at whole items rather than mid-JSON."""

    def messages(self, seg: SegmentInput) -> list[dict]:
        return super().messages(compact_segment(seg, self.max_json))


def writer_prompts(max_prompt_json_chars: int) -> MemLifeWriter:
    """The writer prompt (`.messages`) MemOpt samples from with its own policy model."""
    return CompactWriter(None, max_prompt_json_chars=max_prompt_json_chars, model_name="memopt")  # type: ignore[arg-type]


@torch.no_grad()
def write_entries(model, tokenizer, writer: MemLifeWriter, segments: list[SegmentInput], max_new_tokens: int,
                  writer_id: str, batch: int = 8) -> list[MemoryEntry]:
    """Greedy entries for `segments`, batched with left padding."""
    out: list[MemoryEntry] = []
    was_training = model.training
    model.eval()
    side, tokenizer.padding_side = tokenizer.padding_side, "left"
    try:
        for i in range(0, len(segments), batch):
            chunk = segments[i:i + batch]
            texts = [tokenizer.apply_chat_template(writer.messages(s), add_generation_prompt=True, tokenize=False)
                     for s in chunk]
            enc = tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(model.device)
            gen = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False,
                                 pad_token_id=tokenizer.pad_token_id)
            for s, row in zip(chunk, gen[:, enc["input_ids"].shape[1]:]):
                text = sanitise_entry(tokenizer.decode(row, skip_special_tokens=True), 4000) or "(empty)"
                out.append(entry_for(s, text, writer_id))
    finally:
        tokenizer.padding_side = side
        model.train(was_training)
    return out


def build_index(entries: list[MemoryEntry], embedder: Embedder) -> MemLifeIndex:
    index = MemLifeIndex(embedder)
    index.add(entries)
    return index


def read_all(pdata: ParticipantData, index: MemLifeIndex, reader_cfg: ReaderConfig) -> list[ReaderTrace]:
    reader = DeterministicReader(reader_cfg)
    return [reader.answer(q.item, index, q.question_time) for q in pdata.questions]


def evidence_by_video(p: ParticipantData, q: TrainingQuestion) -> list[tuple[str, Interval]]:
    """(video, interval) of each verified evidence interval (the video of a chosen segment it overlaps)."""
    out = []
    for iv in q.evidence:
        vids = {s.video_id for s in p.segments if Interval(start=s.t_start, end=s.t_end).overlaps(iv)}
        out += [(v, iv) for v in sorted(vids)]
    return out


def score(parts: list[ParticipantData], memories: dict[str, list[MemoryEntry]], embedder: Embedder,
          reader_cfg: ReaderConfig, oracle_k: int = 64) -> dict:
    """accuracy, recall, oracle_accuracy (MemLife's definitions, memlife/evaluate.py) pooled over `parts`, each
    participant read from its own memory by the frozen deterministic reader."""
    reader = DeterministicReader(reader_cfg)
    blocks = []
    for p in parts:
        index = build_index(memories[p.participant_id], embedder)
        entries = {e.key: e for e in index.entries}
        evidence = {q.item.qid: evidence_by_video(p, q) for q in p.questions}
        traces = [reader.answer(q.item, index, q.question_time) for q in p.questions]
        oracle = [reader.answer(q.item, index, q.question_time,
                                handed=oracle_entries(evidence[q.item.qid], index.entries, oracle_k))
                  for q in p.questions]
        blocks.append(evaluate(traces, [q.item for q in p.questions], entries=entries, evidence=evidence,
                               oracle=oracle))
    return pooled(blocks)
