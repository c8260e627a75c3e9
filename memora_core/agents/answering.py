"""Deterministic EAM-QA answerer: retrieve through the condition's own tools, score every choice against
the retrieved episodes, commit to the best-supported choice, and answer E only when memory has nothing
relevant or supports no choice.

The same scoring serves every condition; the conditions differ only in what their tools return:
- retrieval (at most `max_answer_searches` calls): the question, then all choices at once, then the
  temporal context around the hits most relevant to the question (read_log / get_temporal_neighbors /
  a time-ranged search_activities), so that "what comes next" is visible to every memory family;
- units: each retrieved item becomes an ordered *window* of short action texts (a log line, an activity,
  a graph neighbourhood, a routine's steps, a habit "after X, Y");
- choice support: the choice is split into clauses ("X, then Y"); each clause is matched to the window's
  steps by token F1 and MiniLM cosine (the choices are paraphrases of the narrations), in order. For
  questions about what follows (or precedes) an action, only steps just after (before) a step that the
  question names count, so the choice must be the observed successor, and repeated observations add up.
- full MEMORA, questions about a procedure ("what approach / workflow / order ..."): the relevant routines
  are read with get_routine_skill and each choice is also scored against a routine's canonical ordered
  steps (weighted LCS of the choice's clauses over the steps, so order matters) and its key objects; the
  other conditions have no routines and keep their own read interfaces.
- full MEMORA, typed preferences and habits (agents.knowledge_support): for a 'what next' question, the habits
  its action triggers (get_preferences(after=...)); otherwise the preferences the searches returned about
  objects the question names. Each choice gains the support of the option it describes (its count relative
  to the most frequent one). Whether memory supports an answer at all is judged on the episodes, or on
  a typed record that backs the best choice by at least `knowledge_min_support` (the episodes may say it in
  other words than the question).
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memora_core.agents.calls import CallLog
from memora_core.agents.config import AgentsConfig, load_agents_config
from memora_core.agents.knowledge_support import KnowledgeView, knowledge_support, knowledge_views
from memora_core.schemas import Evidence, unique_evidence
from memora_core.tools.registry import ToolResult
from memora_core.tools.text import tokens

log = logging.getLogger(__name__)

_VIDEO_RE = re.compile(r"\b([A-Z]\d{2}_\d{2,3})\b")
_MASKED_VIDEO_RE = re.compile(r"\b[A-Z]\d{2}_\d*\?")
_CLAUSE_SPLIT = re.compile(r",\s*(?:and\s+)?then\s+|\s+and\s+then\s+|,\s*then\s+|\s+then\s+|;\s*|,\s+and\s+|,\s+")


KNOWLEDGE_KINDS = ("habit", "preference")  # the `kind` of typed preference and habit items

# ------------------------------------------------------------------ embeddings (one model per process)
_EMB_CACHE: dict[str, np.ndarray] = {}


def _embedder(backend: str):
    if backend == "none":
        return None
    from memora_core.config import EmbeddingConfig
    from memora_core.store.embedding import make_embedder

    try:
        return make_embedder(EmbeddingConfig(backend=backend))
    except Exception as exc:  # a missing model degrades to lexical scoring, never a crash
        log.warning("answer embedder %s unavailable (%s): lexical scoring only", backend, exc)
        return None


def embed_texts(texts: list[str], backend: str) -> dict[str, np.ndarray]:
    """Unit vectors for texts; cached per process because the same narrations recur across questions."""
    emb = _embedder(backend)
    if emb is None:
        return {}
    key = lambda t: f"{backend}:{t}"  # noqa: E731
    todo = sorted({t for t in texts if key(t) not in _EMB_CACHE})
    if todo:
        for t, v in zip(todo, emb.embed(todo)):
            _EMB_CACHE[key(t)] = v
    return {t: _EMB_CACHE[key(t)] for t in texts}


# ------------------------------------------------------------------ windows
@dataclass
class Window:
    """An ordered run of short action texts from one place in memory, with its evidence."""

    steps: list[str]
    evidence: list[Evidence] = field(default_factory=list)
    weight: float = 1.0  # consolidated statements that summarise many episodes count more

    def tokens(self) -> set[str]:
        return {t for s in self.steps for t in tokens(s)}


def _split_actions(text: str) -> list[str]:
    text = str(text).split(" | seen:")[0]
    return [p.strip() for p in text.split(";") if p.strip()]


def windows_from(res: ToolResult) -> list[Window]:
    """Each family's items as windows; graph events (one action each) are merged per call in time order."""
    out: list[Window] = []
    events: list[dict[str, Any]] = []
    for it in res.items:
        ev = [Evidence(video_id=it["video_id"], start_s=float(it["start_s"]),
                       end_s=max(float(it["end_s"]), float(it["start_s"])))] if it.get("video_id") \
            and it.get("start_s") is not None and it.get("end_s") is not None else []
        if "event_id" in it:
            events.append(it)
        elif "actions" in it:  # MEMORA activity
            out.append(Window([a.get("text") or " ".join([a["verb"], *a["nouns"]]) for a in it["actions"]], ev))
        elif "steps" in it and "goal" in it:  # routine
            eps = [Evidence.model_validate(e) for e in it.get("episodes", [])[:3]]
            out.append(Window(list(it["steps"]), eps, weight=1.0 + 0.1 * min(int(it.get("frequency", 1)), 5)))
        elif it.get("kind") in KNOWLEDGE_KINDS:  # typed Inferred Knowledge
            eps = [Evidence.model_validate(e) for e in it.get("episodes", [])[:3]]
            steps = [it["after_text"], it["text"]] if it["kind"] == "habit" else [it["choice_text"]]
            out.append(Window(steps, eps, weight=1.0 + 0.5 * float(it.get("confidence", 0.0))))
        elif "text" in it and it.get("kind", "log") == "log":  # flat log line
            out.append(Window(_split_actions(it["text"]), ev))
    if events:
        events.sort(key=lambda e: (e["video_id"], float(e["start_s"])))
        run: list[dict[str, Any]] = []
        for e in events:
            if run and (e["video_id"] != run[-1]["video_id"] or float(e["start_s"]) - float(run[-1]["end_s"]) > 30):
                out.append(_event_window(run))
                run = []
            run.append(e)
        out.append(_event_window(run))
    return [w for w in out if w.steps]


