"""Held-out MEMORA-Bench figures of a MemOpt writer: EAM-QA of the benchmark participants (P28 test, P06
development; neither ever trains the writer), scored exactly as the `memlife` condition of `memora-bench eam-qa`.

The writer model writes one entry per MemLife segment of the participant's whole `video_scope` history (greedy,
the MemOpt writer prompt); MemLife's configured embedder, deterministic reader and oracle budget
(robot_configs/memlife.yaml) read it; every item (controls included) is asked at the end of the history.
Accuracy, recall and oracle accuracy are MemLife's (memlife/evaluate.py), so the figures sit beside the seven
conditions and the template-writer MemLife row. Entries are cached per (participant, writer label) under
<out>/benchmark/, so an interrupted evaluation resumes.
"""
from __future__ import annotations

from pathlib import Path

from memora_core.store.embedding import make_embedder

from memora_bench.data import BenchData
from memora_bench.memlife.config import MemLifeConfig, load_memlife_config
from memora_bench.memlife.evaluate import evaluate, evidence_intervals, oracle_entries
from memora_bench.memlife.reader import DeterministicReader
from memora_bench.memlife.segments import build_history
from memora_bench.memlife.types import MemoryEntry
from memora_bench.memopt.config import MemOptConfig
from memora_bench.memopt.memory import build_index, write_entries, writer_prompts

BENCH_KEYS = ("accuracy", "accuracy_answerable", "recall", "oracle_accuracy", "n", "n_answerable")


def cached_entries(model, tok, cfg: MemOptConfig, segments: list, path: Path, writer_id: str,
                   chunk: int = 16) -> list[MemoryEntry]:
    """Entries for `segments`, reusing those already in `path` (jsonl, written chunk by chunk)."""
    done: dict = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                e = MemoryEntry.model_validate_json(line)
            except ValueError:
                continue  # a line cut by a kill: written again below
            done[e.key] = e
    todo = [s for s in segments if s.key not in done]
    writer = writer_prompts(cfg.data.max_prompt_json_chars)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        for i in range(0, len(todo), chunk):
            for e in write_entries(model, tok, writer, todo[i:i + chunk], cfg.eval.write_max_new_tokens, writer_id):
                done[e.key] = e
                fh.write(e.model_dump_json() + "\n")
            fh.flush()
    return [done[s.key] for s in segments]


def benchmark_scores(model, tok, cfg: MemOptConfig, data_root: Path, pid: str, out: Path, label: str,
                     memlife_cfg: MemLifeConfig | None = None) -> dict:
    """MemLife's accuracy / recall / oracle accuracy on `pid`'s EAM-QA with `model` as the writer."""
    mcfg = memlife_cfg or load_memlife_config()
    bench = BenchData(data_root)
    history = build_history(data_root, pid, bench.video_scope(pid), mcfg.segmenting)
    items = list(bench.eam_qa(pid).items)
    entries = cached_entries(model, tok, cfg, history.segments, out / "benchmark" / pid / f"{label}.jsonl",
                             f"memopt:{cfg.name}:{label}")
    index = build_index(entries, make_embedder(mcfg.embedding))
    reader = DeterministicReader(mcfg.reader, timeline=history.timeline)
    qtime = history.timeline.end
    evidence = {it.qid: evidence_intervals(it, history.rows, history.timeline) for it in items}
    traces = [reader.answer(it, index, qtime) for it in items]
    oracle = [reader.answer(it, index, qtime, handed=oracle_entries(evidence[it.qid], entries, mcfg.oracle_k))
              for it in items]
    block = evaluate(traces, items, entries={e.key: e for e in entries}, evidence=evidence, oracle=oracle)
    return {**{k: block[k] for k in BENCH_KEYS}, "entries": len(entries), "reader_id": reader.reader_id,
            "embedder": mcfg.embedding.backend}
