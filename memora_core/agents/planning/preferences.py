"""Preferences and habits applied to a plan: fill open tool / place choices, add habitual follow-up steps
and processing treatments (typed Inferred Knowledge, schemas.knowledge)."""
from __future__ import annotations

from memora_core.agents.calls import CallLog
from memora_core.agents.instruction import Task
from memora_core.agents.planning.base import PlannerBase
from memora_core.agents.planning.labels import split_label
from memora_core.schemas import Evidence, Plan
from memora_core.tools.text import tokens


class PreferenceUse(PlannerBase):
    """Preferences: fill open tool/place choices, add habitual follow-ups, note processing habits."""

    def _apply_preferences(self, task: Task, labels, log: CallLog, plan: Plan):
        if not self._budget_left(log):
            return labels
        res = self._call(log, "get_preferences", {"query": task.text, "top_k": self.cfg.agents.max_preferences})
        out = list(labels)
        added, limit = 0, self.cfg.agents.max_preference_steps
        for p in res.items:
            plan_toks = set(tokens(" ".join(lbl for lbl, _ in out) + " " + task.text))
            kw = set(tokens(" ".join(p["keywords"])))
            if len(kw & plan_toks) < min(2, len(kw)):
                continue
            pev = [Evidence.model_validate(e) for e in p["episodes"][:2]]
            applied = False
            kind, attr = p.get("kind"), p.get("attribute")  # typed Inferred Knowledge (schemas.knowledge)
            task_objs = set(tokens(task.obj))
            if kind == "preference" and attr == "companion":
                verb, obj, choice = p["action"].replace("-", " "), p["subject"], p["choice"]
                prep = verb.split()[1] if len(verb.split()) > 1 else "with"
                for i, (lbl, ev) in enumerate(out):
                    a, o, t = split_label(lbl)
                    if o == obj and a.split()[0] == verb.split()[0] and t is None:
                        out[i] = (f"{a} {o} {prep} {choice}", ev + pev)
                        applied = True
                chosen = any(split_label(lbl)[1] == obj and split_label(lbl)[2]
                             and split_label(lbl)[0].split()[0] == verb.split()[0] for lbl, _ in out)
                if not applied and not chosen and set(tokens(obj)) <= task_objs and added < limit:
                    # the task handles this object but the plan never makes the choice (a plan that already
                    # puts it somewhere, e.g. onto the table being set, has made it): add the preferred step
                    out = _insert_after_object(out, obj, (f"{verb.split()[0]} {obj} {prep} {choice}", pev))
                    applied, added = True, added + 1
            elif kind == "habit":
                trig, nxt = p["after_text"].lower(), p["text"].lower()
                tkey = set(tokens(trig))
                for i in range(len(out) - 1, -1, -1):
                    if set(tokens(out[i][0])) == tkey and (i + 1 >= len(out) or out[i + 1][0] != nxt) \
                            and added < limit:
                        out.insert(i + 1, (nxt, pev))
                        applied, added = True, added + 1
            elif kind == "preference" and attr == "treatment":
                noun, act = p["subject"].lower(), p["choice_text"].lower()
                if set(tokens(noun)) <= task_objs and not any(set(tokens(act)) <= set(tokens(lbl)) for lbl, _ in out) \
                        and added < limit:
                    out = _insert_after_object(out, noun, (act, pev))
                    applied, added = True, added + 1
            if applied or kw & set(tokens(task.obj)):
                plan.preferences_used.append(p.get("pref_id") or p["habit_id"])
        return out


def _insert_after_object(labels: list, obj: str, item: tuple) -> list:
    """Insert a step right after the first step that handles `obj` (at the end when none does)."""
    ot = set(tokens(obj))
    i = next((i for i, (lbl, _) in enumerate(labels) if ot <= set(tokens(lbl))), len(labels) - 1)
    return labels[: i + 1] + [item] + labels[i + 1:]