def _event_window(run: list[dict[str, Any]]) -> Window:
    return Window([e["text"] for e in run], [Evidence(video_id=e["video_id"], start_s=float(e["start_s"]),
                                                      end_s=max(float(e["end_s"]), float(e["start_s"])))
                                             for e in run])


# ------------------------------------------------------------------ question analysis
@dataclass
class Question:
    text: str
    content: set[str]
    video: str | None
    masked_video: bool
    direction: int  # +1: asks what follows an action; -1: what precedes it; 0: neither
    procedure: bool = False  # asks for a way of doing something (approach, workflow, order of steps)


def analyse(question: str, cfg: AgentsConfig) -> Question:
    stem_text = question.split("\n\n")[0].strip()  # the benchmark's instruction suffix is not content
    m = _VIDEO_RE.search(stem_text)
    masked = m is None and bool(_MASKED_VIDEO_RE.search(stem_text))
    filler = set(tokens(" ".join(cfg.agents.question_filler_words)))
    content = {t for t in tokens(stem_text) if t not in filler and not re.fullmatch(r"[a-z]\d{2}", t)
               and not t.isdigit()}
    low = stem_text.lower()
    after = re.search(r"\b(next|after|afterwards|follows?|followed|leads? to|then)\b", low)
    before = re.search(r"\b(before|prior to|first)\b", low)
    direction = 1 if after else (-1 if before and "before" in low else 0)
    proc_words = set(tokens(" ".join(cfg.agents.routine_question_words)))
    procedure = bool(proc_words & set(tokens(stem_text)))
    return Question(stem_text, content, m.group(1) if m else None, masked, direction, procedure)


def clauses(choice: str) -> list[str]:
    parts = [p.strip(" .") for p in _CLAUSE_SPLIT.split(choice.strip().rstrip(".")) if p and p.strip(" .")]
    return [p for p in parts if tokens(p)] or [choice]


