"""Inferred Knowledge for the planner (full MEMORA): the person's canonical routine for the task's verb
completing a recalled episode, and the routine's tools that no step names picked up first."""
from __future__ import annotations

from memora_core.agents.instruction import Task
from memora_core.agents.planning.base import PlannerBase
from memora_core.agents.planning.labels import dedupe_labels, merge_with_prior, split_label
from memora_core.agents.step_text import with_place
from memora_core.schemas import Evidence, Plan, PlanStep
from memora_core.tools.text import stem, tokens


# Verbs that move or handle an object rather than work on it: their place is the object's own.
_HANDLING_VERBS = frozenset({"pick", "put", "place", "take", "grab", "move", "carry", "bring", "turn", "open", "close",
                             "find", "get", "drop", "set", "hold", "switch"})


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

    def _fixture_places(self) -> dict[str, str]:
        """Where the person does an action, from the routines read for this plan: a step between turning a
        fixture on and turning it off ('turn on tap', 'wash hands', 'turn off tap') is done at that fixture.
        Verb stem -> fixture, when more than half of the verb's steps in these routines are done there; moving
        and handling verbs (pick up, put, take, turn ...) are not counted, their place is the object's own."""
        seen: dict[str, dict[str, int]] = {}
        elsewhere: dict[str, int] = {}  # the verb's steps while no fixture is on
        routines = {r["routine_id"]: r for rs in self._routines_cached.values() for r in rs}
        for r in routines.values():
            on: str | None = None
            for st in r.get("steps", []):
                a, o, _ = split_label(st)
                if a == "turn on" and o:
                    on = o
                elif a == "turn off" and o:
                    on = None
                elif o and a.split()[0] not in _HANDLING_VERBS:
                    v = stem(a.split()[0])
                    if on:
                        seen.setdefault(v, {})
                        seen[v][on] = seen[v].get(on, 0) + 1
                    else:
                        elsewhere[v] = elsewhere.get(v, 0) + 1
        # a verb is done at a fixture when most of its steps are (an oven left on while other work goes on
        # does not make that work happen at the oven)
        return {v: max(sorted(c), key=lambda f: c[f]) for v, c in seen.items()
                if max(c.values()) > elsewhere.get(v, 0) + sum(c.values()) - max(c.values())}

    def _at_fixtures(self, plan: Plan) -> None:
        """Steps whose action the person does at a fixture (`_fixture_places`) and that have no place yet are
        done there ('wash onion' -> 'wash onion at tap'), not where memory last saw their object."""
        places = self._fixture_places()
        if not places:
            return
        for s in plan.steps:
            if s.object and not s.target and s.object not in places.values():
                f = places.get(stem(s.action.split()[0]))
                if f and self._is_place(f):
                    s.target = f
                    s.text = with_place(s.text, s.action, f)

    def _carry_to_fixtures(self, plan: Plan) -> None:
        """An object picked up at one place and then handled at a fixture (`_at_fixtures`) is moved there
        first: 'move the onion to the tap' right after it is picked up."""
        places = set(self._fixture_places().values())
        if not places:
            return
        out: list[PlanStep] = []
        held: dict[str, int] = {}  # object -> index in `out` of the step that picked it up (not moved since)
        for s in plan.steps:
            a = s.action.split()[0] if s.action else ""
            if s.object and s.action in ("pick up", "take", "grab"):
                held[s.object] = len(out)
            elif s.object in held and s.target in places and a not in _HANDLING_VERBS:
                i = held.pop(s.object)
                if out[i].target != s.target:
                    out.insert(i + 1, PlanStep(index=0, action="move", object=s.object, target=s.target,
                                               text=f"move {s.object} to {s.target}", evidence=s.evidence[:1]))
            elif s.object in held and a in _HANDLING_VERBS:
                held.pop(s.object)
            out.append(s)
        for i, s in enumerate(out):
            s.index = i
        plan.steps = out
