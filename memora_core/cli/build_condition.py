"""`memora build-condition`: build one memory condition from a store's observations and export it."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from memora_core.cli._agents_common import add_store_args, open_store


def _run(args: argparse.Namespace) -> int:
    from memora_core.conditions import CONDITION_IDS, build_condition

    store = open_store(args)
    bank = None
    if args.bank:
        from memora_core.store import MemoryStore

        bank = MemoryStore.open_reader(args.bank)
    ids = CONDITION_IDS if args.condition == "all" else (args.condition,)
    for cid in ids:
        memory = build_condition(cid, store, args.participant, bank_store=bank)
        stats = memory.stats()
        if args.out:
            stats["path"] = str(memory.save(args.out))
        print(json.dumps(stats) if args.json else " ".join(f"{k}={v}" for k, v in stats.items()))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from memora_core.conditions import CONDITION_IDS

    p = sub.add_parser("build-condition", help="build a memory condition (one of the seven) from stored observations")
    add_store_args(p)
    p.add_argument("--condition", required=True, choices=(*CONDITION_IDS, "all"))
    p.add_argument("--bank", type=Path, help="store holding the raw perception records, if not --store")
    p.add_argument("--out", type=Path, help="write the built memory as JSON into this directory")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)
