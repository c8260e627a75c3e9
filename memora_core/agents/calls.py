"""Tool-call logging shared by every agent: each call is recorded with the store that answered it."""
from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any

from memora_core.tools.registry import ToolResult, ToolSet

log = logging.getLogger("memora.agents.calls")


class CallLog:
    def __init__(self, memory: ToolSet) -> None:
        self.memory = memory
        self.calls: list[dict[str, Any]] = []

    def call(self, tool: str, args: Any) -> ToolResult:
        t0 = time.perf_counter()
        result = self.memory.call(tool, args)
        rec = {"tool": result.tool, "args": args if isinstance(args, dict) else {"_raw": repr(args)[:200]},
               "store": result.store, "ok": result.ok, "items": len(result.items), "error": result.error,
               "ms": round(1000 * (time.perf_counter() - t0), 2)}
        self.calls.append(rec)
        log.info("tool %s(%s) -> %s ok=%s items=%d", rec["tool"], str(rec["args"])[:120], rec["store"], rec["ok"],
                 rec["items"])
        return result

    def share_per_store(self) -> dict[str, float]:
        return store_shares(self.calls)


def store_shares(calls: list[dict[str, Any]]) -> dict[str, float]:
    """Share of tool calls answered by each memory store (0..1, sums to 1 when there were calls)."""
    counts = Counter(c.get("store", "none") for c in calls)
    total = sum(counts.values())
    return {k: round(v / total, 4) for k, v in sorted(counts.items())} if total else {}