# ------------------------------------------------------------------ scoring
class Scorer:
    """Similarity of short texts: token F1 of stems blended with embedding cosine."""

    def __init__(self, vectors: dict[str, np.ndarray], lexical_weight: float) -> None:
        self.vectors = vectors
        self.w = lexical_weight
        self._cache: dict[tuple[str, str], float] = {}

    def sim(self, a: str, b: str) -> float:
        key = (a, b)
        if key in self._cache:
            return self._cache[key]
        ta, tb = set(tokens(a)), set(tokens(b))
        common = len(ta & tb)
        f1 = 2 * common / (len(ta) + len(tb)) if ta and tb and common else 0.0
        va, vb = self.vectors.get(a), self.vectors.get(b)
        if va is None or vb is None:
            s = f1
        else:
            s = self.w * f1 + (1 - self.w) * max(0.0, float(va @ vb))
        self._cache[key] = s
        return s


def question_relevance(q: Question, step: str) -> float:
    """Share of a step's content words that the question names ('pick up bowl' in 'picks up a bowl')."""
    st = set(tokens(step))
    return len(st & q.content) / len(st) if st else 0.0


def window_coverage(q: Question, w: Window) -> float:
    if not q.content:  # 'What was the person doing in video X?': the video scope is the whole question
        return 1.0 if w.steps else 0.0
    return len(q.content & w.tokens()) / len(q.content)


def _ordered_match(parts: list[str], steps: list[str], scorer: Scorer) -> float:
    """Mean best match of each clause, with a bonus when the clauses' matches appear in the stated order."""
    best = [max(((scorer.sim(p, s), j) for j, s in enumerate(steps)), default=(0.0, -1)) for p in parts]
    score = sum(b for b, _ in best) / len(best)
    if len(parts) > 1:
        order = [j for _, j in best]
        in_order = all(a < b for a, b in zip(order, order[1:]))
        score *= 1.0 if in_order else 0.8
    return score


def window_support(q: Question, parts: list[str], w: Window, scorer: Scorer, trigger_min: float) -> float:
    if q.direction == 0:
        return _ordered_match(parts, w.steps, scorer) * (0.5 + 0.5 * window_coverage(q, w))
    best = 0.0
    for i, s in enumerate(w.steps):
        if question_relevance(q, s) < trigger_min:
            continue
        # the successor (or predecessor) steps, nearest first, with a decay per position
        rng = range(i + 1, min(len(w.steps), i + 4)) if q.direction > 0 else range(i - 1, max(-1, i - 4), -1)
        nb = [w.steps[j] for j in rng if question_relevance(q, w.steps[j]) < 1.0 or len(parts) > 1]
        for d, _ in enumerate(nb):
            best = max(best, _ordered_match(parts, nb[d:d + len(parts)], scorer) * (1.0 - 0.15 * d))
    return best


def lcs_alignment(parts: list[str], steps: list[str], scorer: Scorer, min_sim: float) -> float:
    """Order-aware match of a choice's clauses to a procedure's ordered steps: weighted longest common
    subsequence (a clause and a step pair up when their similarity reaches `min_sim`, counting that
    similarity), divided by the number of clauses. Clauses stated in the routine's order score higher than
    the same clauses in another order."""
    if not parts or not steps:
        return 0.0
    prev = [0.0] * (len(steps) + 1)
    for p in parts:
        cur = [0.0] * (len(steps) + 1)
        for j, st in enumerate(steps, 1):
            s = scorer.sim(p, st)
            cur[j] = max(prev[j], cur[j - 1], prev[j - 1] + (s if s >= min_sim else 0.0))
        prev = cur
    return prev[-1] / len(parts)


@dataclass
class RoutineView:
    """What the answerer reads from one routine skill: its canonical ordered steps and key objects."""

    goal: str
    steps: list[str]
    key_objects: list[str]
    relevance: float  # share of the question's content words the routine (goal, steps, objects) contains

    def object_tokens(self) -> set[str]:
        return {t for o in self.key_objects for t in tokens(o)} | {t for s in self.steps for t in tokens(s)}


