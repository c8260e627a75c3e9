"""LLM editor backend: the model picks the op and target for each object, as JSON.

The reply is untrusted: it is parsed defensively (fenced or embedded JSON, lenient field names; linear,
depth-bounded, sanitised and under a per-reply ParseBudget, see memora_core.llm.parsing) and validated;
a reply that is not a valid decision is retried, then the deterministic decision is used and the
fallback is logged in the decision's reason. Each parse failure is counted by type (`parse_failures`).
Nothing here can lose a segment or raise on bad output.
"""
from __future__ import annotations

import json
import logging
import os
from collections import Counter
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memora_core.editing.candidates import Candidate
from memora_core.editing.config import LlmDeciderConfig
from memora_core.editing.deciders import DecisionContext, Decider
from memora_core.llm.parsing import ParseBudget, ParseFailure, ReplyParseError
from memora_core.perception.vlm import extract_json_object
from memora_core.schemas import EditDecision, EditOp, ObjectObservation

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You maintain a robot's memory of the objects in one person's kitchen. For one newly observed object "
    "and the remembered entities that might be the same object, decide one operation: "
    '"add" (a new object, none of the candidates), "update" (the same object as a candidate, and its state, '
    'location or attributes changed), "noop" (the same object, nothing new), or "delete" (evidence shows a '
    "candidate identification was wrong or the object no longer exists). Reply with ONE JSON object: "
    '{"op": "add|update|noop|delete", "target_entity_id": str|null, "reason": str}.'
)


class ChatModel(Protocol):
    def complete(self, messages: list[dict[str, Any]]) -> str: ...


class OpenAIChat:
    """`complete(messages) -> str` over any OpenAI-compatible chat endpoint (vLLM, llama.cpp, ...)."""

    def __init__(self, cfg: LlmDeciderConfig) -> None:
        from openai import OpenAI

        self.cfg = cfg
        self.client = OpenAI(base_url=cfg.base_url, api_key=os.environ.get(cfg.api_key_env, "EMPTY"),
                             timeout=cfg.timeout_s, max_retries=1)

    def complete(self, messages: list[dict[str, Any]]) -> str:
        resp = self.client.chat.completions.create(model=self.cfg.model, messages=messages,
                                                   temperature=self.cfg.temperature, max_tokens=self.cfg.max_tokens)
        return resp.choices[0].message.content or ""


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    op: EditOp
    target_entity_id: str | None = Field(default=None, alias="target_entity_id")
    reason: str = "llm decision"

    @field_validator("op", mode="before")
    @classmethod
    def _op(cls, v: Any) -> Any:
        return str(v).strip().lower() if v is not None else v

    @field_validator("reason", mode="before")
    @classmethod
    def _reason(cls, v: Any) -> Any:
        return str(v).strip() or "llm decision" if v is not None else "llm decision"


def _candidate_view(c: Candidate) -> dict[str, Any]:
    e = c.entity
    return {"entity_id": e.entity_id, "name": e.name, "aliases": e.aliases, "attributes": e.attributes,
            "state": e.state, "location": e.location, "last_seen": f"{e.last_seen_video}@{e.last_seen_s:.0f}s",
            "match": c.reasons}


class LlmDecider(Decider):
    name = "llm"

    def __init__(self, chat: ChatModel, cfg: LlmDeciderConfig, fallback: Decider) -> None:
        self.chat = chat
        self.cfg = cfg
        self.fallback = fallback
        self.fallbacks = 0
        self.parse_failures: Counter[ParseFailure] = Counter()

    def messages(self, obs: ObjectObservation, candidates: list[Candidate], ctx: DecisionContext) -> list[dict]:
        payload = {"segment": ctx.segment_id, "segment_summary": ctx.summary,
                   "observed_object": obs.model_dump(exclude_none=True),
                   "candidates": [_candidate_view(c) for c in candidates]}
        return [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": json.dumps(payload, sort_keys=True)}]

    def propose(self, obs: ObjectObservation, candidates: list[Candidate], ctx: DecisionContext) -> EditDecision:
        messages = self.messages(obs, candidates, ctx)
        problem = ""
        for attempt in range(1, self.cfg.max_attempts + 1):
            try:
                text = self.chat.complete(messages)
            except Exception as exc:  # noqa: BLE001 - any transport failure falls back, never loses the segment
                problem = f"llm call failed: {type(exc).__name__}: {exc}"
                log.warning("%s (attempt %d/%d, %s)", problem, attempt, self.cfg.max_attempts, ctx.segment_id)
                continue
            try:
                raw = extract_json_object(text, ParseBudget())
                if not isinstance(raw, dict):
                    raise ReplyParseError(ParseFailure.NOT_OBJECT, f"reply JSON is a {type(raw).__name__}")
                reply = _Reply.model_validate(raw)
            except (ReplyParseError, ValidationError) as exc:
                if isinstance(exc, ReplyParseError):
                    self.parse_failures[exc.failure] += 1
                problem = f"invalid llm reply: {str(exc).splitlines()[0][:160]}"
                log.warning("%s (attempt %d/%d, %s)", problem, attempt, self.cfg.max_attempts, ctx.segment_id)
                continue
            target = reply.target_entity_id if reply.op != EditOp.ADD else None
            if reply.op != EditOp.ADD and not target:
                target = "<missing>"  # normalise() turns an Update/Noop/Delete without a known id into Add/Noop
            return EditDecision(op=reply.op, observed_name=obs.name, target_entity_id=target,
                                reason=f"llm: {reply.reason}")
        self.fallbacks += 1
        d = self.fallback.propose(obs, candidates, ctx)
        log.warning("llm editor fell back to %s for %r in %s: %s", self.fallback.name, obs.name, ctx.segment_id,
                    problem)
        return d.model_copy(update={"reason": f"{d.reason} [llm fallback after {self.cfg.max_attempts} "
                                              f"attempts: {problem}]"})
