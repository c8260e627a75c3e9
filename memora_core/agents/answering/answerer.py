"""The structured answerer: retrieval through the condition's own tools (the question, all choices at once,
routines and habits where asked about, the temporal context around the best hits), then the decision."""
from __future__ import annotations

from typing import Any

from memora_core.agents.answering.decision import AnswerResult, ChoiceDecision
from memora_core.agents.answering.question import Question, analyse
from memora_core.agents.answering.routines import routine_views, shared_choice_words
from memora_core.agents.answering.scoring import question_relevance, window_coverage
from memora_core.agents.answering.windows import KNOWLEDGE_KINDS, Window, split_actions, windows_from
from memora_core.agents.calls import CallLog
from memora_core.agents.config import AgentsConfig, load_agents_config
from memora_core.agents.knowledge_support import knowledge_views
from memora_core.schemas import Evidence
from memora_core.tools.registry import ToolResult
from memora_core.tools.text import tokens


class StructuredAnswerer(ChoiceDecision):
    """`.answer(question, choices) -> AnswerResult`; deterministic; at most `max_answer_searches` tool calls."""

    kind = "structured"

    def __init__(self, memory: Any, config: AgentsConfig | None = None, vocabulary: Any = None) -> None:
        self.memory = memory
        self.cfg = config or load_agents_config()
        self.family = getattr(memory, "family", "memora")
        self.vocab = vocabulary

    def _vocabulary(self) -> Any:
        from memora_core.agents.vocab import default_vocabulary  # word knowledge, loaded once per process

        return self.vocab if self.vocab is not None else default_vocabulary()

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
        q = analyse(question, self.cfg, self._vocabulary() if a.answer_category_coverage else None)
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
        if self.family == "memora" and q.video and a.episode_weight > 0 and len(log.calls) < budget \
                and "get_episode_steps" in self.memory.tool_names:
            # a question about one video and the objects it names: the episode's consolidated step list
            # about them (every step once, in the order done), not only the fragments a search ranks first
            about = " ".join(self._choice_objects(q.text))
            if about:
                r = log.call("get_episode_steps", {"video_id": q.video, "about": about})
                evidence += r.evidence
                windows += [Window(w.steps, w.evidence, a.episode_weight) for w in windows_from(r)]
        # temporal context around the hits that the question names best, in the remaining budget
        def hit_rel(it: dict[str, Any]) -> float:
            texts = split_actions(it.get("text") or it.get("summary") or "")
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
        if self.family != "memora":
            known: list = []
        elif q.direction > 0:
            known = knowledge_views(habit_items, q.text, a.answer_trigger_min, ("habit",))
            if a.knowledge_next_preferences:
                known += knowledge_views(pref_items, q.text, a.answer_trigger_min, ("preference",))
        else:
            known = knowledge_views(pref_items, q.text, a.answer_trigger_min, ("preference",))
        return self._decide(q, choices, letters, windows, evidence, log, routines, known)
