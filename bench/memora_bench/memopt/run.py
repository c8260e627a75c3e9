"""`memora-bench memopt`: data -> initial writer -> key facts -> GRPO with FIRM -> held-out evaluation -> report.

Outputs in --out: train_log.json, eval.json, reward_curve.png, report.html, rewards.jsonl (per step: segment
keys and each candidate's mean FIRM reward); state for resuming: data/, facts.json,
initial_writer/, checkpoints/ (TRL checkpoints; a rerun resumes from the last), best/ + best.json (the
checkpoint with the best validation accuracy + recall), replay/epoch_<n>.json (action-replay caches).
"""
from __future__ import annotations

import json
import logging
from collections import Counter
from pathlib import Path

import torch
from transformers import TrainerCallback

from memora_core.config import EmbeddingConfig, SegmentingConfig
from memora_core.store.embedding import make_embedder

from memora_bench.memopt.config import MemOptConfig
from memora_bench.memopt.data import MemOptData, ParticipantData, build_data
from memora_bench.memopt.evaluator import Judge, load_judge
from memora_bench.memopt.firm import FirmReward, key_str, source_text
from memora_bench.memopt.memory import build_index, read_all, score, write_entries, writer_prompts
from memora_bench.memopt.models import load_frozen, materialise_initial_writer
from memora_bench.memopt.replay_cache import ReplayCache
from memora_bench.memopt.rewards.informativeness import extract_key_facts

log = logging.getLogger(__name__)
LOG_KEYS = ("reward", "faithfulness", "informativeness", "retrievability", "validity", "kl", "loss")


def _save_json(path: Path, obj) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, indent=1))
    tmp.replace(path)


def facts_path(cfg: MemOptConfig, out: Path) -> Path:
    """facts.json (extracted by the initial writer) or facts_evaluator.json (by the configured evaluator)."""
    by_evaluator = cfg.rewards.informativeness_judge == "evaluator" and cfg.rewards.evaluator != "initial_writer"
    return out / ("facts_evaluator.json" if by_evaluator else "facts.json")


def key_facts_for(data: MemOptData, wanted: list | None, model, tok, cfg: MemOptConfig) -> dict[str, list[str]]:
    """key_str -> the key facts of the segment's first `max_facts_per_segment` training questions
    (extracted by `model`), for the training segments in `wanted` (None: all)."""
    want = None if wanted is None else {key_str(k) for k in wanted}
    keys, cases, per_key = [], [], Counter()
    for p in data.train:
        segs = {s.key: s for s in p.segments}
        for q in p.questions:
            answer = q.item.choices["ABCDE".index(q.item.answer)]
            for k in q.evidence_segments:
                ks = key_str(k)
                if (tuple(k) in segs and (want is None or ks in want)
                        and per_key[ks] < cfg.rewards.max_facts_per_segment):
                    per_key[ks] += 1
                    keys.append(ks)
                    cases.append((source_text(segs[tuple(k)], cfg.data.max_prompt_json_chars), q.item.question,
                                  answer))
    facts: dict[str, list[str]] = {}
    for k, f in zip(keys, extract_key_facts(model, tok, cases, cfg.rewards.fact_max_new_tokens,
                                            cfg.rewards.max_prompt_tokens)):
        facts.setdefault(k, []).append(f)
    return facts


def key_facts(data: MemOptData, model, tok, cfg: MemOptConfig, out: Path) -> dict[str, list[str]]:
    """Per training segment, the key facts of its first `max_facts_per_segment` questions (the informativeness
    judge; cached): informativeness uses no more, so the other questions' facts are not extracted."""
    path = facts_path(cfg, out)
    if path.exists():
        return json.loads(path.read_text())
    facts = key_facts_for(data, None, model, tok, cfg)
    _save_json(path, facts)
    return facts


def memories(parts: list[ParticipantData], model, tok, cfg: MemOptConfig, writer_id: str) -> dict[str, list]:
    writer = writer_prompts(cfg.data.max_prompt_json_chars)
    return {p.participant_id: write_entries(model, tok, writer, p.segments, cfg.eval.write_max_new_tokens, writer_id)
            for p in parts}


