"""Offline consolidation: Activity/Entity memory of one participant -> routines + typed preferences and habits.

Contract: `consolidate(store, participant_id, llm=None, config=None) -> (routines, knowledge)` (knowledge:
the typed Preference and Habit records, strongest first); the
result replaces the participant's previous Inferred Knowledge in one transaction. It is a pure function
of the stored episodes (deterministic ids and order), so re-running is idempotent and new episodes
update it.
"""
from __future__ import annotations

import logging

from memora_core.agents.config import ConsolidationConfig, load_agents_config
from memora_core.consolidation.enrichment import enrich_routines
from memora_core.consolidation.preferences import mine_preferences
from memora_core.consolidation.procedures import steps_from_activities
from memora_core.consolidation.routines import mine_routines
from memora_core.consolidation.speech import name_from_speech
from memora_core.llm.base import LLMBackend
from memora_core.schemas import RoutineSkill
from memora_core.schemas.knowledge import Knowledge
from memora_core.store.sqlite_store import SQLiteStore

log = logging.getLogger(__name__)


def mine(store: SQLiteStore, participant_id: str, config: ConsolidationConfig | None = None,
         ) -> tuple[list[RoutineSkill], list[Knowledge]]:
    """Mine without writing (used by consolidate and by read-only condition builders)."""
    cfg = config or load_agents_config().consolidation
    activities = store.activities(participant_id)
    per_video = steps_from_activities(activities)
    entities = store.entities(participant_id)
    attributed = [e for e in entities if e.attributes]
    histories = {e.entity_id: store.entity_history(e.entity_id, participant_id) for e in attributed}
    routines = name_from_speech(mine_routines(participant_id, per_video, cfg), activities)
    prefs = mine_preferences(participant_id, per_video, entities, histories, cfg)
    return routines, prefs


def consolidate(store: SQLiteStore, participant_id: str, llm: LLMBackend | None = None,
                config: ConsolidationConfig | None = None) -> tuple[list[RoutineSkill], list[Knowledge]]:
    routines, prefs = mine(store, participant_id, config)
    routines, enriched = enrich_routines(routines, llm)
    store.replace_knowledge(participant_id, routines, prefs)
    log.info("consolidated %s: %d routines (%d enriched), %d preferences and habits", participant_id,
             len(routines), enriched, len(prefs))
    return routines, prefs
