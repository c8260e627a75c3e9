"""`memora plan`: plan a task for a participant from memory (structured by default, react with an LLM)."""
from __future__ import annotations

import argparse
import json
import time

from memora_core.cli._agents_common import add_semantic_arg, add_store_args, make_llm_from, open_store


def _run(args: argparse.Namespace) -> int:
    from memora_core.agents import make_planner, store_shares
    from memora_core.agents.config import load_agents_config
    from memora_core.conditions import build_condition

    t0 = time.perf_counter()
    store = open_store(args)
    memory = build_condition(args.condition, store, args.participant)
    llm = make_llm_from(args) if args.planner == "react" else None
    if args.planner == "react" and llm is None:
        raise ValueError("--planner react needs an LLM backend in robot_configs/llm.yaml (backend: none)")
    plan = make_planner(args.planner, memory, llm, load_agents_config(args.agents_config)).plan(args.instruction)
    wall = time.perf_counter() - t0
    if args.json:
        out = plan.model_dump(mode="json")
        out["store_shares"] = store_shares(plan.tool_calls)
        out["wall_s"] = round(wall, 3)
        print(json.dumps(out, indent=1))
    else:
        print(f"plan for {plan.participant_id} ({plan.planner}, {plan.condition}): {plan.instruction}")
        if plan.routine_id:
            print(f"  routine: {plan.routine_id}; preferences: {', '.join(plan.preferences_used) or '-'}")
        for s in plan.steps:
            cites = ", ".join(e.cite() for e in s.evidence[:2])
            print(f"  {s.index + 1}. {s.render()}" + (f"  [{s.entity_id}]" if s.entity_id else "")
                  + (f"  ({cites})" if cites else ""))
        for m in plan.missing:
            print(f"  ! {m}")
        print(f"  tool calls: {len(plan.tool_calls)}  per store: {store_shares(plan.tool_calls)}  ({wall:.2f}s)")
    return 0 if plan.steps else 1


def register(sub: argparse._SubParsersAction) -> None:
    from memora_core.conditions import CONDITION_IDS

    p = sub.add_parser("plan", help="plan a task from a participant's memory")
    add_store_args(p)
    add_semantic_arg(p)
    p.add_argument("instruction", help='e.g. "Help P06 wash the bowl"')
    p.add_argument("--planner", choices=["structured", "react"], default="structured")
    p.add_argument("--condition", choices=CONDITION_IDS, default="memora")
    p.add_argument("--json", action="store_true", help="print the Plan as JSON")
    p.set_defaults(func=_run)
