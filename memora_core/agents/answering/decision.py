"""The answerer's decision: every choice scored against the windows (plus routines and typed knowledge where
given), then the best-supported choice, or the 'not available' letter when memory supports none."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memora_core.agents.answering.embeddings import embed_texts
from memora_core.agents.answering.question import _PRONOUN_RE, Question, clauses, resolve_pronouns
from memora_core.agents.answering.routines import RoutineView, routine_support
from memora_core.agents.answering.scoring import Scorer, window_coverage, window_support
from memora_core.agents.answering.windows import Window
from memora_core.agents.calls import CallLog
from memora_core.agents.config import AgentsConfig
from memora_core.agents.knowledge_support import KnowledgeView, knowledge_support
from memora_core.schemas import Evidence, unique_evidence


@dataclass
class AnswerResult:
    letter: str | None
    retrieved_evidence: list[Evidence]
    tool_calls: list[dict]
    raw: str


class ChoiceDecision:
    """Scores the choices and commits to one (or to the 'not available' letter); needs `cfg` and `vocab`."""

    cfg: AgentsConfig
    vocab: Any

    def _choice_objects(self, choice: str) -> list[str]:
        from memora_core.agents.vocab import default_vocabulary

        vocab = self.vocab if self.vocab is not None else default_vocabulary()
        ignore = set(self.cfg.agents.question_filler_words) | set(self.cfg.consolidation.generic_nouns)
        return vocab.object_nouns(choice, ignore) if vocab else []

    def _clauses(self, q: Question, choice: str) -> list[str]:
        """A choice's clauses, with 'it' / 'them' replaced by the object they refer to."""
        parts = clauses(choice)
        if not any(_PRONOUN_RE.search(p) for p in parts):
            return parts
        topic = self._choice_objects(q.text)
        first = self._choice_objects(parts[0])
        return resolve_pronouns(parts, topic[0] if topic else "", first[0] if first else "")

    def _decide(self, q: Question, choices: dict[str, str], letters: list[str], windows: list[Window],
                evidence: list[Evidence], log: CallLog, routines: list[RoutineView] | None = None,
                known: list[KnowledgeView] | None = None) -> AnswerResult:
        a = self.cfg.agents
        letter_e = a.unavailable_letter
        ev = unique_evidence(evidence)[:40]
        coverage = max((window_coverage(q, w) for w in windows), default=0.0)
        parts = {k: self._clauses(q, str(choices[k])) for k in letters}
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