def shared_choice_words(choices: list[str], min_choices: int = 2) -> set[str]:
    """Content words that several choices share: they name the question's topic (the kettle every choice
    talks about), not what distinguishes the answer."""
    counts: dict[str, int] = {}
    for c in choices:
        for t in set(tokens(c)):
            counts[t] = counts.get(t, 0) + 1
    return {t for t, n in counts.items() if n >= min_choices}


def routine_views(items: list[dict[str, Any]], topic: set[str]) -> list[RoutineView]:
    """Distinct routines, each with its lexical relevance: the share of the topic words it contains."""
    out, seen = [], set()
    for it in items:
        if "steps" not in it or "goal" not in it or it.get("routine_id") in seen:
            continue
        seen.add(it.get("routine_id"))
        words = set(tokens(" ".join([it["goal"], *it["steps"], *it.get("key_objects", [])])))
        rel = len(topic & words) / len(topic) if topic else 0.0
        out.append(RoutineView(it["goal"], list(it["steps"]), list(it.get("key_objects", [])), rel))
    return out


def routine_support(parts: list[str], objects: list[str], r: RoutineView, scorer: Scorer, min_sim: float,
                    object_weight: float) -> float:
    """How well a choice describes a routine: its clauses along the routine's steps (in order) and the share
    of the objects it names that the routine uses, weighted by how much of the question the routine covers."""
    seq = lcs_alignment(parts, r.steps, scorer, min_sim)
    if objects:
        have = r.object_tokens()
        obj = sum(1 for o in objects if set(tokens(o)) & have) / len(objects)
    else:
        obj = 0.0
    return r.relevance * ((1 - object_weight) * seq + object_weight * obj)


@dataclass
class AnswerResult:
    letter: str | None
    retrieved_evidence: list[Evidence]
    tool_calls: list[dict]
    raw: str


