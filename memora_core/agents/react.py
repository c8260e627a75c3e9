"""ReAct agents over an LLM backend: a planner (<= max_iterations, the last one forced) and the EAM-QA
answerer (<= max_answer_searches tool calls, then one letter). Model output is untrusted: a reply that
parses to nothing usable is recorded and the loop moves on; the forced last turn removes the tools,
summarises the calls made so far and demands the final plan/letter. Both always return a result.

Each reply is bounded and sanitised once (`bounded_reply`) and parsed under its own `ParseBudget`
(`parse_budget_s`); a parse that runs out of it, refuses too-deep JSON or reads a truncated reply is
recorded as a typed `ParseFailure` (counted in `parse_failures`, and named in the plan's `missing`)."""
from __future__ import annotations

import json
import logging
from collections import Counter
from typing import Any

from memora_core.agents.answering import AnswerResult
from memora_core.agents.calls import CallLog
from memora_core.agents.config import AgentsConfig, load_agents_config
from memora_core.agents.planning import split_label
from memora_core.agents.prompts import answerer_system, final_answer_demand, final_plan_demand, planner_system
from memora_core.llm.base import LLMBackend, LLMReply
from memora_core.llm.parsing import (
    PARSE_BUDGET_S,
    ParseBudget,
    ParseFailure,
    bounded_reply,
    parse_answer,
    parse_api_tool_calls,
    parse_plan,
    parse_tool_calls,
)
from memora_core.schemas import Evidence, Plan, PlanStep, unique_evidence
from memora_core.schemas.clean import clean_text

log = logging.getLogger(__name__)
_MAX_OBS_CHARS = 1500


def _summary(calls: list[dict[str, Any]], observations: list[str]) -> str:
    lines = []
    for c, obs in zip(calls, observations):
        lines.append(f"- {c['tool']}({json.dumps(c['args'], default=str)[:120]}): {obs[:300]}")
    return "\n".join(lines)


class _ReActBase:
    def __init__(self, memory: Any, llm: LLMBackend, config: AgentsConfig | None = None) -> None:
        if llm is None:
            raise ValueError("a react agent needs an LLM backend (robot_configs/llm.yaml); use 'structured' without")
        self.memory, self.llm = memory, llm
        self.cfg = config or load_agents_config()
        self.family = getattr(memory, "family", "memora")
        self.parse_budget_s = PARSE_BUDGET_S
        self.parse_failures: Counter[ParseFailure] = Counter()  # over every call of this agent

    def _ask(self, messages: list[dict], tools: list[dict] | None,
             failures: list[str]) -> tuple[LLMReply, ParseBudget]:
        """The model's reply, its text bounded and sanitised, and the budget its parses run under."""
        try:
            reply = self.llm.chat(messages, tools)
        except Exception as exc:  # a backend failure is recorded; the loop goes on to the forced turn
            failures.append(f"llm error: {type(exc).__name__}: {clean_text(str(exc), 200)}")
            return LLMReply(text=""), ParseBudget(self.parse_budget_s)
        budget = ParseBudget(self.parse_budget_s)  # parsing's deadline: it starts once the model has replied
        if not isinstance(reply, LLMReply):
            reply = LLMReply(text=bounded_reply(str(reply), budget))
        native = parse_api_tool_calls([{"name": c.name, "arguments": c.arguments, "id": c.id}
                                       for c in reply.tool_calls[:1]], budget=budget)
        return LLMReply(text=bounded_reply(reply.text, budget), tool_calls=native,
                        finish_reason=reply.finish_reason), budget

    def _record(self, it: int, budget: ParseBudget, failures: list[str]) -> None:
        """The reply's typed parse failures, counted and named in the record (`missing`)."""
        for failure in budget.failures:
            self.parse_failures[failure] += 1
            failures.append(f"turn {it}: reply parse failure: {failure.value}")

    def _run_tool_calls(self, reply: LLMReply, pbudget: ParseBudget, calllog: CallLog, messages: list[dict],
                        observations: list[str], budget: int, evidence: list[Evidence]) -> int:
        calls = reply.tool_calls or parse_tool_calls(reply.text, budget=pbudget)
        used = 0
        for call in calls[:1]:  # one call per turn keeps the budget honest
            if len(calllog.calls) >= budget:
                break
            result = calllog.call(call.name, call.arguments)
            obs = result.text if result.ok else f"ERROR: {result.error}"
            evidence += result.evidence
            observations.append(obs)
            messages.append({"role": "assistant", "content": reply.text or json.dumps(
                {"name": call.name, "arguments": call.arguments})})
            messages.append({"role": "user", "content": f"Observation from {call.name}:\n{obs[:_MAX_OBS_CHARS]}"})
            used += 1
        return used


