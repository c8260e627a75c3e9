"""Pydantic models at every seam of the memory lifecycle."""
from memora_core.schemas.activity import Activity, ObjectPlacement, Place
from memora_core.schemas.common import Evidence, StrictModel, unique_evidence
from memora_core.schemas.entity import EditDecision, EditOp, EntityObservation, EntityRecord
from memora_core.schemas.knowledge import Preference, RoutineSkill
from memora_core.schemas.observation import (
    ActionObservation,
    ObjectObservation,
    Segment,
    SegmentObservation,
    segment_id_for,
)
from memora_core.schemas.plan import Plan, PlanStep

__all__ = [
    "Activity", "ActionObservation", "EditDecision", "EditOp", "EntityObservation", "EntityRecord",
    "Evidence", "ObjectObservation", "ObjectPlacement", "Place", "Plan", "PlanStep", "Preference",
    "RoutineSkill", "Segment", "SegmentObservation", "StrictModel", "segment_id_for", "unique_evidence",
]
