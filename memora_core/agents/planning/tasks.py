"""From instruction to the tasks a plan is made of: an implicit need read as the person's closest routine,
the task's object words resolved to what this person's memory calls them, and the split into sub-tasks."""
from __future__ import annotations

import re
from dataclasses import replace

from memora_core.agents.calls import CallLog
from memora_core.agents.instruction import ParsedInstruction, Task
from memora_core.agents.instruction.needs import match_need
from memora_core.agents.instruction.normalise import clean
from memora_core.agents.planning.base import PlannerBase
from memora_core.agents.planning.labels import object_heads
from memora_core.schemas import Plan
from memora_core.tools.text import stem, tokens


def subtasks(parsed: ParsedInstruction, min_split_verbs: int) -> list[Task]:
    """The jobs a plan is made of, in order: one per clause; a clause naming `min_split_verbs` or more
    verbs for the same objects ('scrub, rinse and stack the pans') is a sequence of jobs, one per verb,
    while fewer verbs ('rinse and dry the mug') stay one job done together."""
    out: list[Task] = []
    for t in parsed.tasks:
        if len(t.verbs) >= min_split_verbs:
            out += [Task(f"{v} {t.obj}", v, list(t.objects), (v,), t.destination) for v in t.verbs]
        else:
            out.append(t)
    return out if len(out) > 1 else [parsed.task]


class InstructionResolution(PlannerBase):
    """Reads the instruction against memory before planning: needs as routines, object words as stored names."""

    def _resolve_need(self, parsed: ParsedInstruction, log: CallLog, plan: Plan) -> ParsedInstruction:
        """An instruction that names nothing to act on ("I'm parched") is read as the person's routine that
        is closest to it in meaning (goal, name, summary; MiniLM) among those the routine tool returns (its
        words, and the store's vector index where there is one); unchanged when none is close enough."""
        said = clean(parsed.text)
        if not self._budget_left(log, 1) or not said:
            return parsed
        res = self._call(log, "get_routine_skill", {"goal_query": said, "top_k": 5})
        a = self.cfg.agents
        routine, sim = match_need(said, res.items, a.answer_embedder, a.need_min_similarity)
        if routine is None:
            plan.missing.append(f"no routine close to '{said}' (best similarity {sim:.2f})")
            return parsed
        goal = self.parse(routine["goal"])
        if goal.implicit:
            return parsed
        plan.missing.append(f"'{said}' read as routine {routine['routine_id']} '{routine['goal']}' "
                            f"(similarity {sim:.2f})")
        return goal

    def _resolve_objects(self, parsed: ParsedInstruction, log: CallLog, plan: Plan) -> ParsedInstruction:
        """One search_objects call for all the task's objects: a task word that no stored object is named by,
        but that shares its taxonomy class with one (the class Entity memory stored at formation), is
        replaced by the stored name. Category words ('vegetables') are left to composition."""
        heads = [h for h in object_heads(parsed.task, self.vocab) if not self.vocab.members(h)]
        if not heads or not self.vocab or not self._budget_left(log, 1):
            return parsed
        res = self._call(log, "search_objects", {"name": " ".join(heads), "top_k": 20})
        names = {t for it in res.items for n in [it["name"], *it.get("aliases", [])] for t in tokens(n)}
        tasks = list(parsed.tasks)
        for h in heads:
            cls = self.vocab.siblings(h)
            if stem(h) in names or not cls:
                continue
            same = [it for it in res.items if str(it.get("attributes", {}).get("category", "")).lower() == cls]
            if same:
                name = max(same, key=lambda it: float(it.get("observations") or 0))["name"]
                word = re.compile(rf"\b{re.escape(h)}\b")
                renamed = [replace(t, text=word.sub(name, t.text), objects=[word.sub(name, o) for o in t.objects],
                                   destination=word.sub(name, t.destination) if t.destination else None)
                           for t in tasks]
                if renamed != tasks:
                    plan.missing.append(f"'{h}' resolved to this person's '{name}' (same class '{cls}')")
                    tasks = renamed
        return replace(parsed, tasks=tasks)
