"""Inferred Knowledge for the planner (full MEMORA): the person's canonical routine for the task's verb
completing a recalled episode, and the routine's tools that no step names picked up first."""
from __future__ import annotations

from memora_core.agents.instruction import Task
from memora_core.agents.planning.base import PlannerBase
from memora_core.agents.planning.labels import dedupe_labels, merge_with_prior, split_label
from memora_core.schemas import Evidence, Plan
from memora_core.tools.text import stem, tokens


class RoutineKnowledge(PlannerBase):
    """Inferred Knowledge (full MEMORA): the person's canonical way of doing a verb, and its tools."""

    def _verb_routine(self, task: Task) -> dict | None:
        """The routine whose goal does the task's verb (the person's canonical procedure for it), most
        frequent first, among the routines already read for this task."""
        verbs = {stem(task.verb)} | self.synonyms(task.verb)
        rts = [r for r in self._routines_cached.get(task.text, []) if {stem(t) for t in tokens(
            split_label(r["goal"])[0])} & verbs]
        exact = [r for r in rts if stem(task.verb) in tokens(split_label(r["goal"])[0])]
        return max(exact or rts, key=lambda r: int(r.get("frequency") or 0), default=None)

    def _tool_objects(self, routine: dict, labels: list[str]) -> list[str]:
        """A routine's key objects that are tools (utensils, cutlery, cleaning material, cookware: the EPIC
        category of their class) and that its steps never name: what the person uses to do it."""
        have = {t for lbl in labels for t in tokens(lbl)}
        cats = set(self.cfg.agents.tool_categories)
        out = []
        for o in routine.get("key_objects", []):
            cat = self.vocab.category_of(o) if self.vocab else ""
            if cat in cats and not set(tokens(o)) <= have and o not in out:
                out.append(o)
        return out[: self.cfg.agents.max_routine_tools]

    def _with_routine_knowledge(self, task: Task, labels: list[tuple[str, list[Evidence]]], routine_id: str | None,
                                plan: Plan) -> list[tuple[str, list[Evidence]]]:
        """An episode that covers the task is completed by the person's routine for its verb (transferred to
        the task's object: the steps the episode did not show, in the routine's order); the routine's tools
        that no step names are picked up first."""
        rt = next((r for r in self._routines_cached.get(task.text, []) if r["routine_id"] == routine_id), None)
        if rt is None:
            rt = self._verb_routine(task)
            if rt is not None and task.objects:
                steps = self._transfer(task, rt["steps"], plan, rt["routine_id"]) or rt["steps"]
                ev = [Evidence.model_validate(e) for e in rt["episodes"][:2]]
                by_label = dict(labels)
                merged = merge_with_prior(steps, [lbl for lbl, _ in labels])
                labels = dedupe_labels([(lbl, by_label.get(lbl, ev)) for lbl in merged])
        if rt is not None:
            ev = [Evidence.model_validate(e) for e in rt["episodes"][:2]]
            tools = self._tool_objects(rt, [lbl for lbl, _ in labels])
            if tools:
                plan.missing.append(f"tools from routine {rt['routine_id']}: {', '.join(tools)}")
            labels = [(f"pick up {t}", ev) for t in tools] + labels
        return labels
