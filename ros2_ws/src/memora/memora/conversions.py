"""memora_core pydantic models <-> memora_interfaces messages. Empty strings stand for None on the wire."""
from __future__ import annotations

import json

from memora_core.schemas import Plan, PlanStep
from memora_core.schemas.common import Evidence
from memora_interfaces.msg import Evidence as EvidenceMsg
from memora_interfaces.msg import Plan as PlanMsg
from memora_interfaces.msg import PlanStep as PlanStepMsg


def _opt(value: str) -> str | None:
    return value or None


def evidence_to_msg(ev: Evidence) -> EvidenceMsg:
    return EvidenceMsg(video_id=ev.video_id, start_s=float(ev.start_s), end_s=float(ev.end_s),
                       segment_id=ev.segment_id or "")


def evidence_from_msg(msg: EvidenceMsg) -> Evidence:
    return Evidence(video_id=msg.video_id, start_s=msg.start_s, end_s=msg.end_s, segment_id=_opt(msg.segment_id))


def step_to_msg(step: PlanStep) -> PlanStepMsg:
    return PlanStepMsg(index=step.index, action=step.action, object=step.object or "", target=step.target or "",
                       text=step.text, entity_id=step.entity_id or "",
                       evidence=[evidence_to_msg(e) for e in step.evidence])


def step_from_msg(msg: PlanStepMsg) -> PlanStep:
    return PlanStep(index=msg.index, action=msg.action, object=_opt(msg.object), target=_opt(msg.target),
                    text=msg.text, entity_id=_opt(msg.entity_id), evidence=[evidence_from_msg(e) for e in msg.evidence])


def plan_to_msg(plan: Plan) -> PlanMsg:
    return PlanMsg(participant_id=plan.participant_id, instruction=plan.instruction,
                   steps=[step_to_msg(s) for s in plan.steps], planner=plan.planner, condition=plan.condition,
                   routine_id=plan.routine_id or "", preferences_used=list(plan.preferences_used),
                   missing=list(plan.missing), evidence=[evidence_to_msg(e) for e in plan.evidence],
                   tool_calls_json=json.dumps(plan.tool_calls, default=str))


def plan_from_msg(msg: PlanMsg) -> Plan:
    """Validated by pydantic: a malformed plan from the wire is refused with the field named."""
    calls = json.loads(msg.tool_calls_json) if msg.tool_calls_json else []
    if not isinstance(calls, list):
        raise ValueError("Plan.tool_calls_json must be a JSON list")
    return Plan(participant_id=msg.participant_id, instruction=msg.instruction,
                steps=[step_from_msg(s) for s in msg.steps], planner=msg.planner, condition=msg.condition or "memora",
                routine_id=_opt(msg.routine_id), preferences_used=list(msg.preferences_used),
                missing=list(msg.missing), evidence=[evidence_from_msg(e) for e in msg.evidence], tool_calls=calls)
