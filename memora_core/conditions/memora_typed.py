"""MEMORA-Episodic (typed Entity/Activity/Environment stores) and MEMORA (plus Inferred Knowledge)."""
from __future__ import annotations

import logging
from typing import Any

from memora_core.conditions.base import ConditionMemory
from memora_core.store.sqlite_store import SQLiteStore
from memora_core.tools.memora_tools import MemoraTools

log = logging.getLogger(__name__)


class MemoraMemory(MemoraTools, ConditionMemory):
    family = "memora"

    def __init__(self, condition_id: str, store: SQLiteStore, participant_id: str) -> None:
        self.condition_id = condition_id
        self.participant_id = participant_id
        full = condition_id == "memora"
        routines = preferences = None
        if full and not store.preferences(participant_id):
            # Not consolidated yet, or consolidated before preferences and habits were typed records (the
            # schema migration removed those rows): mine in memory so the condition is complete; nothing is
            # written.
            from memora_core.consolidation.run import mine

            log.warning("participant %s has no Inferred Knowledge in %s; mining it in memory (run `memora "
                        "consolidate` to store it)", participant_id, store.root)
            routines, preferences = mine(store, participant_id)
        MemoraTools.__init__(self, store, participant_id, include_knowledge=full, routines=routines,
                             preferences=preferences)

    def stats(self) -> dict[str, Any]:
        return {"condition": self.condition_id, "participant": self.participant_id, "tools": self.tool_names,
                "entities": len(self.entities), "activities": len(self.activities),
                "routines": len(self.routines), "preferences": len(self.preferences)}

    def export(self) -> dict[str, Any]:
        return {**self.stats(), "routines": [r.model_dump(mode="json") for r in self.routines],
                "preferences": [p.model_dump(mode="json") for p in self.preferences]}
