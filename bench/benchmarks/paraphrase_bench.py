#!/usr/bin/env python
"""Paraphrase benchmark: does the structured planner make the same plan when a task is said another way?

For each suite (bench/memora_bench/paraphrases/: p06 = development, demo, p28 = test) every paraphrase is
planned on the participant's memory and compared with the plan for the canonical phrasing (the benchmark
task's query, or the demo instruction in robot_configs/demo.yaml): it agrees when the step texts are the
same or, for benchmark tasks, when its task-level reference RGP is within 0.02 of the canonical plan's
(memora_bench.paraphrases.agreement). P06 and P28 memories are written from the shared EPIC data into a
temporary folder; the demo memory is the one `make demo` wrote (runs/demo/memory; skipped when absent).

    .venv/bin/python bench/benchmarks/paraphrase_bench.py [--splits p06,demo,p28] [--condition memora] [--json]
        [--show-disagreements]

Target (issue 16): agreement >= 90 %. P28 is test: reported, never used to choose anything.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402
from pydantic import ValidationError  # noqa: E402

from memora_bench.config import data_root, load_bench_config  # noqa: E402
from memora_bench.data import BenchData  # noqa: E402
from memora_bench.metrics.reference.memory_view import memory_view  # noqa: E402
from memora_bench.paraphrases.agreement import SuiteError, agreement, agrees, load_suite, task_rgp  # noqa: E402
from memora_bench.runners.common import RunSettings, prepare_memories  # noqa: E402
from memora_bench.runners.planning import reference_score, step_texts  # noqa: E402

SUITES = ROOT / "bench" / "memora_bench" / "paraphrases"
DEMO_CONFIG = ROOT / "robot_configs" / "demo.yaml"
DEMO_STORE = ROOT / "runs" / "demo" / "memory"


def _planner(condition: str, store, pid: str):
    from memora_core.agents.structured import StructuredPlanner
    from memora_core.conditions import build_condition

    return StructuredPlanner(build_condition(condition, store, pid))


def run_bench_split(split: str, condition: str, work: Path, data: BenchData, cfg) -> dict:
    suite = load_suite(SUITES / f"{split}.yaml")
    pid = suite.participant
    rows, disagreements = [], []
    if split == "demo":
        if not DEMO_STORE.exists():
            return {"split": suite.split, "skipped": f"no demo memory at {DEMO_STORE} (run make demo)"}
        from memora_core.config import load_config
        from memora_core.store import MemoryStore

        store = MemoryStore.open_reader(DEMO_STORE, load_config())
        instructions = [t["instruction"] for t in yaml.safe_load(DEMO_CONFIG.read_text())["tasks"]]
        canon = {f"instruction_{i}": (text, None) for i, text in enumerate(instructions)}
        view = None
    else:
        settings = RunSettings(participants=[pid], conditions=[condition], out=work / split, progress=False)
        store = prepare_memories(data, settings, cfg)[pid].store
        tasks = data.planning(pid)
        canon = {t.task_id: (t.query, t) for t in tasks.replay + tasks.generalize}
        view = memory_view(store, pid)
    try:
        try:
            planner = _planner(condition, store, pid)
        except ValidationError as exc:  # a memory written by an older schema: rewrite it, nothing to measure
            return {"split": suite.split, "skipped": f"memory at {store.root} does not load ({exc.error_count()} "
                                                      "schema errors); rewrite it (make demo)"}

        def plan_of(text: str, task) -> tuple[list[str], float | None]:
            steps = step_texts(planner.plan(text))
            if task is None:
                return steps, None
            s = reference_score(task, steps, view)
            return steps, None if s.empty else task_rgp(s.order_exec, s.keyobj, s.prefadh)

        for key, paraphrases in suite.tasks.items():
            if key not in canon:
                raise SuiteError(f"{SUITES / (split + '.yaml')}: tasks.{key}: no such task for {pid}")
            text, task = canon[key]
            base, base_rgp = plan_of(text, task)
            for para in paraphrases:
                steps, rgp = plan_of(para, task)
                same = steps == base
                ok = agrees(base, steps, base_rgp, rgp)
                rows.append((same, ok))
                if not ok:
                    disagreements.append({"task": key, "paraphrase": para, "canonical_steps": base, "steps": steps,
                                          "rgp_canonical": base_rgp, "rgp": rgp})
    finally:
        store.close()
    return {"split": suite.split, "participant": pid, "n": len(rows),
            "agreement": agreement([ok for _, ok in rows]), "same_steps": agreement([s for s, _ in rows]),
            "disagreements": disagreements}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", default="p06,demo,p28")
    ap.add_argument("--condition", default="memora")
    ap.add_argument("--data", default=None)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--show-disagreements", action="store_true")
    args = ap.parse_args(argv)
    cfg = load_bench_config(None)
    data = BenchData(data_root(args.data))
    t0 = time.perf_counter()
    out = {"condition": args.condition, "splits": {}}
    try:
        with tempfile.TemporaryDirectory(prefix="paraphrase_bench_") as work:
            for split in [s.strip() for s in args.splits.split(",") if s.strip()]:
                out["splits"][split] = run_bench_split(split, args.condition, Path(work), data, cfg)
    except SuiteError as exc:
        print(exc, file=sys.stderr)
        return 2
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"paraphrase agreement ({args.condition}, structured planner); wall {out['wall_s']} s")
    print("split".ljust(8) + "kind".ljust(7) + "n".rjust(5) + "agree".rjust(9) + "same".rjust(9))
    for split, r in out["splits"].items():
        if "skipped" in r:
            print(split.ljust(8) + r["split"].ljust(7) + "  skipped: " + r["skipped"])
            continue
        print(split.ljust(8) + r["split"].ljust(7) + str(r["n"]).rjust(5) + f"{100 * r['agreement']:8.1f}%"
              + f"{100 * r['same_steps']:8.1f}%")
        if args.show_disagreements:
            for d in r["disagreements"]:
                print(f"  {d['task']}: {d['paraphrase']!r} rgp {d['rgp']} vs {d['rgp_canonical']}")
                print(f"     canonical: {d['canonical_steps']}\n     this:      {d['steps']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