class StructuredAnswerer:
    """`.answer(question, choices) -> AnswerResult`; deterministic; at most `max_answer_searches` tool calls."""

    kind = "structured"

    def __init__(self, memory: Any, config: AgentsConfig | None = None, vocabulary: Any = None) -> None:
        self.memory = memory
        self.cfg = config or load_agents_config()
        self.family = getattr(memory, "family", "memora")
        self.vocab = vocabulary

    # --- retrieval through the family's own tools
    def _search(self, log: CallLog, query: str, video: str | None, top_k: int) -> ToolResult:
        if self.family == "memora":
            if video is None and "search" in self.memory.tool_names:
                return log.call("search", {"query": query, "top_k": top_k})
            return log.call("search_activities", {"query": query, "video_id": video, "top_k": top_k})
        if self.family == "flat1d":
            return log.call("search_memory", {"query": query, "video_id": video, "top_k": top_k})
        return log.call("search_events", {"query": query, "video_id": video, "top_k": top_k})

    def _context(self, log: CallLog, query: str, hit: dict[str, Any]) -> ToolResult | None:
        """The memory just before and after a hit (the steps a 'what next' question is about)."""
        a = self.cfg.agents
        if self.family == "graph2d" and "event_id" in hit:
            return log.call("get_temporal_neighbors", {"event_id": hit["event_id"], "before": 4, "after": 6})
        if "video_id" not in hit or hit.get("start_s") is None:
            return None
        t0 = max(0.0, float(hit["start_s"]) - a.answer_context_before_s)
        t1 = float(hit["end_s"]) + a.answer_context_after_s
        if self.family == "flat1d":
            return log.call("read_log", {"video_id": hit["video_id"], "start_s": t0, "end_s": t1})
        return log.call("search_activities", {"query": query, "video_id": hit["video_id"], "start_s": t0,
                                              "end_s": t1, "top_k": 6})

    def _absent_objects(self, q: Question, log: CallLog) -> list[str]:
        """The question's specific objects that neither a stored object's name nor its class matches (one
        search_objects call for all of them)."""
        from memora_core.agents.vocab import default_vocabulary

        vocab = self.vocab if self.vocab is not None else default_vocabulary()
        ignore = set(self.cfg.agents.question_filler_words) | set(self.cfg.consolidation.generic_nouns)
        objs = vocab.object_nouns(q.text, ignore)
        if not objs:
            return []
        res = log.call("search_objects", {"name": " ".join(objs), "top_k": 20})
        if not res.ok:
            return []
        names = {t for it in res.items for n in [it["name"], *(it.get("aliases") or [])] for t in tokens(n)}
        classes = {str(it.get("attributes", {}).get("category", "")).lower() for it in res.items}
        return [o for o in objs if not (set(tokens(o)) & names or vocab.siblings(o) in classes)]

    def answer(self, question: str, choices: dict[str, str]) -> AnswerResult:
        a = self.cfg.agents
        letter_e = a.unavailable_letter
        log = CallLog(self.memory)
        q = analyse(question, self.cfg)
        if self.family == "parametric":
            return AnswerResult(letter_e, [], [], "parametric: no memory to support any choice")
        if q.masked_video:
            return AnswerResult(letter_e, [], [], "the question's video is not identifiable -> " + letter_e)
        letters = [k for k in sorted(choices) if k != letter_e and str(choices[k]).strip()]
        budget = a.max_answer_searches
        if self.family == "memora" and "search_objects" in self.memory.tool_names and a.answer_check_objects:
            absent = self._absent_objects(q, log)
            if absent:
                # typed Entity memory holds every object this person was seen with (by name or class): a
                # question about an object it never held is about someone else's kitchen
                return AnswerResult(letter_e, [], log.calls,
                                    f"not in this person's Entity memory: {', '.join(absent)} -> {letter_e}")
        windows: list[Window] = []
        hits: list[dict[str, Any]] = []
        evidence: list[Evidence] = []
        queries = [q.text, q.text + " " + " ".join(str(choices[k]) for k in letters)]
        routine_items: list[dict[str, Any]] = []
        pref_items: list[dict[str, Any]] = []
        for query in queries[:budget]:
            r = self._search(log, query, q.video, a.answer_top_k)
            evidence += r.evidence
            windows += windows_from(r)
            hits += [it for it in r.items if "video_id" in it and it.get("kind") not in KNOWLEDGE_KINDS
                     and "goal" not in it]
            routine_items += [it for it in r.items if "goal" in it and "steps" in it]
            pref_items += [it for it in r.items if it.get("kind") in KNOWLEDGE_KINDS]
        if self.family == "memora" and q.procedure and a.routine_weight > 0 \
                and "get_routine_skill" in self.memory.tool_names and len(log.calls) < budget:
            # a question about how the person does something: read their routines for it as structured
            # knowledge (canonical ordered steps, key objects), not only as retrieved text
            topic_q = q.text + " " + " ".join(sorted(shared_choice_words([str(choices[k]) for k in letters])))
            r = log.call("get_routine_skill", {"goal_query": topic_q, "top_k": a.routine_top_k})
            evidence += r.evidence
            routine_items += r.items
        habit_items: list[dict[str, Any]] = []
        if self.family == "memora" and q.direction > 0 and a.knowledge_weight > 0 \
                and "get_preferences" in self.memory.tool_names and len(log.calls) < budget:
            # a question about what follows an action: the typed habits that action triggers
            r = log.call("get_preferences", {"after": q.text, "kind": "habit", "top_k": a.routine_top_k})
            evidence += r.evidence
            habit_items = r.items
        # temporal context around the hits that the question names best, in the remaining budget
        def hit_rel(it: dict[str, Any]) -> float:
            texts = _split_actions(it.get("text") or it.get("summary") or "")
            return max((question_relevance(q, t) for t in texts), default=0.0) + 0.01 * window_coverage(
                q, Window(texts))

        seen: set[tuple] = set()
        for it in sorted(hits, key=hit_rel, reverse=True):
            if len(log.calls) >= budget:
                break
            key = (it.get("video_id"), it.get("event_id") or round(float(it.get("start_s", 0)) / 30))
            if key in seen:
                continue
            seen.add(key)
            r = self._context(log, q.text, it)
            if r is not None:
                evidence += r.evidence
                windows += windows_from(r)
        topic = q.content | (shared_choice_words([str(choices[k]) for k in letters]) - set(
            tokens(" ".join(a.question_filler_words))))
        routines = routine_views(routine_items, topic) if self.family == "memora" and q.procedure else []
        # typed knowledge the question names: the habits its action triggers ('what next'), else the
        # preferences about its objects that the searches returned
        known = knowledge_views(habit_items, q.text, a.answer_trigger_min, ("habit",)) if q.direction > 0 else \
            knowledge_views(pref_items, q.text, a.answer_trigger_min, ("preference",)) if self.family == "memora" else []
        return self._decide(q, choices, letters, windows, evidence, log, routines, known)

    def _choice_objects(self, choice: str) -> list[str]:
        from memora_core.agents.vocab import default_vocabulary

        vocab = self.vocab if self.vocab is not None else default_vocabulary()
        ignore = set(self.cfg.agents.question_filler_words) | set(self.cfg.consolidation.generic_nouns)
        return vocab.object_nouns(choice, ignore) if vocab else []

    def _decide(self, q: Question, choices: dict[str, str], letters: list[str], windows: list[Window],
                evidence: list[Evidence], log: CallLog, routines: list[RoutineView] | None = None,
                known: list[KnowledgeView] | None = None) -> AnswerResult:
        a = self.cfg.agents
        letter_e = a.unavailable_letter
        ev = unique_evidence(evidence)[:40]
        coverage = max((window_coverage(q, w) for w in windows), default=0.0)
        parts = {k: clauses(str(choices[k])) for k in letters}
        routines = [r for r in (routines or []) if r.relevance >= a.routine_min_relevance]
        texts = [p for ps in parts.values() for p in ps] + [s for w in windows for s in w.steps] + \
            [s for r in routines for s in r.steps] + [t for v in known or [] for t, _ in v.options]
        scorer = Scorer(embed_texts(texts, a.answer_embedder), a.answer_lexical_weight)
        scores: dict[str, float] = {}
        for k in letters:
            per = sorted((window_support(q, parts[k], w, scorer, a.answer_trigger_min) * w.weight
                          for w in windows), reverse=True)
            top = per[:3] + [0.0] * (3 - len(per[:3]))
            # the best window, plus how consistently the choice recurs ('typically', 'usually')
            scores[k] = round(0.7 * top[0] + 0.3 * sum(top) / 3, 4)
        # whether memory supports an answer at all is judged on the episodes; routines (mined from those
        # same episodes) only say which of the supported choices describes the person's procedure best
        base_best = max(scores.values(), default=0.0)
        if routines:
            objs = {k: self._choice_objects(str(choices[k])) for k in letters}
            for k in letters:
                rs = max(routine_support(parts[k], objs[k], r, scorer, a.routine_min_sim, a.routine_object_weight)
                         for r in routines)
                scores[k] = round(scores[k] + a.routine_weight * rs, 4)
        typed: dict[str, float] = {}  # what the typed preferences / habits add to each choice
        if known:
            for k in letters:
                typed[k] = a.knowledge_weight * knowledge_support(parts[k][0], known, scorer.sim, a.knowledge_min_sim)
                scores[k] = round(scores[k] + typed[k], 4)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        raw = f"coverage={coverage:.2f} scores " + ", ".join(f"{k}={v}" for k, v in ranked)
        # a typed preference or habit about what the question names that backs the best choice is memory
        # support in its own right, even where the episodes say it in other words than the question
        backed = bool(ranked) and typed.get(ranked[0][0], 0.0) > 0 and \
            typed[ranked[0][0]] >= a.knowledge_min_support
        if backed:
            raw += " (backed by typed knowledge)"
        if not ranked or (not backed and (coverage < a.answer_min_coverage or base_best < a.answer_min_support)) \
                or (len(ranked) > 1 and ranked[0][1] - ranked[1][1] < a.answer_margin):
            return AnswerResult(letter_e, ev, log.calls, raw + f" -> {letter_e}")
        return AnswerResult(ranked[0][0], ev, log.calls, raw + f" -> {ranked[0][0]}")
