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
from dataclasses import replace
from typing import Any

from memora_core.agents.calls import CallLog
from memora_core.agents.config import AgentsConfig, load_agents_config
from memora_core.agents.instruction import InstructionParser, ParsedInstruction, Task
from memora_core.agents.instruction.needs import match_need
from memora_core.agents.instruction.normalise import clean
from memora_core.agents.step_text import _PARTICLES, _PREPS, grounding_order, spoken, with_place
from memora_core.agents.vocab import Vocabulary, default_vocabulary
from memora_core.consolidation.procedures import Step, split_procedures
from memora_core.schemas import Evidence, Plan, PlanStep, unique_evidence
from memora_core.tools.registry import ToolResult
from memora_core.tools.text import overlap, stem, tokens

_VIDEO_RE = re.compile(r"\b([A-Z]\d{2}_\d{2,3})\b")


# ------------------------------------------------------------------ task and step text
def object_heads(task: Task, vocab: Vocabulary) -> list[str]:
    """The objects a task names, one per noun phrase, each by its head: the last word of the phrase the
    vocabulary knows as an object (without a vocabulary: its last word), singular ('kitchen worktop' ->
    worktop)."""
    heads: list[str] = []
    for phrase in task.objects:
        ws = phrase.lower().split()
        known = [w for w in ws if vocab.is_object(w)] if vocab else ws
        if known:
            head = vocab.singular(known[-1]) if vocab else _singular(known[-1])
            if head not in heads:
                heads.append(head)
    return heads


def _singular(word: str) -> str:
    for suffix, keep in (("ies", "y"), ("shes", "sh"), ("ches", "ch"), ("oes", "o"), ("s", "")):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 2:
            return word[: -len(suffix)] + keep
    return word


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


def relevance(task: "Task", verbs: str, text: str, soft_verbs: set[str],
              synonyms: frozenset[str] = frozenset()) -> tuple[float, bool, float]:
    """(score, verb matched, object share): objects weigh most, then the verb. `verbs` holds only the
    candidate's action verbs, so 'washing up liquid' in an object name never matches the verb 'wash'."""
    toks = set(tokens(text))
    objs = set(tokens(task.obj))
    verb_hit = bool(({stem(task.verb)} | synonyms) & set(tokens(verbs)))
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


def coverage(task: Task, labels: list[str], soft_verbs: set[str], synonyms: frozenset[str] = frozenset()) -> float:
    """How much of the task a candidate step sequence is about: half for doing the task's verb (a goal verb
    such as 'prepare' is satisfied by any procedure), half for the share of the task's objects it handles."""
    objs = set(tokens(task.obj))
    have = {t for lbl in labels for t in tokens(lbl)}
    verbs = {t for lbl in labels for t in tokens(split_label(lbl)[0])}
    verb_ok = bool(({stem(task.verb)} | synonyms) & verbs) or task.verb in soft_verbs
    return 0.5 * verb_ok + 0.5 * (len(objs & have) / len(objs) if objs else float(verb_ok))


def merge_with_prior(prior: list[str], recalled: list[str]) -> list[str]:
    """A transferred procedure completed by the generic task frame every planner knows: recalled steps keep
    their order; a prior step whose verb the recalled procedure lacks is inserted where the frame puts it."""
    out: list[str] = []
    rest = list(recalled)
    for p in prior:
        pv = split_label(p)[0]
        j = next((i for i, r in enumerate(rest) if split_label(r)[0] == pv), None)
        if j is None:
            out.append(p)
        else:
            out += rest[: j + 1]
            rest = rest[j + 1:]
    return out + rest


