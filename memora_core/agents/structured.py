"""Deterministic planner and answerer, one per memory family, each reading only its condition's tools.

They are the CPU default (no LLM) and use the same budget as the ReAct agents (at most
`max_iterations` tool calls to plan, `max_answer_searches` to answer). Families:
- memora: best routine -> relevant preferences -> every object grounded through Entity/Environment
  memory; falls back to the best-matching recalled episode when no routine fits.
- memora (episodic): best-matching episode from Activity Memory, procedure around it, objects grounded.
- flat1d: keyword search of the log, read the log around the best line, procedure around it.
- graph2d: event search, temporal neighbours of the best event, entities grounded as graph nodes.
- parametric: the task text alone (configured templates); answers E (no memory to support a choice).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from memora_core.agents.calls import CallLog
from memora_core.agents.config import AgentsConfig, load_agents_config
from memora_core.consolidation.procedures import Step, split_procedures
from memora_core.schemas import Evidence, Plan, PlanStep
from memora_core.tools.registry import ToolResult
from memora_core.tools.text import STOPWORDS, overlap, stem, tokens

_PARTICLES = {"up", "down", "on", "off", "in", "out", "into", "onto", "over", "away", "back"}
_PREPS = {"in", "on", "into", "onto", "from", "at", "to", "under", "with", "inside", "off", "out"}
_SOFT_DEFAULT = {"prepare", "make", "cook", "get", "do", "handle"}
_VIDEO_RE = re.compile(r"\b([A-Z]\d{2}_\d{2,3})\b")


# ------------------------------------------------------------------ task and step text
@dataclass
class Task:
    text: str
    verb: str
    objects: list[str]

    @property
    def obj(self) -> str:
        return " ".join(self.objects) or "item"


def parse_task(instruction: str) -> Task:
    """'Help P06 wash the bowl.' -> verb 'wash', objects ['bowl'] (first content word is the verb)."""
    words = [w for w in re.findall(r"[a-z0-9]+", instruction.lower()) if w not in {"help", "please", "robot"}]
    words = [w for w in words if not re.fullmatch(r"p\d+", w) and not w.isdigit()]
    content = [w for w in words if w not in STOPWORDS or w in _PARTICLES - {"in", "on", "out", "over", "off"}]
    if not content:
        return Task(instruction, "do", [])
    verbs = [content[0]]
    i = 1
    while i + 1 < len(words) + 1 and i < len(content):
        # 'prepare and knead the dough': a word right after 'and' that follows the verb is a verb too
        j = words.index(verbs[-1]) if verbs[-1] in words else -1
        if 0 <= j < len(words) - 2 and words[j + 1] == "and" and words[j + 2] == content[i]:
            verbs.append(content[i])
            i += 1
        else:
            break
    objects = [w for w in content[i:] if w not in STOPWORDS and w not in _PARTICLES]
    concrete = [v for v in verbs if v not in _SOFT_DEFAULT] or verbs
    return Task(instruction, concrete[0], objects)


def split_label(label: str) -> tuple[str, str | None, str | None]:
    """'put lid on pan' -> ('put', 'lid', 'pan'); 'pick up knife' -> ('pick up', 'knife', None)."""
    words = label.lower().replace("-", " ").split()
    if not words:
        return "do", None, None
    n = 2 if len(words) > 2 and words[1] in _PARTICLES else 1
    action, rest = " ".join(words[:n]), words[n:]
    if len(rest) > 1 and rest[-1] in _PARTICLES:  # 'put pan down' -> 'put down pan'
        action, rest = f"{action} {rest[-1]}", rest[:-1]
    for i, w in enumerate(rest):
        if w in _PREPS and i > 0:
            target = [x for x in rest[i + 1:] if x != "of"]  # 'out of pan' -> 'pan'
            return action, " ".join(rest[:i]) or None, " ".join(target) or None
    return action, " ".join(rest) or None, None


def _dedupe(labels: list[tuple[str, list[Evidence]]]) -> list[tuple[str, list[Evidence]]]:
    out: list[tuple[str, list[Evidence]]] = []
    for label, ev in labels:
        if label and (not out or out[-1][0] != label):
            out.append((label, ev))
    return out


def relevance(task: "Task", verbs: str, text: str, soft_verbs: set[str]) -> tuple[float, bool, float]:
    """(score, verb matched, object share): objects weigh most, then the verb. `verbs` holds only the
    candidate's action verbs, so 'washing up liquid' in an object name never matches the verb 'wash'."""
    toks = set(tokens(text))
    objs = set(tokens(task.obj))
    verb_hit = stem(task.verb) in set(tokens(verbs))
    share = len(objs & toks) / len(objs) if objs else 0.0
    verb_ok = verb_hit or task.verb in soft_verbs
    return 0.5 * (share > 0) + 0.3 * verb_ok + 0.2 * share, verb_hit, share