class EpochReplay(TrainerCallback):
    """Epoch start: the current writer's training memory, the frozen reader's actions -> firm.cache."""

    def __init__(self, data: MemOptData, firm: FirmReward, tok, cfg: MemOptConfig, embedder, out: Path):
        self.data, self.firm, self.tok, self.cfg, self.embedder, self.out = data, firm, tok, cfg, embedder, out

    def on_epoch_begin(self, args, state, control, model=None, **kw):
        epoch = int(round(state.epoch or 0))
        path = self.out / "replay" / f"epoch_{epoch}.json"
        if path.exists():
            self.firm.cache = ReplayCache.load(path)
            return
        mems = memories(self.data.train, model, self.tok, self.cfg, f"memopt:epoch{epoch}")
        caches = []
        for p in self.data.train:
            index = build_index(mems[p.participant_id], self.embedder)
            traces = read_all(p, index, self.cfg.reader_config())
            caches.append(ReplayCache.build(index, traces, {q.item.qid: q.evidence_segments for q in p.questions}))
        merged = ReplayCache(entries=[e for c in caches for e in c.entries],
                             vectors=[v for c in caches for v in c.vectors],
                             questions=[q for c in caches for q in c.questions])
        merged.save(path)
        self.firm.cache = merged


class BestByValidation(TrainerCallback):
    """Epoch end: validation accuracy + recall of the current writer; the best is saved to <out>/best."""

    def __init__(self, data: MemOptData, tok, cfg: MemOptConfig, embedder, out: Path):
        self.data, self.tok, self.cfg, self.embedder, self.out = data, tok, cfg, embedder, out

    def on_epoch_end(self, args, state, control, model=None, **kw):
        mems = memories(self.data.validation, model, self.tok, self.cfg, "memopt:val")
        s = score(self.data.validation, mems, self.embedder, self.cfg.reader_config())
        value = s["accuracy"] + s["recall"]
        path = self.out / "best.json"
        best = json.loads(path.read_text()) if path.exists() else {"value": None}
        history = best.get("history", []) + [{"step": state.global_step, **s}]
        if best["value"] is None or value > best["value"]:
            model.save_pretrained(self.out / "best")
            self.tok.save_pretrained(self.out / "best")
            best = {"value": value, "step": state.global_step, **s}
        _save_json(path, {**best, "history": history})


class TrainLogWriter(TrainerCallback):
    """<out>/train_log.json rewritten at every log, so an interrupted run still shows its curve."""

    def __init__(self, out: Path):
        self.out = out

    def on_log(self, args, state, control, logs=None, **kw):
        _save_json(self.out / "train_log.json", train_log(state.log_history))


def train_log(log_history: list[dict]) -> dict:
    steps = [{"step": h["step"], **{k: h.get(k) for k in LOG_KEYS}} for h in log_history if "reward" in h]
    return {"steps": steps}


