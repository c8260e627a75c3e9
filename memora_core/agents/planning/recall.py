"""Episodic recall for the planner, through each memory family's own tools: the best-matching episode and
the steps around it (activity actions, log lines or graph events as procedure steps)."""
from __future__ import annotations

from typing import Any

from memora_core.agents.calls import CallLog
from memora_core.agents.instruction import Task
from memora_core.agents.planning.base import PlannerBase
from memora_core.agents.planning.labels import dedupe_labels, merge_with_prior, split_label
from memora_core.agents.planning.relevance import procedure_around, relevance
from memora_core.consolidation.procedures import Step
from memora_core.schemas import Evidence, Plan
from memora_core.tools.text import stem, tokens


def _steps_from_actions(items: list[dict[str, Any]]) -> list[Step]:
    out = []
    for it in items:
        for a in it.get("actions", []):
            out.append(Step(it["video_id"], float(a["start_s"]), float(a["end_s"]), a["verb"],
                            tuple(a.get("nouns") or ()), (a.get("text") or "").lower(), it.get("activity_id")))
    return out


def _steps_from_lines(items: list[dict[str, Any]]) -> list[Step]:
    out = []
    for it in items:
        text = it["text"].split(" | seen:")[0]
        for part in [p.strip() for p in text.split(";") if p.strip()]:
            verb, obj, tgt = split_label(part)
            nouns = tuple(x for x in (obj, tgt) if x)
            out.append(Step(it["video_id"], float(it["start_s"]), float(it["end_s"]), verb, nouns, part.lower()))
    return out


def _steps_from_events(items: list[dict[str, Any]]) -> list[Step]:
    return [Step(e["video_id"], float(e["start_s"]), float(e["end_s"]), e["verb"], tuple(e["nouns"]),
                 e["text"].lower(), e.get("segment_id")) for e in items]


class EpisodicRecall(PlannerBase):
    """Recalls how the person did a task: the best episode of the family's search, with its time window."""

    def _search_and_window(self, query: str, task: Task, log: CallLog) -> list[Step]:
        fam = self.family
        tool = {"memora": "search_activities", "flat1d": "search_memory", "graph2d": "search_events"}[fam]
        syn = self.cfg.agents.verb_synonyms.get(task.verb, [])
        # the person may do the task's verb under another name ('wipe counter' for 'clean the counter')
        query = " ".join([query, *[v for v in syn if v not in query.lower().split()]])
        res = self._call(log, tool, {"query": query, "top_k": 8})
        if not res.items:
            return []
        soft = set(self.cfg.agents.soft_task_verbs)
        want = set(tokens(task.text))
        synonyms = self.synonyms(task.verb)

        def rel(it: dict) -> tuple[float, float]:
            text = str(it.get("summary") or it.get("text", ""))
            r = relevance(task, " ".join(split_label(p)[0] for p in text.split(";")), text, soft, synonyms)[0]
            return r, len(want & set(tokens(text))) / max(len(want), 1)

        hit = max([it for it in res.items[:8] if it.get("kind", "log") == "log"] or res.items[:8], key=rel)
        if fam == "graph2d":
            around = self._call(log, "get_temporal_neighbors", {"event_id": hit["event_id"], "before": 8, "after": 14})
            return _steps_from_events(around.items or [hit])
        t0, t1 = max(0.0, float(hit["start_s"]) - 90.0), float(hit["end_s"]) + 120.0
        if fam == "flat1d":
            around = self._call(log, "read_log", {"video_id": hit["video_id"], "start_s": t0, "end_s": t1})
            return _steps_from_lines(around.items or [hit])
        around = self._call(log, "search_activities", {"query": query, "video_id": hit["video_id"], "start_s": t0,
                                                       "end_s": t1, "top_k": 20})
        return _steps_from_actions(around.items or [hit])

    def _recall(self, task: Task, log: CallLog, plan: Plan, transfer: bool) -> list[tuple[str, list[Evidence]]]:
        if transfer:
            verb_task = Task(task.text, task.verb, [])
            steps, _ = procedure_around(self._search_and_window(task.verb, verb_task, log), verb_task, self.cfg)
            if not any(stem(task.verb) in tokens(s.verb) for s in steps):
                return []
            labels = self._transfer(task, [s.label() for s in steps], plan, "recalled episode")
            if labels:
                merged = merge_with_prior([lbl for lbl, _ in self._from_template(task)], labels)
                by_label = dict(zip(labels, steps))
                return dedupe_labels([(lbl, [by_label[lbl].evidence()] if lbl in by_label else []) for lbl in merged])
        else:
            steps, score = procedure_around(self._search_and_window(task.text, task, log), task, self.cfg)
            if score <= 0:
                return []
            labels = [s.label() for s in steps]
        return dedupe_labels([(lbl, [Evidence(video_id=s.video_id, start_s=s.start_s, end_s=max(s.end_s, s.start_s))])
                        for lbl, s in zip(labels, steps)])
