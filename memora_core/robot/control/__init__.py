"""The robot controller as a package: `controller` (the orchestrator), `failures` (typed causes), `resolve`
and `targets` (what the plan's words mean), `geometry` (table-space numpy), `grasping`, `arm_motion`,
`transit`, `putdown`, `skills/` (one per primitive), `recovery` (ordered step-level recoveries) and `state`
(the held-object state)."""
from memora_core.robot.control.controller import RuleBasedController
from memora_core.robot.control.failures import FailureCause, FailureReason, PrimitiveFailure, StepResult
from memora_core.robot.control.resolve import match_score

__all__ = ["FailureCause", "FailureReason", "PrimitiveFailure", "RuleBasedController", "StepResult", "match_score"]