# ------------------------------------------------------------------ planner
class StructuredPlanner:
    """`.plan(instruction) -> Plan`; deterministic; every tool call is logged in Plan.tool_calls.

    Per (sub)task the candidates are a recalled episode (every memory family, through its own tools) and,
    for full MEMORA, consolidated routines; the one that covers the task best wins (an exact episode beats a
    canonical routine on ties, a routine beats a loosely related episode). Preferences then fill open tool /
    place choices and add habitual follow-up steps; every object is grounded and located through memory."""

    kind = "structured"

    def __init__(self, memory: Any, config: AgentsConfig | None = None,
                 vocabulary: Vocabulary | None = None) -> None:
        self.memory = memory
        self.cfg = config or load_agents_config()
        self.family = getattr(memory, "family", "memora")
        self._routines_cached: dict[str, list[dict]] = {}
        self._shared_routines: list[dict] | None = None
        self.vocab = vocabulary if vocabulary is not None else default_vocabulary()
        self._parser: InstructionParser | None = None

    def synonyms(self, verb: str) -> frozenset[str]:
        """Stemmed verbs that do the same job as `verb` ('clean' -> wipe, wash, scrub)."""
        syn = self.cfg.agents.verb_synonyms
        return frozenset(stem(v) for v in syn.get(verb, []) + syn.get(stem(verb), []))

    # budget: every planner gets the same number of tool calls
    def _budget_left(self, log: CallLog, reserve: int = 0) -> bool:
        return len(log.calls) + reserve < self.cfg.agents.max_iterations

    def _call(self, log: CallLog, tool: str, args: dict) -> ToolResult:
        if not self._budget_left(log):
            return ToolResult(tool=tool, ok=False, error="tool budget exhausted")
        return log.call(tool, args)

    def parse(self, instruction: str) -> ParsedInstruction:
        """The instruction read into typed tasks (memora_core.agents.instruction)."""
        if self._parser is None:
            self._parser = InstructionParser(self.vocab, self.cfg.agents.soft_task_verbs)
        return self._parser.parse(instruction)

    def plan(self, instruction: str) -> Plan:
        parsed = self.parse(instruction)
        log = CallLog(self.memory)
        self._routines_cached = {}
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
        labels = _dedupe(labels)[: self.cfg.agents.max_plan_steps]
        plan.steps = [PlanStep(index=i, action=a, object=o, target=t, text=label, evidence=ev)
                      for i, (label, ev) in enumerate(labels) for a, o, t in [split_label(label)]]
        self._ground(plan, log)
        for s in plan.steps:
            s.text = spoken(s.text, s.action)
        plan.evidence = unique_evidence([e for s in plan.steps for e in s.evidence])
        plan.tool_calls = log.calls
        return plan

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

    def _plan_subtask(self, task: Task, log: CallLog, plan: Plan, reserve: int) -> list[tuple[str, list[Evidence]]]:
        has_routines = "get_routine_skill" in self.memory.tool_names
        soft = set(self.cfg.agents.soft_task_verbs)
        cands: list[tuple[float, int, list[tuple[str, list[Evidence]]], str | None]] = []
        if has_routines and self._budget_left(log, reserve):
            for r in self._routines(task, log):
                lbls = [st for st in r["steps"]]
                ev = [Evidence.model_validate(e) for e in r["episodes"][:3]]
                cov = coverage(task, [r["goal"], *lbls], soft, self.synonyms(task.verb))
                cands.append((cov, 0, _dedupe([(st, ev) for st in lbls]), r["routine_id"]))
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
                labels = _dedupe([(lbl, by_label.get(lbl, [])) for lbl in merged])
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
            return _dedupe(out)
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
                        return _dedupe([(st, ev) for st in steps])
        if self._budget_left(log, reserve + 1):
            rec = self._recall(task, log, plan, transfer=True)
            if rec:
                return rec
        return best[2] if best is not None and best[0] > 0 else []

    # --- Inferred Knowledge (full MEMORA): the person's canonical way of doing a verb, and its tools
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
            cls = self.vocab.siblings(o.split()[-1]) if self.vocab else None
            cat = self.vocab.class_category.get(cls or "", "") if self.vocab else ""
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
                labels = _dedupe([(lbl, by_label.get(lbl, ev)) for lbl in merged])
        if rt is not None:
            ev = [Evidence.model_validate(e) for e in rt["episodes"][:2]]
            tools = self._tool_objects(rt, [lbl for lbl, _ in labels])
            if tools:
                plan.missing.append(f"tools from routine {rt['routine_id']}: {', '.join(tools)}")
            labels = [(f"pick up {t}", ev) for t in tools] + labels
        return labels

    # --- composition: a task memory does not cover as a whole, planned object by object
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
        return _dedupe(out)

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
        or recalled procedure, from its first to its last mention; the task verb is added when missing."""
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

    def _routines(self, task: Task, log: CallLog) -> list[dict]:
        if self._shared_routines is not None:
            self._routines_cached[task.text] = self._shared_routines
            return self._shared_routines
        res = self._call(log, "get_routine_skill", {"goal_query": task.text, "top_k": 5})
        self._routines_cached[task.text] = res.items
        return res.items

    def _transfer(self, task: Task, labels: list[str], plan: Plan, source: str) -> list[str]:
        """Put the task's object in place of the object the same verb was observed with."""
        src = next((split_label(lbl)[1] for lbl in labels if stem(task.verb) in tokens(split_label(lbl)[0])
                    and split_label(lbl)[1]), None)
        if not src or not task.objects:
            return []
        plan.missing.append(f"transferred '{task.verb}' from '{src}' to '{task.obj}' ({source})")
        return [re.sub(rf"\b{re.escape(src)}\b", task.obj, lbl) for lbl in labels]

    # --- episodic recall, through each family's own tools
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
                return _dedupe([(lbl, [by_label[lbl].evidence()] if lbl in by_label else []) for lbl in merged])
        else:
            steps, score = procedure_around(self._search_and_window(task.text, task, log), task, self.cfg)
            if score <= 0:
                return []
            labels = [s.label() for s in steps]
        return _dedupe([(lbl, [Evidence(video_id=s.video_id, start_s=s.start_s, end_s=max(s.end_s, s.start_s))])
                        for lbl, s in zip(labels, steps)])

    def _has_template(self, verb: str) -> bool:
        return verb in self.cfg.templates or stem(verb) in self.cfg.templates

    def _from_template(self, task: Task, dest: str | None = None) -> list[tuple[str, list[Evidence]]]:
        tpl = self.cfg.templates.get(task.verb) or self.cfg.templates.get(stem(task.verb)) \
            or self.cfg.templates.get("default", ["{verb} {obj}"])
        # a template line that needs a destination the task does not name just puts the object down
        lines = [t if dest or "{dest}" not in t else "put down {obj}" for t in tpl]
        return _dedupe([(t.format(verb=task.verb, obj=task.obj, dest=dest or ""), []) for t in lines])

    # --- preferences: fill open tool/place choices, add habitual follow-ups, note processing habits
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

    # --- grounding: entity ids and locations from each family's memory; targets from the plan's own places
    def _ground(self, plan: Plan, log: CallLog) -> None:
        objects: list[str] = []
        for s in plan.steps:
            for o in (s.object, s.target):
                if o and o not in objects:
                    objects.append(o)
        # the plan's own placements ('put colander in sink') say where an object goes
        placed = {s.object: s.target for s in plan.steps if s.object and s.target}
        found: dict[str, tuple[str | None, list[Evidence], str | None]] = {}
        for o in grounding_order(plan.steps, objects, placed):
            if not self._budget_left(log) or self.family == "parametric":
                break
            if self.family == "memora":
                r = self._call(log, "search_objects", {"name": o, "top_k": 1})
                hit = r.items[0] if r.items and overlap(o, r.items[0]["name"]) > 0 else None
                if hit:
                    found[o] = (hit["entity_id"], r.evidence[:1], hit.get("location"))
            elif self.family == "graph2d":
                r = self._call(log, "search_entities", {"name": o, "top_k": 1})
                if r.items:
                    found[o] = (r.items[0]["node_id"], [], r.items[0].get("location"))
            elif self.family == "flat1d":
                r = self._call(log, "search_memory", {"query": f"put {o}", "top_k": 5})
                lines = [ln for ln in r.items if overlap(o, ln["text"]) > 0]
                if lines:
                    found[o] = (None, r.evidence[:1], _place_in_lines(o, [ln["text"] for ln in lines]))
        for s in plan.steps:
            if s.object in found:
                s.entity_id = found[s.object][0]
                s.evidence = unique_evidence(s.evidence + found[s.object][1])
            if s.object and not s.target:
                loc = placed.get(s.object) or (found.get(s.object, (None, [], None))[2])
                if loc and loc != s.object:
                    s.target = loc
                    s.text = with_place(s.text, s.action, loc)
        ungrounded = [o for o in objects if o not in found and self.family != "parametric"]
        if ungrounded and len(found) < len(objects):
            plan.missing += [f"object not grounded in memory: {o}" for o in ungrounded
                             if self._budget_left(log) or o in objects[: len(found) + 1]]
        for s in plan.steps:
            if s.object and not s.target:
                plan.missing.append(f"no known location for '{s.object}' (step {s.index})")


def _insert_after_object(labels: list, obj: str, item: tuple) -> list:
    """Insert a step right after the first step that handles `obj` (at the end when none does)."""
    ot = set(tokens(obj))
    i = next((i for i, (lbl, _) in enumerate(labels) if ot <= set(tokens(lbl))), len(labels) - 1)
    return labels[: i + 1] + [item] + labels[i + 1:]


def _place_in_lines(obj: str, lines: list[str]) -> str | None:
    """Where a flat log says the object was put ('put bowl in sink' -> 'sink'): the most frequent place."""
    counts: dict[str, int] = {}
    for text in lines:
        for part in text.split(" | seen:")[0].split(";"):
            _, o, t = split_label(part.strip())
            if o == obj and t:
                counts[t] = counts.get(t, 0) + 1
    return max(sorted(counts), key=lambda k: counts[k]) if counts else None


# ------------------------------------------------------------------ answerer (memora_core.agents.answering)
from memora_core.agents.answering import AnswerResult, StructuredAnswerer  # noqa: E402,F401
