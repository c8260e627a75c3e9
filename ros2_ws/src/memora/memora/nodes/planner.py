"""Planner node: text instructions (topic or SendInstruction service) -> a memora Plan grounded in memory.

A thin adapter over `memora_core.agents.make_planner(kind, memory)` with the `memora` condition built from
the store the memory writer owns (opened read-only here and kept: before each instruction the view is
refreshed with only what was committed since the last one, so new memories and consolidated knowledge are
always seen and a plan costs the same whatever the size of memory; memora_core.conditions.live). Every
plan is published (latched) on the plan topic. A plan that memory cannot ground (Plan.missing) is still
published, and the service answers ok=false with a message saying what is missing, so a caller never
executes a guess.
"""
from __future__ import annotations

import sys
import threading

from pydantic import BaseModel, ConfigDict, Field
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from memora.common import declare_params, run_node
from memora.conversions import plan_to_msg
from memora_core.schemas import Plan
from memora_interfaces.msg import Instruction, NodeStatus
from memora_interfaces.msg import Plan as PlanMsg
from memora_interfaces.srv import SendInstruction


class PlannerParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    store_dir: str = Field(default="runs/demo/memory", description="memory store directory (the writer's)")
    participant_id: str = Field(default="P01", description="used when an instruction names no participant")
    planner: str = Field(default="structured", description="memora_core.agents planner kind")
    condition: str = Field(default="memora", description="memory condition the planner reads")
    llm_backend: str = Field(default="none", description="LLM backend name for the react planner (none = off)")
    max_tool_calls: int = Field(default=0, ge=0, description="tool-call budget per plan; 0 = agents.yaml's "
                                "(the benchmark budget; a robot grounding every object of a long routine needs more)")
    instruction_topic: str = "/memora/instruction"
    plan_topic: str = "/memora/plan"
    service_name: str = "/memora/send_instruction"
    status_topic: str = "/memora/status"


def refusal(plan: Plan) -> str | None:
    """Why a plan must not be executed, in words, or None when it is executable."""
    if not plan.steps:
        return f"no plan for {plan.instruction!r}: memory holds nothing to ground it"
    if plan.missing:
        return f"cannot ground {plan.instruction!r} in memory: " + "; ".join(plan.missing)
    return None


class PlannerNode(Node):
    def __init__(self) -> None:
        super().__init__("planner")
        self.p: PlannerParams = declare_params(self, PlannerParams)
        self._llm = self._make_llm()
        self._agents = self._agents_config()  # read once: parsing agents.yaml per plan cost ~0.1 s a call
        from memora_core.conditions.live import LiveConditions

        self._memory = LiveConditions(self.p.store_dir, self.p.condition)  # kept; refreshed per plan
        self._lock = threading.Lock()  # one plan at a time: the store snapshot and the log stay coherent
        latched = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        self.plan_pub = self.create_publisher(PlanMsg, self.p.plan_topic, latched)
        self.status_pub = self.create_publisher(NodeStatus, self.p.status_topic, latched)
        group = MutuallyExclusiveCallbackGroup()
        self.create_subscription(Instruction, self.p.instruction_topic, self._on_instruction, reliable,
                                 callback_group=group)
        self.create_service(SendInstruction, self.p.service_name, self._on_request, callback_group=group)
        self._status(NodeStatus.STATE_READY, f"planner={self.p.planner} store={self.p.store_dir}")
        self.get_logger().info(f"planner ready: {self.p.planner} over {self.p.store_dir}")

    def _make_llm(self):  # noqa: ANN202 - any LLMBackend
        if self.p.llm_backend == "none":
            if self.p.planner == "react":
                raise ValueError("planner=react needs llm_backend (e.g. openai_http); none is configured")
            return None
        from memora_core.llm.base import load_llm_config, make_llm

        return make_llm(load_llm_config().model_copy(update={"backend": self.p.llm_backend}))

    def _status(self, state: str, message: str) -> None:
        msg = NodeStatus(node=self.get_name(), state=state, message=message)
        msg.header.stamp = self.get_clock().now().to_msg()
        self.status_pub.publish(msg)

    def make_plan(self, participant_id: str, text: str) -> Plan:
        from memora_core.agents import make_planner

        pid = participant_id or self.p.participant_id
        memory = self._memory.get(pid)
        if memory is None:
            return Plan(participant_id=pid, instruction=text, planner=self.p.planner, condition=self.p.condition,
                        missing=[f"no memory store at {self.p.store_dir}: no demonstrations were seen yet"])
        return make_planner(self.p.planner, memory, llm=self._llm, config=self._agents).plan(text)

    def destroy_node(self) -> None:
        self._memory.close()
        super().destroy_node()

    def _agents_config(self):  # noqa: ANN202 - AgentsConfig
        from memora_core.agents.config import load_agents_config

        cfg = load_agents_config()
        if not self.p.max_tool_calls:
            return cfg
        return cfg.model_copy(update={"agents": cfg.agents.model_copy(update={"max_iterations": self.p.max_tool_calls})})

    def _plan_and_publish(self, participant_id: str, text: str) -> tuple[Plan, str | None]:
        with self._lock:
            self._status(NodeStatus.STATE_BUSY, f"planning {text!r}")
            plan = self.make_plan(participant_id, text)
            why = refusal(plan)
            msg = plan_to_msg(plan)
            msg.header.stamp = self.get_clock().now().to_msg()
            self.plan_pub.publish(msg)
            self._status(NodeStatus.STATE_READY, why or f"plan with {len(plan.steps)} steps")
            if why:
                self.get_logger().warning(why)
            else:
                self.get_logger().info(f"plan for {text!r}: " + " | ".join(s.render() for s in plan.steps))
            return plan, why

    def _on_instruction(self, msg: Instruction) -> None:
        if not msg.text.strip():
            self.get_logger().warning("empty instruction ignored")
            return
        self._plan_and_publish(msg.participant_id, msg.text)

    def _on_request(self, req: SendInstruction.Request, resp: SendInstruction.Response) -> SendInstruction.Response:
        if not req.text.strip():
            resp.ok, resp.message = False, "empty instruction"
            return resp
        plan, why = self._plan_and_publish(req.participant_id, req.text)
        resp.plan = plan_to_msg(plan)
        resp.ok = why is None
        resp.message = why or f"plan with {len(plan.steps)} steps"
        return resp


def main(argv: list[str] | None = None) -> int:
    return run_node(PlannerNode, argv)


if __name__ == "__main__":
    sys.exit(main())
