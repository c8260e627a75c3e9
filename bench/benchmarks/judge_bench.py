#!/usr/bin/env python
"""Judge-discrimination benchmark (issue 14): can a MemOpt FIRM evaluator tell a grounded entry from filler?

Cases (memora_bench/memopt/judge_cases.py) are built only from the config's TRAINING participants (never P06/P28,
never its validation or test participants): per segment a grounded entry (its own narrated actions, first
person), a fabricated one (the same form, another segment's actions), a content-free one and a copied-JSON one.
Each is scored as FIRM scores a writer candidate: faithfulness (mean token score against the segment's source,
on the writer's tokens), informativeness (entailment of the segment's key facts, extracted by the same
informativeness judge as in training) and validity V. Printed: per kind the mean F, I, V and F x I x V, and
the pairwise win rates grounded > fabricated and grounded > filler.

    .venv/bin/python bench/benchmarks/judge_bench.py [--config cpu-small] [--evaluator gguf
        --evaluator-path models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf] [--informativeness-judge evaluator]
        [--segments 12] [--offset 0] [--work DIR] [--json]

Segments: the training segments with >= 2 actions, shuffled with --seed, then [--offset, --offset + --segments).
Exit codes: 0 done, 2 bad arguments / config, 3 evaluator file missing.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from tqdm import tqdm  # noqa: E402

from memora_bench.config import data_root  # noqa: E402
from memora_bench.memopt.config import MemOptConfigError, load_memopt_config  # noqa: E402
from memora_bench.memopt.judge_cases import KINDS, build_cases, win_rate  # noqa: E402


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--config", default="cpu-small", help="MemOpt config (its data split and reward settings)")
    ap.add_argument("--evaluator", choices=("initial_writer", "pretrained", "gguf"), default=None,
                    help="override rewards.evaluator")
    ap.add_argument("--evaluator-path", default=None, help="override rewards.evaluator_path")
    ap.add_argument("--informativeness-judge", choices=("initial_writer", "evaluator"), default=None,
                    help="override rewards.informativeness_judge")
    ap.add_argument("--segments", type=int, default=12, help="training segments scored (>= 1)")
    ap.add_argument("--offset", type=int, default=0, help="skip this many shuffled segments (a disjoint set)")
    ap.add_argument("--seed", type=int, default=0, help="segment shuffle seed")
    ap.add_argument("--work", type=Path, default=Path("/tmp/memopt_judge_bench"),
                    help="cache folder (data split, initial writer)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args(argv)
    if args.segments < 1 or args.offset < 0:
        ap.error("--segments must be >= 1 and --offset >= 0")
    return args


def configured(args):
    cfg = load_memopt_config(args.config)
    over = {k: v for k, v in (("evaluator", args.evaluator), ("evaluator_path", args.evaluator_path),
                              ("informativeness_judge", args.informativeness_judge)) if v is not None}
    return cfg.model_copy(update={"rewards": cfg.rewards.model_copy(update=over)})


def training_segments(cfg, work: Path):
    from memora_core.config import SegmentingConfig

    from memora_bench.memopt.data import EXCLUDED, build_data

    data = build_data(data_root(), work, seed=cfg.data.seed, train_frac=cfg.data.train_frac,
                      val_frac=cfg.data.val_frac, budgets=cfg.data.segments, max_participants=cfg.data.participants,
                      seg_cfg=SegmentingConfig(segment_s=cfg.data.segment_s, min_tail_s=1.0))
    held_out = set(EXCLUDED) | set(data.splits["validation"]) | set(data.splits["test"])
    assert not held_out & {p.participant_id for p in data.train}, "a held-out participant in the training split"
    return data


def score_cases(cases, cfg, judge, info, writer_tok) -> dict[str, dict[str, list[float]]]:
    from memora_bench.memopt.firm import source_text
    from memora_bench.memopt.rewards.faithfulness import token_faithfulness_batch
    from memora_bench.memopt.rewards.informativeness import informativeness_batch
    from memora_bench.memopt.rewards.validity import entry_validity

    r = cfg.rewards
    out = {k: {"F": [], "I": [], "V": [], "FIV": []} for k in KINDS}
    for case in tqdm(cases, desc="judge cases", unit="seg", file=sys.stderr):
        texts = [case.texts[k] for k in KINDS]
        ids = [writer_tok.encode(t, add_special_tokens=False)[:cfg.grpo.max_completion_length * 2] for t in texts]
        src = source_text(case.segment, cfg.data.max_prompt_json_chars)
        fs = token_faithfulness_batch(judge.model, writer_tok, [src] * len(texts), texts, ids, r.max_prompt_tokens,
                                      evaluator_tokenizer=None if judge.tokenizer is writer_tok else judge.tokenizer)
        ins = informativeness_batch(info.model, info.tokenizer, texts, [case.facts] * len(texts),
                                    r.max_prompt_tokens)
        for k, f, i, t in zip(KINDS, fs, ins, texts):
            f_mean, v = float(f.mean()) if len(f) else 0.0, entry_validity(t).score
            for name, val in (("F", f_mean), ("I", i), ("V", v), ("FIV", f_mean * i * v)):
                out[k][name].append(val)
    return out


def summarise(scores: dict) -> dict:
    means = {k: {m: statistics.fmean(v) for m, v in scores[k].items()} for k in KINDS}
    wins = {f"grounded>{other}": {m: win_rate(scores["grounded"][m], scores[other][m]) for m in ("F", "I", "FIV")}
            for other in ("fabricated", "filler")}
    return {"means": means, "win_rates": wins}


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        cfg = configured(args)
    except (MemOptConfigError, FileNotFoundError) as exc:
        print(f"judge_bench: {exc}", file=sys.stderr)
        return 2
    from memora_bench.memopt.evaluator import EvaluatorNotFound, Judge, load_judge
    from memora_bench.memopt.models import load_frozen, materialise_initial_writer
    from memora_bench.memopt.firm import key_str
    from memora_bench.memopt.run import key_facts_for

    torch.set_num_threads(cfg.model.threads)
    t0 = time.time()
    data = training_segments(cfg, args.work)
    pool = [s for p in data.train for s in p.segments]
    order = list(pool)
    random.Random(args.seed).shuffle(order)
    cases = build_cases(order, pool, cfg.data.max_prompt_json_chars)[args.offset:args.offset + args.segments]
    initial, writer_tok = load_frozen(materialise_initial_writer(cfg.model, args.work), cfg.model.dtype)
    initial_judge = Judge(initial, writer_tok, "initial_writer")
    try:
        judge = load_judge(cfg.rewards, initial_judge, cfg.model.dtype)
    except EvaluatorNotFound as exc:
        print(f"judge_bench: {exc}", file=sys.stderr)
        return 3
    info = judge if cfg.rewards.informativeness_judge == "evaluator" else initial_judge
    facts = key_facts_for(data, [c.segment.key for c in cases], info.model, info.tokenizer, cfg)
    cases = [c.with_facts(list(dict.fromkeys(facts.get(key_str(c.segment.key), [])))) for c in cases]
    scores = score_cases(cases, cfg, judge, info, writer_tok)
    result = {"config": cfg.name, "evaluator": judge.label, "informativeness_judge": info.label,
              "offset": args.offset, "seed": args.seed,
              "cases": [{"segment": list(c.segment.key), "facts": c.facts, "texts": c.texts,
                         "scores": {k: {m: round(v[n], 4) for m, v in scores[k].items()} for k in KINDS}}
                        for n, c in enumerate(cases)],
              **summarise(scores), "seconds": round(time.time() - t0, 1)}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"judge {result['evaluator']} (informativeness: {result['informativeness_judge']}), "
          f"{len(cases)} training segments (offset {args.offset}, seed {args.seed}), {result['seconds']} s")
    print(f"{'kind':12s} {'F':>6s} {'I':>6s} {'V':>6s} {'FxIxV':>6s}")
    for k, m in result["means"].items():
        print(f"{k:12s} {m['F']:6.3f} {m['I']:6.3f} {m['V']:6.3f} {m['FIV']:6.3f}")
    for pair, w in result["win_rates"].items():
        print(f"win {pair:22s} F {w['F']:.2f}  I {w['I']:.2f}  FxIxV {w['FIV']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
