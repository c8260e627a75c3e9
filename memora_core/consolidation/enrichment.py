"""Optional LLM enrichment: a short name and one-line summary per routine.

The mined routine stands on its own; the LLM only adds wording. Its output is parsed defensively and
validated, and a reply that is not usable leaves the routine as mined (never a crash).
"""
from __future__ import annotations

import logging

from pydantic import BaseModel, Field, ValidationError

from memora_core.llm.base import LLMBackend
from memora_core.llm.parsing import parse_json_object
from memora_core.schemas import RoutineSkill

log = logging.getLogger(__name__)


class _Naming(BaseModel):
    name: str = Field(min_length=1, max_length=80)
    summary: str = Field(min_length=1, max_length=300)


PROMPT = ("You name kitchen routines. Given the goal and ordered steps of a routine a person performs, reply "
          'with JSON only: {{"name": "<3-6 word name>", "summary": "<one sentence>"}}.\n'
          "Goal: {goal}\nSteps: {steps}\nKey objects: {objects}")


def enrich_routines(routines: list[RoutineSkill], llm: LLMBackend | None) -> tuple[list[RoutineSkill], int]:
    """Returns the routines (enriched where the model answered usably) and how many were enriched."""
    if llm is None:
        return routines, 0
    out, done = [], 0
    for r in routines:
        msg = PROMPT.format(goal=r.goal, steps="; ".join(r.steps), objects=", ".join(r.key_objects))
        try:
            reply = llm.chat([{"role": "user", "content": msg}], max_new_tokens=96)
            naming = _Naming.model_validate(parse_json_object(reply.text) or {})
        except (ValidationError, RuntimeError, ValueError, OSError) as exc:
            log.info("enrichment of %s kept the mined wording: %s", r.routine_id, str(exc)[:120])
            out.append(r)
            continue
        out.append(r.model_copy(update={"name": naming.name.strip(), "summary": naming.summary.strip()}))
        done += 1
    return out, done