def procedure_around(steps: list[Step], task: "Task", cfg: AgentsConfig) -> tuple[list[Step], float]:
    """Of the procedures (same split as consolidation) in the retrieved steps, the one covering the task best."""
    if not steps:
        return [], 0.0
    steps = sorted(set(steps), key=lambda s: (s.video_id, s.start_s, s.label()))
    cons = cfg.consolidation.model_copy(update={"max_steps": cfg.agents.max_plan_steps})
    soft = set(cfg.agents.soft_task_verbs)
    best, best_score = [], 0.0
    videos = sorted({s.video_id for s in steps})
    for v in videos:
        for proc in split_procedures([s for s in steps if s.video_id == v], cons):
            score, verb_hit, share = relevance(task, " ".join(s.verb for s in proc.steps),
                                               " ".join(s.label() for s in proc.steps), soft)
            score += 0.01 * min(len(proc.steps), cons.min_steps)  # prefer a real procedure to a lone step
            if score > best_score:
                best, best_score = proc.steps, score
    return best, best_score


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


# ------------------------------------------------------------------ planner
class StructuredPlanner:
    """`.plan(instruction) -> Plan`; deterministic; every tool call is logged in Plan.tool_calls."""

    kind = "structured"

    def __init__(self, memory: Any, config: AgentsConfig | None = None) -> None:
        self.memory = memory
        self.cfg = config or load_agents_config()
        self.family = getattr(memory, "family", "memora")

    # budget: every planner gets the same number of tool calls
    def _budget_left(self, log: CallLog) -> bool:
        return len(log.calls) < self.cfg.agents.max_iterations

    def _call(self, log: CallLog, tool: str, args: dict) -> ToolResult:
        if not self._budget_left(log):
            return ToolResult(tool=tool, ok=False, error="tool budget exhausted")
        return log.call(tool, args)

    def plan(self, instruction: str) -> Plan:
        task = parse_task(instruction)
        log = CallLog(self.memory)
        plan = Plan(participant_id=self.memory.participant_id, instruction=instruction, planner=self.kind,
                    condition=self.memory.condition_id)
        has_routines = "get_routine_skill" in self.memory.tool_names
        labels: list[tuple[str, list[Evidence]]] = []
        if self.family != "parametric":
            # direct match first (routine, then a recalled episode), then transfer of a same-verb procedure
            for transfer in (False, True):
                if has_routines and not labels:
                    labels = self._from_routine(task, log, plan, transfer)
                if not labels:
                    labels = self._recall(task, log, plan, transfer)
                if labels:
                    break
        if not labels:
            labels = self._from_template(task)
            plan.missing.append("no matching memory: plan from the task text alone")
        if "get_preferences" in self.memory.tool_names:
            labels = self._apply_preferences(task, labels, log, plan)
        plan.steps = [PlanStep(index=i, action=a, object=o, target=t, text=label, evidence=ev)
                      for i, (label, ev) in enumerate(labels[: self.cfg.agents.max_plan_steps])
                      for a, o, t in [split_label(label)]]
        self._ground(plan, log)
        plan.evidence = _unique_evidence([e for s in plan.steps for e in s.evidence])
        plan.tool_calls = log.calls
        return plan

    def _transfer(self, task: Task, labels: list[str], plan: Plan, source: str) -> list[str]:
        """Put the task's object in place of the object the same verb was observed with."""
        src = next((split_label(lbl)[1] for lbl in labels if stem(task.verb) in tokens(split_label(lbl)[0])
                    and split_label(lbl)[1]), None)
        if not src or not task.objects:
            return []
        plan.missing.append(f"transferred '{task.verb}' from '{src}' to '{task.obj}' ({source})")
        return [re.sub(rf"\b{re.escape(src)}\b", task.obj, lbl) for lbl in labels]

    # --- memora: routine first
    def _from_routine(self, task: Task, log: CallLog, plan: Plan, transfer: bool) -> list[tuple[str, list[Evidence]]]:
        res = self._call(log, "get_routine_skill", {"goal_query": task.verb if transfer else task.text, "top_k": 5})
        soft = set(self.cfg.agents.soft_task_verbs)
        for r in res.items:
            # what a routine is *about*: its goal and main objects (every step would match too loosely)
            score, _, _ = relevance(task, split_label(r["goal"])[0], r["goal"] + " " + " ".join(r["key_objects"][:2]),
                                    soft)
            ev = [Evidence.model_validate(e) for e in r["episodes"][:3]]
            if not transfer and score >= self.cfg.agents.task_match_score:
                plan.routine_id = r["routine_id"]
                return _dedupe([(st, ev) for st in r["steps"]])
            if transfer and stem(task.verb) in tokens(r["goal"]):
                steps = self._transfer(task, r["steps"], plan, r["routine_id"])
                if steps:
                    plan.routine_id = r["routine_id"]
                    return _dedupe([(st, ev) for st in steps])
        return []

    # --- episodic recall, through each family's own tools
    def _search_and_window(self, query: str, task: Task, log: CallLog) -> list[Step]:
        fam = self.family
        tool = {"memora": "search_activities", "flat1d": "search_memory", "graph2d": "search_events"}[fam]
        res = self._call(log, tool, {"query": query, "top_k": 5})
        if not res.items:
            return []
        soft = set(self.cfg.agents.soft_task_verbs)
        def rel(it: dict) -> float:
            text = str(it.get("summary") or it.get("text", ""))
            return relevance(task, " ".join(split_label(p)[0] for p in text.split(";")), text, soft)[0]

        hit = max(res.items[:5], key=rel)
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
        else:
            steps, score = procedure_around(self._search_and_window(task.text, task, log), task, self.cfg)
            if score < self.cfg.agents.task_match_score:
                return []
            labels = [s.label() for s in steps]
        return _dedupe([(lbl, [Evidence(video_id=s.video_id, start_s=s.start_s, end_s=max(s.end_s, s.start_s))])
                        for lbl, s in zip(labels, steps)])

    def _from_template(self, task: Task) -> list[tuple[str, list[Evidence]]]:
        tpl = self.cfg.templates.get(task.verb) or self.cfg.templates.get(stem(task.verb)) \
            or self.cfg.templates.get("default", ["{verb} {obj}"])
        return _dedupe([(t.format(verb=task.verb, obj=task.obj), []) for t in tpl])

    # --- preferences: choose the preferred tool/container/place where a step leaves it open or differs
    def _apply_preferences(self, task: Task, labels, log: CallLog, plan: Plan):
        if not self._budget_left(log):
            return labels
        res = self._call(log, "get_preferences", {"query": task.text, "top_k": 5})
        plan_toks = set(tokens(" ".join(lbl for lbl, _ in labels) + " " + task.text))
        out = list(labels)
        for p in res.items:
            kw = set(tokens(" ".join(p["keywords"])))
            if len(kw & plan_toks) < min(2, len(kw)):
                continue
            m = re.search(r"for '([\w\-]+) ([^']+)' they choose the (.+?) \(", p["statement"])
            applied = False
            if m:
                verb, obj, choice = m.group(1).replace("-", " "), m.group(2), m.group(3)
                for i, (lbl, ev) in enumerate(out):
                    a, o, t = split_label(lbl)
                    if o == obj and a.split()[0] == verb.split()[0] and t is None:
                        prep = verb.split()[1] if len(verb.split()) > 1 else "with"
                        out[i] = (f"{a} {o} {prep} {choice}",
                                  ev + [Evidence.model_validate(e) for e in p["episodes"][:2]])
                        applied = True
            if applied or kw & set(tokens(task.obj)):
                plan.preferences_used.append(p["pref_id"])
        return out

    # --- grounding
    def _ground(self, plan: Plan, log: CallLog) -> None:
        objects = []
        for s in plan.steps:
            for o in (s.object, s.target):
                if o and o not in objects:
                    objects.append(o)
        found: dict[str, tuple[str | None, list[Evidence]]] = {}
        for o in objects:
            if not self._budget_left(log) or self.family == "parametric":
                break
            if self.family == "memora":
                r = self._call(log, "search_objects", {"name": o, "top_k": 1})
                hit = r.items[0] if r.items and overlap(o, r.items[0]["name"]) > 0 else None
                if hit:
                    found[o] = (hit["entity_id"], r.evidence[:1])
            elif self.family == "graph2d":
                r = self._call(log, "search_entities", {"name": o, "top_k": 1})
                if r.items:
                    found[o] = (r.items[0]["node_id"], [])
            elif self.family == "flat1d":
                r = self._call(log, "search_memory", {"query": o, "top_k": 1})
                if r.items and overlap(o, r.items[0]["text"]) > 0:
                    found[o] = (None, r.evidence[:1])
        for s in plan.steps:
            if s.object in found:
                s.entity_id = found[s.object][0]
                s.evidence = _unique_evidence(s.evidence + found[s.object][1])
        ungrounded = [o for o in objects if o not in found and self.family != "parametric"]
        if ungrounded and len(found) < len(objects):
            plan.missing += [f"object not grounded in memory: {o}" for o in ungrounded
                             if self._budget_left(log) or o in objects[: len(found) + 1]]


