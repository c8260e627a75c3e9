"""`memora consolidate`: mine routines and preferences for one participant and store them (idempotent)."""
from __future__ import annotations

import argparse
import json
import time

from memora_core.cli._agents_common import add_store_args, make_llm_from, open_store


def _run(args: argparse.Namespace) -> int:
    from memora_core.agents.config import load_agents_config
    from memora_core.consolidation import consolidate

    store = open_store(args, readonly=False)
    if args.participant not in store.participants():
        raise ValueError(f"participant {args.participant!r} has no segments in {args.store}")
    llm = make_llm_from(args, "none" if args.no_llm else None)
    t0 = time.perf_counter()
    routines, prefs = consolidate(store, args.participant, llm, load_agents_config(args.agents_config).consolidation)
    wall = time.perf_counter() - t0
    store.close()
    if args.json:
        print(json.dumps({"participant": args.participant, "routines": len(routines), "preferences": len(prefs),
                          "wall_s": round(wall, 3)}))
    else:
        print(f"{args.participant}: {len(routines)} routines, {len(prefs)} preferences in {wall:.2f}s")
        for r in routines[: args.show]:
            print("  " + r.describe()[:220])
        for p in prefs[: args.show]:
            print("  " + p.describe()[:220])
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("consolidate", help="mine routines and preferences (Inferred Knowledge) for a participant")
    add_store_args(p)
    p.add_argument("--no-llm", action="store_true", help="skip LLM enrichment even if llm.yaml configures one")
    p.add_argument("--show", type=int, default=5, help="how many routines/preferences to print")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=_run)