class ReActPlanner(_ReActBase):
    kind = "react"

    def plan(self, instruction: str) -> Plan:
        calllog = CallLog(self.memory)
        specs = self.memory.specs()
        tools = self.memory.tool_specs() or None
        messages = [{"role": "system", "content": planner_system(self.memory.condition_id, self.family,
                                                                 self.memory.participant_id, specs)},
                    {"role": "user", "content": f"Task: {instruction}"}]
        observations: list[str] = []
        failures: list[str] = []
        evidence: list[Evidence] = []
        steps: list[str] = []
        n = self.cfg.agents.max_iterations
        for it in range(n):
            forced = it == n - 1 or not tools
            if forced:
                messages.append({"role": "user", "content": final_plan_demand(_summary(calllog.calls, observations))})
            reply, pbudget = self._ask(messages, None if forced else tools, failures)
            used = not forced and self._run_tool_calls(reply, pbudget, calllog, messages, observations, n - 1,
                                                       evidence)
            steps = [] if used else parse_plan(reply.text, budget=pbudget)
            self._record(it, pbudget, failures)
            if used:
                continue
            if steps:
                break
            if forced:
                failures.append("final turn produced no parsable plan")
                break
            failures.append(f"turn {it}: neither a tool call nor a plan")
            messages.append({"role": "assistant", "content": reply.text[:500]})
            messages.append({"role": "user", "content": "Call one tool as JSON, or reply 'Plan:' with numbered steps."})
        ev = unique_evidence(evidence)[:30]
        plan = Plan(participant_id=self.memory.participant_id, instruction=instruction, planner=self.kind,
                    condition=self.memory.condition_id, missing=failures if not steps else [],
                    tool_calls=calllog.calls, evidence=ev)
        plan.steps = [PlanStep(index=i, action=a, object=o, target=t, text=s)
                      for i, s in enumerate(steps[: self.cfg.agents.max_plan_steps]) for a, o, t in [split_label(s)]]
        return plan


class ReActAnswerer(_ReActBase):
    kind = "react"

    def answer(self, question: str, choices: dict[str, str]) -> AnswerResult:
        calllog = CallLog(self.memory)
        budget = self.cfg.agents.max_answer_searches
        tools = self.memory.tool_specs() or None
        opts = "\n".join(f"{k}. {v}" for k, v in sorted(choices.items()))
        messages = [{"role": "system", "content": answerer_system(self.memory.condition_id, self.family,
                                                                  self.memory.participant_id, self.memory.specs(),
                                                                  budget)},
                    {"role": "user", "content": f"{question}\n{opts}"}]
        observations: list[str] = []
        failures: list[str] = []
        evidence: list[Evidence] = []
        raw = ""
        for it in range(budget + 1):
            forced = it == budget or not tools or len(calllog.calls) >= budget
            if forced:
                messages.append({"role": "user", "content": final_answer_demand(_summary(calllog.calls, observations))})
            reply, pbudget = self._ask(messages, None if forced else tools, failures)
            raw = reply.text
            used = not forced and self._run_tool_calls(reply, pbudget, calllog, messages, observations, budget,
                                                       evidence)
            letter = None if used else parse_answer(raw, choices, budget=pbudget)
            self._record(it, pbudget, failures)
            if used:
                continue
            if letter is not None or forced:
                return AnswerResult(letter, unique_evidence(evidence)[:20], calllog.calls, raw)
            messages.append({"role": "assistant", "content": raw[:500]})
            messages.append({"role": "user", "content": "Call one tool as JSON, or reply 'Answer: <letter>'."})
        return AnswerResult(parse_answer(raw, choices, budget=ParseBudget(self.parse_budget_s)),
                            unique_evidence(evidence)[:20], calllog.calls, raw)
