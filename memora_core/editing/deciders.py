"""Editor backends: given an observed object and its candidates, choose Add / Update / Delete / Noop.

Both deciders share one interface (`Decider.decide`) and one post-processing step (`normalise`) that
applies the robust conversions and logs them, so the memory they produce is shaped the same way:

- Update/Noop naming an unknown entity id      → Add
- Delete naming an unknown id                  → Noop on the best candidate (Add when there is none)
- Update that changes nothing                  → Noop
- Noop although state/location/attributes changed → Update
Each conversion keeps the original op in `EditDecision.converted_from` and is logged.

`make_decider(config)` builds the configured decider ('deterministic' is the CPU default).
"""
from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from memora_core.editing.candidates import Candidate
from memora_core.editing.config import DeterministicConfig, EditorConfig
from memora_core.schemas import EditDecision, EditOp, EntityRecord, ObjectObservation

log = logging.getLogger(__name__)


@dataclass
class DecisionContext:
    """What a decider may know besides the object: the segment and the live entities by id."""

    participant_id: str
    segment_id: str
    known: dict[str, EntityRecord] = field(default_factory=dict)
    summary: str = ""


def entity_changes(obs: ObjectObservation, entity: EntityRecord) -> dict[str, Any]:
    """What this observation would change on the entity (empty: nothing new)."""
    changes: dict[str, Any] = {}
    if obs.state and obs.state != entity.state:
        changes["state"] = obs.state
    if obs.location and obs.location != entity.location:
        changes["location"] = obs.location
    new_attrs = {k: v for k, v in obs.attributes().items() if k not in entity.attributes}
    if new_attrs:
        changes["attributes"] = new_attrs
    new_aliases = [a for a in [obs.name, *obs.aliases] if a != entity.name and a not in entity.aliases]
    if new_aliases:
        changes["aliases"] = sorted(set(new_aliases))
    return changes


def snapshot(entity: EntityRecord) -> dict[str, Any]:
    return {"name": entity.name, "state": entity.state, "location": entity.location,
            "attributes": dict(entity.attributes), "aliases": list(entity.aliases)}


class Decider(ABC):
    name = "abstract"

    @abstractmethod
    def propose(self, obs: ObjectObservation, candidates: list[Candidate], ctx: DecisionContext) -> EditDecision:
        """The backend's own decision, before the shared conversions."""

    def decide(self, obs: ObjectObservation, candidates: list[Candidate], ctx: DecisionContext) -> EditDecision:
        return normalise(self.propose(obs, candidates, ctx), obs, candidates, ctx)


def _convert(d: EditDecision, op: EditOp, target: str | None, why: str, ctx: DecisionContext) -> EditDecision:
    log.info("editor conversion in %s: %s %s -> %s (%s)", ctx.segment_id, d.op.value, d.observed_name,
             op.value, why)
    return EditDecision(op=op, observed_name=d.observed_name, target_entity_id=target,
                        reason=f"{d.reason} [converted {d.op.value}->{op.value}: {why}]",
                        converted_from=d.converted_from or d.op)


def normalise(d: EditDecision, obs: ObjectObservation, candidates: list[Candidate],
              ctx: DecisionContext) -> EditDecision:
    """Apply the robust conversions (module docstring) and fill before/after for Update/Delete."""
    target = ctx.known.get(d.target_entity_id) if d.target_entity_id else None
    if d.op in (EditOp.UPDATE, EditOp.NOOP) and target is None:
        d = _convert(d, EditOp.ADD, None, f"unknown entity id {d.target_entity_id!r}", ctx)
    elif d.op == EditOp.DELETE and target is None:
        if candidates:
            target = candidates[0].entity
            d = _convert(d, EditOp.NOOP, target.entity_id, f"delete of unknown id {d.target_entity_id!r}", ctx)
        else:
            d = _convert(d, EditOp.ADD, None, f"delete of unknown id {d.target_entity_id!r}, no candidate", ctx)
    if d.op in (EditOp.UPDATE, EditOp.NOOP) and target is not None:
        changes = entity_changes(obs, target)
        if d.op == EditOp.UPDATE and not changes:
            d = _convert(d, EditOp.NOOP, target.entity_id, "update changes nothing", ctx)
        elif d.op == EditOp.NOOP and changes:
            d = _convert(d, EditOp.UPDATE, target.entity_id, f"observation changes {sorted(changes)}", ctx)
        if d.op == EditOp.UPDATE:
            before = snapshot(target)
            return d.model_copy(update={"before": {k: before.get(k) for k in changes}, "after": changes})
    if d.op == EditOp.DELETE and target is not None:
        return d.model_copy(update={"before": snapshot(target), "after": {"deleted": True}})
    return d


class DeterministicDecider(Decider):
    """Similarity and attribute rules; the CPU default.

    Best candidate accepted (score ≥ accept_score): Delete if the object is seen in a retracting state
    (e.g. discarded), else Update when something changed, else Noop. No acceptable candidate: Add.
    """

    name = "deterministic"

    def __init__(self, config: DeterministicConfig, accept_score: float) -> None:
        self.cfg = config
        self.accept_score = accept_score
        self._delete_states = set(config.delete_states)

    def propose(self, obs: ObjectObservation, candidates: list[Candidate], ctx: DecisionContext) -> EditDecision:
        best = candidates[0] if candidates and candidates[0].score >= self.accept_score else None
        if best is None:
            why = f"no candidate above {self.accept_score}" + (
                f" (best {candidates[0].describe()})" if candidates else " (no candidate)")
            return EditDecision(op=EditOp.ADD, observed_name=obs.name, reason=f"new object: {why}")
        e = best.entity
        if obs.state and obs.state in self._delete_states:
            return EditDecision(op=EditOp.DELETE, observed_name=obs.name, target_entity_id=e.entity_id,
                                reason=f"observed {obs.state}: retract {best.describe()}")
        changes = entity_changes(obs, e)
        if changes:
            return EditDecision(op=EditOp.UPDATE, observed_name=obs.name, target_entity_id=e.entity_id,
                                reason=f"matched {best.describe()}; changed {sorted(changes)}")
        return EditDecision(op=EditOp.NOOP, observed_name=obs.name, target_entity_id=e.entity_id,
                            reason=f"matched {best.describe()}; nothing new")


def make_decider(config: EditorConfig, chat: Any | None = None) -> Decider:
    """Build the configured decider. For 'llm', `chat` may be any object with `complete(messages) -> str`;
    without one, an OpenAI-compatible client is built from `config.llm`."""
    deterministic = DeterministicDecider(config.deterministic, config.candidates.accept_score)
    if config.decider == "deterministic":
        return deterministic
    if config.decider == "llm":
        from memora_core.editing.llm_decider import LlmDecider, OpenAIChat

        return LlmDecider(chat or OpenAIChat(config.llm), config.llm, fallback=deterministic)
    raise ValueError(f"unknown editor decider {config.decider!r}")
