"""The structured planner: instruction -> tasks -> per (sub)task the best of routines and recalled episodes
(else composition, transfer or the task's template) -> preferences -> steps grounded in memory."""
from __future__ import annotations

from memora_core.agents.calls import CallLog
from memora_core.agents.instruction import Task
from memora_core.agents.planning.compose import Composition
from memora_core.agents.planning.grounding import Grounding
from memora_core.agents.planning.labels import dedupe_labels, merge_with_prior, object_heads, split_label
from memora_core.agents.planning.preferences import PreferenceUse
from memora_core.agents.planning.relevance import coverage
from memora_core.agents.planning.routine_knowledge import RoutineKnowledge
from memora_core.agents.planning.tasks import InstructionResolution, subtasks
from memora_core.agents.step_text import spoken
from memora_core.schemas import Evidence, Plan, PlanStep, unique_evidence
from memora_core.tools.text import stem, tokens


class StructuredPlanner(InstructionResolution, Composition, RoutineKnowledge, PreferenceUse, Grounding):
    """`.plan(instruction) -> Plan`; deterministic; every tool call is logged in Plan.tool_calls.

    Per (sub)task the candidates are a recalled episode (every memory family, through its own tools) and,
    for full MEMORA, consolidated routines; the one that covers the task best wins (an exact episode beats a
    canonical routine on ties, a routine beats a loosely related episode). Preferences then fill open tool /
    place choices and add habitual follow-up steps; every object is grounded and located through memory."""

    kind = "structured"

    def plan(self, instruction: str) -> Plan:
        parsed = self.parse(instruction)
        log = CallLog(self.memory)
        self._routines_cached = {}
        self._entities_read = {}
        plan = Plan(participant_id=self.memory.participant_id, instruction=instruction, planner=self.kind,
                    condition=self.memory.condition_id)
        labels: list[tuple[str, list[Evidence]]] = []
        if parsed.implicit and "get_routine_skill" in self.memory.tool_names:
            parsed = self._resolve_need(parsed, log, plan)
        if self.family == "memora" and "search_objects" in self.memory.tool_names:
            # Entity memory resolves the task's objects to what this person's memory calls them first
            # ('worktop' -> the 'counter' of class 'top'), so every later read asks about the right thing
            parsed = self._resolve_objects(parsed, log, plan)
        task = parsed.task
        parts = subtasks(parsed, self.cfg.agents.instruction_split_verbs)
        if self.family != "parametric":
            if len(parts) > 1 and "get_routine_skill" in self.memory.tool_names and self._budget_left(log, 1):
                # one routine read for the whole instruction, re-ranked per sub-task, so that every
                # sub-task keeps the budget to recall its own episode
                res = self._call(log, "get_routine_skill", {"goal_query": task.text, "top_k": 10})
                self._shared_routines = res.items
            try:
                for sub in parts:
                    got = self._plan_subtask(sub, log, plan, reserve=1 if len(parts) > 1 else 0)
                    if not got and len(parts) > 1:
                        # a sub-task memory could not cover (or no budget was left for) keeps its own frame
                        got = self._from_template(sub)
                        plan.missing.append(f"sub-task '{sub.text}' planned from the task text alone")
                    labels += got
            finally:
                self._shared_routines = None
        if not labels:
            labels = self._from_template(task)
            plan.missing.append("no matching memory: plan from the task text alone")
        if "get_preferences" in self.memory.tool_names:
            labels = self._apply_preferences(task, labels, log, plan)
        labels = dedupe_labels(labels)[: self.cfg.agents.max_plan_steps]
        plan.steps = [PlanStep(index=i, action=a, object=o, target=t, text=label, evidence=ev)
                      for i, (label, ev) in enumerate(labels) for a, o, t in [split_label(label)]]
        if "get_routine_skill" in self.memory.tool_names:
            self._at_fixtures(plan)  # where the person does an action, from their routines
        self._ground(plan, log)
        if "get_routine_skill" in self.memory.tool_names:
            self._carry_to_fixtures(plan)
        for s in plan.steps:
            s.text = spoken(s.text, s.action)
        plan.evidence = unique_evidence([e for s in plan.steps for e in s.evidence])
        plan.tool_calls = log.calls
        return plan

    def _plan_subtask(self, task: Task, log: CallLog, plan: Plan, reserve: int) -> list[tuple[str, list[Evidence]]]:
        has_routines = "get_routine_skill" in self.memory.tool_names
        soft = set(self.cfg.agents.soft_task_verbs)
        cands: list[tuple[float, int, list[tuple[str, list[Evidence]]], str | None]] = []
        if has_routines and self._budget_left(log, reserve):
            for r in self._routines(task, log):
                lbls = [st for st in r["steps"]]
                ev = [Evidence.model_validate(e) for e in r["episodes"][:3]]
                cov = coverage(task, [r["goal"], *lbls], soft, self.synonyms(task.verb))
                cands.append((cov, 0, dedupe_labels([(st, ev) for st in lbls]), r["routine_id"]))
        if self._budget_left(log, reserve + 1):
            rec = self._recall(task, log, plan, transfer=False)
            if rec:
                cands.append((coverage(task, [lbl for lbl, _ in rec], soft, self.synonyms(task.verb)), 1, rec, None))
        best = max(cands, key=lambda c: (c[0], c[1]), default=None)
        if best is not None and best[0] >= self.cfg.agents.min_task_coverage:
            if best[3]:
                plan.routine_id = plan.routine_id or best[3]
            labels = best[2]
            if has_routines:
                labels = self._with_routine_knowledge(task, labels, best[3], plan)
            cand_verbs = {t for lbl, _ in labels for t in tokens(split_label(lbl)[0])}
            if stem(task.verb) not in cand_verbs and task.verb not in soft and self._has_template(task.verb):
                # the person does the task with a related verb ('scrub' for 'clean'): their steps, completed
                # by the task verb's own frame
                by_label = dict(labels)
                merged = merge_with_prior([lbl for lbl, _ in self._from_template(task)], [lbl for lbl, _ in labels])
                labels = dedupe_labels([(lbl, by_label.get(lbl, [])) for lbl in merged])
            return labels
        # several objects or a category ('vegetables'): plan object by object from memory
        composed = self._compose(task, log, plan, reserve)
        if composed:
            return composed
        heads = object_heads(task, self.vocab)
        if heads and heads != task.objects:
            # 'the tiled kitchen worktop' -> 'worktop': the object itself, not its modifiers
            task = Task(task.text, task.verb, heads[:1], task.verbs)
        if len(task.verbs) > 1:
            # 'clear and wipe the hob': each verb in turn, each from memory where it can be
            out: list[tuple[str, list[Evidence]]] = []
            # the routines already read for the whole task are re-ranked per verb, not read again: the call
            # budget goes to recalling how each verb was done
            outer = self._shared_routines
            self._shared_routines = self._routines_cached.get(task.text, outer)
            try:
                for i, v in enumerate(task.verbs):
                    # each later verb keeps the two calls one recall needs (a search and its window)
                    later = 2 * (len(task.verbs) - 1 - i)
                    out += self._plan_subtask(Task(f"{v} {task.obj}", v, task.objects, (v,)), log, plan,
                                              reserve + later)
            finally:
                self._shared_routines = outer
            return dedupe_labels(out)
        # nothing covers the task: transfer a same-verb procedure to the task's object
        if has_routines:
            for r in self._routines_cached.get(task.text, []):
                if stem(task.verb) in tokens(r["goal"]) or any(stem(task.verb) in tokens(split_label(s)[0])
                                                                for s in r["steps"]):
                    steps = self._transfer(task, r["steps"], plan, r["routine_id"])
                    if steps:
                        steps = merge_with_prior([lbl for lbl, _ in self._from_template(task)], steps)
                        plan.routine_id = plan.routine_id or r["routine_id"]
                        ev = [Evidence.model_validate(e) for e in r["episodes"][:3]]
                        return dedupe_labels([(st, ev) for st in steps])
        if self._budget_left(log, reserve + 1):
            rec = self._recall(task, log, plan, transfer=True)
            if rec:
                return rec
        return best[2] if best is not None and best[0] > 0 else []
