"""Memories written by a Hugging Face writer model (greedy), indexed, read by the frozen deterministic reader,
and scored: accuracy, retrieval recall (a returned entry overlaps a verified evidence interval) and oracle
accuracy (the evidence segments' entries handed to the reader)."""
from __future__ import annotations

import torch

from memora_core.store.embedding import Embedder

from memora_bench.memlife.config import ReaderConfig
from memora_bench.memlife.index import MemLifeIndex
from memora_bench.memlife.reader import DeterministicReader
from memora_bench.memlife.types import MemoryEntry, ReaderTrace, SegmentInput
from memora_bench.memlife.writer import MemLifeWriter, entry_for, sanitise_entry
from memora_bench.memopt.data import ParticipantData, TrainingQuestion


def writer_prompts(max_prompt_json_chars: int) -> MemLifeWriter:
    """The MemLife writer's versioned prompt (`.messages`); MemOpt samples from it with its own policy model."""
    return MemLifeWriter(None, max_prompt_json_chars=max_prompt_json_chars, model_name="memopt")  # type: ignore[arg-type]


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


def retrieved(trace: ReaderTrace, q: TrainingQuestion, index: MemLifeIndex) -> bool:
    for a in trace.actions:
        for k in a.returned:
            e = index.get(tuple(k))
            if e is not None and any(e.interval.overlaps(ev) for ev in q.evidence):
                return True
    return False


def score(parts: list[ParticipantData], memories: dict[str, list[MemoryEntry]], embedder: Embedder,
          reader_cfg: ReaderConfig) -> dict[str, float]:
    """accuracy, recall, oracle_accuracy over every question of `parts` (each participant's own memory)."""
    n = acc = rec = orc = 0
    reader = DeterministicReader(reader_cfg)
    for p in parts:
        index = build_index(memories[p.participant_id], embedder)
        for q in p.questions:
            tr = reader.answer(q.item, index, q.question_time)
            handed = [e for e in (index.get(k) for k in q.evidence_segments) if e is not None]
            oracle = reader.answer(q.item, index, q.question_time, handed=handed)
            n += 1
            acc += tr.answer == q.item.answer
            rec += retrieved(tr, q, index)
            orc += oracle.answer == q.item.answer
    n = max(n, 1)
    return {"accuracy": acc / n, "recall": rec / n, "oracle_accuracy": orc / n, "n_questions": n}
