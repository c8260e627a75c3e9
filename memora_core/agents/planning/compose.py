"""Composition: a task memory does not cover as a whole (several objects, a category such as
'vegetables') planned object by object, each object's steps from routines or recalled episodes."""
from __future__ import annotations

from memora_core.agents.calls import CallLog
from memora_core.agents.instruction import Task
from memora_core.agents.planning.labels import dedupe_labels, object_heads, split_label
from memora_core.agents.planning.recall import EpisodicRecall
from memora_core.agents.planning.relevance import procedure_around
from memora_core.agents.planning.routine_knowledge import RoutineKnowledge
from memora_core.schemas import Evidence, Plan
from memora_core.tools.text import stem, tokens


class Composition(EpisodicRecall, RoutineKnowledge):
    """Plans a task object by object (a category becomes the members this person's memory holds)."""
    def _compose(self, task: Task, log: CallLog, plan: Plan, reserve: int) -> list[tuple[str, list[Evidence]]]:
        """'lay the tray with cup, saucer and spoons' / 'make a stew using vegetables': each object gets
        its own steps; a category becomes the members this person's memory holds (most used first); with a
        placement verb the listed objects go onto the first one; a goal product ('stew') comes last."""
        ag = self.cfg.agents
        heads = object_heads(task, self.vocab)
        dest = None
        if task.verb in ag.placement_verbs and len(heads) > 1:
            dest, heads = heads[0], heads[1:]
        if task.verb in ag.soft_task_verbs and len(heads) > 1 and not self.vocab.members(heads[0]):
            heads = heads[1:] + heads[:1]  # 'make a stew using vegetables': ingredients first
        if len(heads) < 2 and not any(self.vocab.members(h) for h in heads):
            return []
        objs: list[str] = []
        for h in heads:
            members = self.vocab.members(h)
            found = []
            if members and self.family != "parametric" and self._budget_left(log, reserve + 1):
                found = self._members_in_memory(members, log)[: ag.compose_category_members]
            for o in found or [h]:
                if o not in objs:
                    objs.append(o)
        objs = objs[: ag.compose_max_objects]
        plan.missing.append(f"composed object by object: {', '.join(objs)}" + (f" onto {dest}" if dest else ""))
        out: list[tuple[str, list[Evidence]]] = []
        for o in objs:
            sub = Task(f"{task.verb} {o}", task.verb, [o], (task.verb,))
            steps = [] if dest or self.family == "parametric" else self._object_steps(sub, log, reserve + 1)
            out += steps or self._from_template(sub, dest)
        return dedupe_labels(out)

    def _members_in_memory(self, members: list[str], log: CallLog) -> list[str]:
        """Which members of a category this person has, most used first, through the family's own tools."""
        query = " ".join(members)
        counts: dict[str, float] = {}
        if self.family == "memora":
            for it in self._call(log, "search_objects", {"name": query, "top_k": 20}).items:
                key = it.get("attributes", {}).get("category") or it["name"].split()[-1]
                if key in members:
                    counts[key] = counts.get(key, 0) + float(it.get("observations") or 1)
        elif self.family == "graph2d":
            for it in self._call(log, "search_entities", {"name": query, "top_k": 20}).items:
                key = it.get("attributes", {}).get("category") or it["name"].split()[-1]
                if key in members:
                    counts[key] = counts.get(key, 0) + float(it.get("mentions") or 1)
        elif self.family == "flat1d":
            for it in self._call(log, "search_memory", {"query": query, "top_k": 20}).items:
                for w in set(tokens(it["text"].split(" | seen:")[0])):
                    m = next((m for m in members if stem(m) == w), None)
                    if m:
                        counts[m] = counts.get(m, 0) + 1
        return sorted(counts, key=lambda k: (-counts[k], k))

    def _object_steps(self, sub: Task, log: CallLog, reserve: int) -> list[tuple[str, list[Evidence]]]:
        """How memory shows this object being handled: the steps about it in the best routine (full MEMORA)
        or recalled procedure, from its first to its last mention, a routine's tools first; the task verb is
        added when missing."""
        cap = self.cfg.agents.compose_steps_per_object
        o = stem(sub.objects[0])
        verbs = {stem(sub.verb)} | self.synonyms(sub.verb)
        picked: list[tuple[str, list[Evidence]]] = []
        if "get_routine_skill" in self.memory.tool_names and self._budget_left(log, reserve):
            for r in self._routines(sub, log):
                idx = [i for i, st in enumerate(r["steps"]) if o in tokens(st)]
                if idx:
                    ev = [Evidence.model_validate(e) for e in r["episodes"][:2]]
                    picked = [(st, ev) for st in r["steps"][idx[0]: idx[-1] + 1][:cap]]
                    # the routine's tools that the steps kept never name are picked up first (what the
                    # person uses to do it: RoutineKnowledge._tool_objects)
                    tools = self._tool_objects(r, [lbl for lbl, _ in picked])
                    picked = [(f"pick up {t}", ev) for t in tools] + picked
                    break
        if not picked and self._budget_left(log, reserve + 1):
            steps, _ = procedure_around(self._search_and_window(sub.text, sub, log), sub, self.cfg)
            idx = [i for i, st in enumerate(steps) if o in tokens(st.label())]
            if idx:
                picked = [(st.label(), [st.evidence()]) for st in steps[idx[0]: idx[-1] + 1][:cap]]
        if picked and sub.verb not in self.cfg.agents.soft_task_verbs and \
                not any(verbs & set(tokens(split_label(lbl)[0])) for lbl, _ in picked):
            picked.append((f"{sub.verb} {sub.objects[0]}", []))
        return picked
