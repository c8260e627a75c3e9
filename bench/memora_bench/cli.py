"""`memora-bench`: EAM-QA and Planning evaluation across memory conditions, and the construction pipelines."""
from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from memora_bench import __version__
from memora_bench.config import BenchConfig, data_root, load_bench_config
from memora_bench.data import BenchData

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
log = logging.getLogger("memora_bench")


def _common(p: argparse.ArgumentParser, agent_flag: str, default_out: str) -> None:
    p.add_argument("--participants", help="comma list (P06,P28), or 'all' found under the data root "
                                         "(default: run.participants of bench.yaml)")
    p.add_argument("--conditions", default=None, help="comma list of condition ids, or 'all' (default)")
    p.add_argument(agent_flag, dest="agent", default=None,
                   help="structured (CPU, deterministic per condition) or react (same LLM agent for all)")
    p.add_argument("--out", default=None, help=f"output folder (default {default_out})")
    p.add_argument("--data", default=None, help="data root (default $MEMORA_DATA or the core data_dir)")
    p.add_argument("--limit", type=int, default=None, help="at most N items per participant (and split)")
    p.add_argument("--vectors", choices=["none", "chroma"], default=None,
                   help="vector index for the memory store (default run.vectors_backend)")
    p.add_argument("--no-progress", action="store_true", help="hide tqdm progress bars")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memora-bench", description=__doc__)
    parser.add_argument("--version", action="version", version=f"memora-bench {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0)
    parser.add_argument("--config", help="bench YAML (default robot_configs/bench.yaml or $MEMORA_BENCH_CONFIG)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser("eam-qa", help="EAM-QA multiple-choice evaluation")
    _common(p, "--answerer", "bench_out/eam_qa")
    p.add_argument("--memlife-config", default=None,
                   help="MemLife YAML for the memlife condition (default robot_configs/memlife.yaml)")
    p.add_argument("--memlife-writer", choices=["template", "llm", "vlm"], default=None,
                   help="override the MemLife writer (template: deterministic CPU text)")
    p.add_argument("--memlife-reader", choices=["deterministic", "llm"], default=None,
                   help="override the MemLife reader policy")
    p.set_defaults(func=cmd_eam_qa)
    p = sub.add_parser("planning", help="MEMORA-Planning (Replay + Generalize) evaluation")
    _common(p, "--planner", "bench_out/planning")
    p.set_defaults(func=cmd_planning)
    p = sub.add_parser("gen-eam-qa", help="generate EAM-QA items from a narration table")
    p.add_argument("--participants", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--data", default=None)
    p.add_argument("--donors", default="", help="comma list of donor participants for E-correct controls")
    p.add_argument("--llm", action="store_true", help="use the OpenAI-compatible generator/verifier (llm: block)")
    p.set_defaults(func=cmd_gen_eam_qa)
    p = sub.add_parser("gen-planning", help="generate MEMORA-Planning Replay (and, with --llm, Generalize) tasks")
    p.add_argument("--participants", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--data", default=None)
    p.add_argument("--llm", action="store_true")
    p.set_defaults(func=cmd_gen_planning)
    p = sub.add_parser("memopt", help="MemOpt: GRPO training of the MemLife writer with the FIRM reward")
    p.add_argument("--config", dest="memopt_config", default="cpu-tiny",
                   help="robot_configs/memopt/<name>.yaml (cpu-tiny, cpu-small, gpu) or a YAML path")
    p.add_argument("--out", required=True, help="output folder (a rerun resumes from its last checkpoint)")
    p.add_argument("--data", default=None)
    p.add_argument("--no-progress", action="store_true", help="hide the training progress bar")
    p.add_argument("--benchmark", default=None, metavar="PIDS",
                   help="also score the untrained and trained writer on these MEMORA-Bench participants' EAM-QA "
                        "as the memlife condition (e.g. P28; overrides eval.benchmark_participants)")
    p.set_defaults(func=cmd_memopt)
    return parser


def _settings(args: argparse.Namespace, cfg: BenchConfig, data: BenchData, bench: str, default_agent: str):
    from memora_core.conditions import CONDITION_IDS

    from memora_bench.runners.common import RunSettings, resolve_conditions, resolve_participants

    conds = args.conditions if args.conditions is not None else cfg.run.conditions
    memlife = False
    if bench == "eam_qa":  # MemLife is an eighth condition of EAM-QA only: 'all,memlife', 'memlife', ...
        from memora_bench.memlife.condition import split_conditions

        conds, memlife = split_conditions(conds)
    return RunSettings(
        participants=resolve_participants(args.participants, data, cfg.run.participants),
        conditions=resolve_conditions(conds, CONDITION_IDS) + (["memlife"] if memlife else []),
        out=Path(args.out or Path(cfg.run.out_dir) / bench), agent=args.agent or default_agent,
        vectors_backend=args.vectors or cfg.run.vectors_backend, limit=args.limit, progress=not args.no_progress)


def cmd_eam_qa(args: argparse.Namespace, cfg: BenchConfig) -> int:
    from memora_bench.runners.eam_qa import run_eam_qa
    from memora_bench.runners.report import EAM_COLUMNS, fmt

    data = BenchData(data_root(args.data))
    settings = _settings(args, cfg, data, "eam_qa", cfg.run.eam_qa.answerer)
    res = run_eam_qa(data, settings, cfg, _memlife_config(args))
    print(f"EAM-QA ({res['mode']}); wall {res['wall_s']} s")
    print("reference (headline): accuracy pooled, per type with controls; filtered subset")
    types = ("SPref", "SHabit", "SRoutine", "ERecall")
    print("condition".ljust(18) + "".join(c.rjust(10) for c in ("all", *types, "filtered")))
    filtered = res["filtered_subset"]["pooled"]
    for cid, b in res["conditions"].items():
        print(cid.ljust(18) + fmt(b["accuracy"]).rjust(10)
              + "".join(fmt(b["per_type_accuracy"].get(t)).rjust(10) for t in types)
              + fmt(filtered.get(cid, {}).get("accuracy")).rjust(10))
    print("strict: accuracy pooled; evidence recall")
    print("condition".ljust(18) + "".join(c[:9].rjust(10) for c in EAM_COLUMNS) + "   ev_rec")
    for cid, b in res["strict"].items():
        print(cid.ljust(18) + "".join(fmt(b[c]["accuracy"]).rjust(10) for c in EAM_COLUMNS)
              + fmt(b["answerable"]["evidence_recall"]).rjust(9))
    if "memlife" in res:
        m = res["memlife"]
        print(f"memlife (writer {m['writer_id']}, reader {m['reader_id']}): accuracy, retrieval recall, oracle "
              "accuracy")
        for who, b in [("pooled", m["pooled"]), *m["per_participant"].items()]:
            print(who.ljust(18) + "".join(fmt(b[c]).rjust(10) for c in ("accuracy", "recall", "oracle_accuracy"))
                  + f"   n={b['n']} parse_failures={b['parse_failures']}")
    print(f"results: {settings.out / 'results.json'}")
    return EXIT_OK


def _memlife_config(args: argparse.Namespace):
    from memora_bench.memlife.config import load_memlife_config

    cfg = load_memlife_config(args.memlife_config)
    if args.memlife_writer:
        cfg.writer.kind = args.memlife_writer
    if args.memlife_reader:
        cfg.reader.kind = args.memlife_reader
    return cfg


def cmd_planning(args: argparse.Namespace, cfg: BenchConfig) -> int:
    from memora_bench.runners.planning import run_planning
    from memora_bench.runners.report import fmt

    data = BenchData(data_root(args.data))
    settings = _settings(args, cfg, data, "planning", cfg.run.planning.planner)
    res = run_planning(data, settings, cfg)
    print(f"Planning ({res['mode']}); wall {res['wall_s']} s")
    for family, block, cols in (
            ("reference (headline)", res["conditions"], ["rgp", "order_exec", "keyobj", "prefadh", "exec", "n_empty"]),
            ("strict", res["strict"], ["rgp", "order_exec_lcs", "order_exec_prefix", "keyobj", "prefadh", "exec",
                                       "n_empty"])):
        print(family)
        print("condition".ljust(18) + "split".ljust(11) + "".join(c[:10].rjust(11) for c in cols))
        for cid, splits in block.items():
            for split, agg in splits.items():
                print(cid.ljust(18) + split.ljust(11) + "".join(fmt(agg[c]).rjust(11) for c in cols))
    print(f"results: {settings.out / 'results.json'}")
    return EXIT_OK


def cmd_gen_eam_qa(args: argparse.Namespace, cfg: BenchConfig) -> int:
    from memora_bench.generators.eamqa_gen import generate_eam_qa

    data = BenchData(data_root(args.data))
    donors = [d for d in args.donors.split(",") if d.strip()]
    for pid in args.participants.split(","):
        path = generate_eam_qa(data, pid.strip(), Path(args.out), cfg.eam_qa_gen, donors=donors,
                               llm_cfg=cfg.llm if args.llm else None)
        print(f"{pid}: {path}")
    return EXIT_OK


def cmd_gen_planning(args: argparse.Namespace, cfg: BenchConfig) -> int:
    from memora_bench.generators.planning_gen import generate_planning

    data = BenchData(data_root(args.data))
    for pid in args.participants.split(","):
        path = generate_planning(data, pid.strip(), Path(args.out), cfg.planning_gen,
                                 llm_cfg=cfg.llm if args.llm else None)
        print(f"{pid}: {path}")
    return EXIT_OK


def cmd_memopt(args: argparse.Namespace, cfg: BenchConfig) -> int:
    from memora_bench.memopt.config import load_memopt_config
    from memora_bench.memopt.run import run_memopt

    mcfg = load_memopt_config(args.memopt_config)
    if args.benchmark:
        mcfg.eval.benchmark_participants = [p.strip().upper() for p in args.benchmark.split(",") if p.strip()]
    res = run_memopt(mcfg, Path(args.out), data_root(args.data), progress=not args.no_progress)
    keys = ("accuracy", "recall", "oracle_accuracy")
    for side in ("untrained", "trained"):
        print(f"{side:10s}" + "".join(f"  {k} {res[side][k]}" for k in keys))
    for pid, sides in (res.get("benchmark") or {}).items():
        for side in ("untrained", "trained"):
            print(f"{pid} EAM-QA {side:10s}" + "".join(f"  {k} {sides[side][k]}" for k in keys))
    print(f"train log: {Path(args.out) / 'train_log.json'}; report: {Path(args.out) / 'report.html'}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING - 10 * min(args.verbose, 2),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args, load_bench_config(args.config)) or EXIT_OK)
    except KeyboardInterrupt:
        print("interrupted (rerun the same command to resume)", file=sys.stderr)
        return 130
    except (FileNotFoundError, ValueError, PermissionError, ImportError) as exc:
        print(f"memora-bench {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
