"""`memora reindex`: rebuild the vector index of a store from its SQLite system of record."""
from __future__ import annotations

import argparse
import json

from memora_core.config import load_config


def _reindex(args: argparse.Namespace) -> int:
    from memora_core.store import MemoryStore

    store = MemoryStore.open_writer(args.store, load_config(args.config))  # rebuilding the index writes
    try:
        counts = store.reindex()
    finally:
        store.close()
    print(json.dumps(counts) if args.json else "\n".join(f"{k}: {v}" for k, v in counts.items()))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("reindex", help="rebuild the Chroma index of a store from SQLite")
    p.add_argument("--store", required=True, help="store directory")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_reindex)