def grpo_args(cfg: MemOptConfig, out: Path, n_segments: int, progress: bool):
    from trl import GRPOConfig

    g = cfg.grpo
    per_step = min(g.segments_per_step, n_segments) * g.num_generations
    return GRPOConfig(
        output_dir=str(out / "checkpoints"), num_train_epochs=g.epochs, learning_rate=g.learning_rate,
        per_device_train_batch_size=per_step, gradient_accumulation_steps=1, num_generations=g.num_generations,
        max_completion_length=g.max_completion_length, temperature=g.temperature, top_p=1.0, top_k=0,
        beta=g.beta, epsilon=g.epsilon, num_iterations=g.num_iterations, max_grad_norm=g.max_grad_norm,
        loss_type="dapo", scale_rewards="group", logging_steps=1, save_strategy="steps",
        save_steps=g.save_steps or max(1, n_segments // min(g.segments_per_step, n_segments)), save_total_limit=1,
        report_to="none", seed=g.seed, data_seed=g.seed, use_cpu=not torch.cuda.is_available(),
        disable_tqdm=not progress, use_vllm=g.use_vllm, vllm_mode=g.vllm_mode, bf16=cfg.model.dtype == "bfloat16",
        remove_unused_columns=False, dataloader_num_workers=0, shuffle_dataset=True,
        gradient_checkpointing=g.gradient_checkpointing)


def run_memopt(cfg: MemOptConfig, out: Path, data_root: Path, progress: bool = True) -> dict:
    from datasets import Dataset

    from memora_bench.memopt.report import write_report
    from memora_bench.memopt.trainer import MemOptTrainer

    torch.set_num_threads(cfg.model.threads)
    torch.manual_seed(cfg.grpo.seed)
    out.mkdir(parents=True, exist_ok=True)
    data = build_data(data_root, out, seed=cfg.data.seed, train_frac=cfg.data.train_frac, val_frac=cfg.data.val_frac,
                      budgets=cfg.data.segments, max_participants=cfg.data.participants,
                      seg_cfg=SegmentingConfig(segment_s=cfg.data.segment_s, min_tail_s=1.0))
    if not data.train or not data.test:
        raise ValueError("MemOpt data: no training or test segments (check the data root and segment budgets)")
    initial = materialise_initial_writer(cfg.model, out)
    frozen_initial, tok = load_frozen(initial, cfg.model.dtype)  # the writer's tokenizer
    judge = load_judge(cfg.rewards, Judge(frozen_initial, tok, "initial_writer"), cfg.model.dtype)
    info = judge if cfg.rewards.informativeness_judge == "evaluator" else Judge(frozen_initial, tok, "initial_writer")
    embedder = make_embedder(EmbeddingConfig(backend=cfg.rewards.embedder))
    facts = key_facts(data, info.model, info.tokenizer, cfg, out)
    segs = [s for p in data.train for s in p.segments]
    firm = FirmReward(evaluator=judge.model, tokenizer=tok, embedder=embedder,
                      sources={key_str(s.key): source_text(s, cfg.data.max_prompt_json_chars) for s in segs},
                      intervals={key_str(s.key): _interval(s) for s in segs},
                      facts={k: list(dict.fromkeys(v))[:cfg.rewards.max_facts_per_segment] for k, v in facts.items()},
                      max_prompt_tokens=cfg.rewards.max_prompt_tokens,
                      initial_writer=None if info is judge and judge.model is not frozen_initial else frozen_initial,
                      evaluator_tokenizer=None if judge.tokenizer is tok else judge.tokenizer)
    writer = writer_prompts(cfg.data.max_prompt_json_chars)
    dataset = Dataset.from_list([{"prompt": writer.messages(s), "seg_key": key_str(s.key)} for s in segs])

    untrained_path = out / "eval_untrained.json"
    if not untrained_path.exists():
        mems = memories(data.test, frozen_initial, tok, cfg, "memopt:untrained")
        _save_json(untrained_path, {"scores": score(data.test, mems, embedder, cfg.reader_config()),
                                    "entries": {k: [e.model_dump() for e in v] for k, v in mems.items()}})
    policy, _ = load_frozen(initial, cfg.model.dtype)
    for p in policy.parameters():
        p.requires_grad_(True)
    policy.train()
    trainer = MemOptTrainer(model=policy, args=grpo_args(cfg, out, len(segs), progress), train_dataset=dataset,
                            processing_class=tok, firm=firm, kappa=cfg.grpo.kappa, reward_log=out / "rewards.jsonl",
                            callbacks=[EpochReplay(data, firm, tok, cfg, embedder, out),
                                       BestByValidation(data, tok, cfg, embedder, out), TrainLogWriter(out)])
    has_ckpt = any((out / "checkpoints").glob("checkpoint-*"))
    trainer.train(resume_from_checkpoint=True if has_ckpt else None)
    tlog = train_log(trainer.state.log_history)
    _save_json(out / "train_log.json", tlog)

    best_dir = out / "best" if (out / "best" / "config.json").exists() else None
    trained = load_frozen(best_dir, cfg.model.dtype)[0] if best_dir else trainer.model.eval()
    mems = memories(data.test, trained, tok, cfg, "memopt:trained")
    untrained = json.loads(untrained_path.read_text())
    result = {"config": cfg.name, "test_participants": [p.participant_id for p in data.test],
              "untrained": untrained["scores"], "trained": score(data.test, mems, embedder, cfg.reader_config()),
              "best": json.loads((out / "best.json").read_text()) if best_dir else None}
    if cfg.eval.benchmark_participants:
        from memora_bench.memopt.benchmark import benchmark_scores

        step = result["best"]["step"] if result["best"] else trainer.state.global_step
        writers = {"untrained": ("untrained", frozen_initial), "trained": (f"trained_step{step}", trained)}
        result["benchmark"] = {pid: {side: benchmark_scores(m, tok, cfg, data_root, pid, out, label)
                                     for side, (label, m) in writers.items()}
                               for pid in cfg.eval.benchmark_participants}
    _save_json(out / "eval.json", result)
    write_report(out, cfg, tlog, result, data, untrained["entries"],
                 {k: [e.model_dump() for e in v] for k, v in mems.items()})
    return result


def _interval(seg):
    from memora_bench.memlife.types import Interval

    return Interval(start=seg.t_start, end=seg.t_end)