def _unique_evidence(evs: list[Evidence]) -> list[Evidence]:
    seen, out = set(), []
    for e in evs:
        k = (e.video_id, round(e.start_s, 1), round(e.end_s, 1))
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out


# ------------------------------------------------------------------ answerer
@dataclass
class AnswerResult:
    letter: str | None
    retrieved_evidence: list[Evidence]
    tool_calls: list[dict]
    raw: str


class StructuredAnswerer:
    """Scores each choice by how well the retrieved memory supports it; E when support is weak."""

    kind = "structured"

    def __init__(self, memory: Any, config: AgentsConfig | None = None) -> None:
        self.memory = memory
        self.cfg = config or load_agents_config()
        self.family = getattr(memory, "family", "memora")

    def _search(self, log: CallLog, query: str, video: str | None) -> ToolResult:
        if self.family == "memora":
            if video:
                return log.call("search_activities", {"query": query, "video_id": video, "top_k": 8})
            return log.call("search", {"query": query, "top_k": 6})
        if self.family == "flat1d":
            return log.call("search_memory", {"query": query, "video_id": video, "top_k": 8})
        return log.call("search_events", {"query": query, "video_id": video, "top_k": 10})

    def answer(self, question: str, choices: dict[str, str]) -> AnswerResult:
        letter_e = self.cfg.agents.unavailable_letter
        log = CallLog(self.memory)
        if self.family == "parametric":
            return AnswerResult(letter_e, [], [], "parametric: no memory to support any choice")
        m = _VIDEO_RE.search(question)
        video = m.group(1) if m else None
        if "?" in (video or "") or (m is None and re.search(r"[A-Z]\d{2}_\?", question)):
            video = "__unknown__"
        texts: list[str] = []
        evidence: list[Evidence] = []
        letters = [k for k in sorted(choices) if k != letter_e][: max(self.cfg.agents.max_answer_searches - 1, 0)]
        queries = [question] + [f"{question} {choices[k]}" for k in letters]
        for q in queries[: self.cfg.agents.max_answer_searches]:
            r = self._search(log, q, video)
            evidence += r.evidence
            for it in r.items:
                texts.append(" ".join(str(it.get(k, "")) for k in ("summary", "text", "statement", "goal"))
                             + " " + " ".join(it.get("steps", []) or []))
        q_toks = set(tokens(question))
        scores = {}
        for k in letters:
            c_toks = set(tokens(choices[k]))
            best = 0.0
            for t in texts:
                tt = set(tokens(t))
                if not c_toks:
                    continue
                rel = 0.5 + 0.5 * (len(q_toks & tt) / len(q_toks) if q_toks else 0.0)
                best = max(best, len(c_toks & tt) / len(c_toks) * rel)
            scores[k] = round(best, 4)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        raw = "scores " + ", ".join(f"{k}={v}" for k, v in ranked)
        if not ranked or ranked[0][1] < self.cfg.agents.answer_min_support or (
                len(ranked) > 1 and ranked[0][1] - ranked[1][1] < self.cfg.agents.answer_margin):
            return AnswerResult(letter_e, _unique_evidence(evidence)[:20], log.calls, raw + f" -> {letter_e}")
        return AnswerResult(ranked[0][0], _unique_evidence(evidence)[:20], log.calls, raw + f" -> {ranked[0][0]}")
