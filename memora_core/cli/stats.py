"""`memora stats`: compression ratio and decision profile of one participant's memory."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def stats_dict(store: Any, participant_id: str) -> dict[str, Any]:
    """The figures `memora stats` prints (also used by the formation benchmark)."""
    st = store.stats(participant_id)
    total = sum(st.decisions.values())
    pct = {op: round(100.0 * n / total, 1) if total else 0.0 for op, n in st.decisions.items()}
    ever = st.entities + st.entities_deleted
    converted = int(store.query("SELECT COUNT(*) FROM edit_decisions WHERE participant_id = ? AND "
                                "converted_from IS NOT NULL", (participant_id,))[0][0])
    return {
        "participant_id": participant_id,
        "compression_ratio": round(st.compression_ratio, 3),
        "compression_ratio_all_entities": round(st.entity_observations / ever, 3) if ever else 0.0,
        "decisions": dict(st.decisions),
        "decision_pct": pct,
        "decisions_converted": converted,
        "entities": st.entities,
        "entities_deleted": st.entities_deleted,
        "entity_observations": st.entity_observations,
        "activities": st.activities,
        "segments": st.segments,
        "places": st.places,
        "routines": st.routines,
        "preferences": st.preferences,
    }


def _stats(args: argparse.Namespace) -> int:
    from memora_core.store.sqlite_store import SQLiteStore

    store = SQLiteStore(args.store, readonly=True)
    try:
        participants = [args.participant] if args.participant else store.participants()
        out = [stats_dict(store, p) for p in participants]
    finally:
        store.close()
    if args.json:
        print(json.dumps(out[0] if args.participant else out, indent=None))
        return 0
    for s in out:
        d, p = s["decisions"], s["decision_pct"]
        print(f"participant {s['participant_id']}: {s['segments']} segments, {s['activities']} activities, "
              f"{s['places']} places")
        print(f"  entities retained {s['entities']} (deleted {s['entities_deleted']}), "
              f"entity observations {s['entity_observations']}")
        print(f"  compression ratio {s['compression_ratio']:.2f}x "
              f"({s['compression_ratio_all_entities']:.2f}x counting deleted entities)")
        print("  decisions " + ", ".join(f"{op} {d[op]} ({p[op]}%)" for op in ("add", "update", "delete", "noop"))
              + f"; {s['decisions_converted']} converted")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stats", help="compression ratio and decision profile of a store",
                       description="Compression = entity observations (append-only) / unique entities retained.")
    p.add_argument("--store", required=True, type=Path, help="store directory")
    p.add_argument("--participant", help="participant id (default: every participant in the store)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_stats)
