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
  steps by token F1 and MiniLM cosine (the choices are paraphrases of the narrations), in order (the best
  pairing of the clauses to distinct steps in the stated order; 'it' / 'them' name their object). For
  questions about what follows (or precedes) an action, only steps just after (before) a step that the
  question names count, so the choice must be the observed successor, and repeated observations add up.
- full MEMORA, questions about a procedure ("what approach / workflow / order ..."): the relevant routines
  are read with get_routine_skill and each choice is also scored against a routine's canonical ordered
  steps (weighted LCS of the choice's clauses over the steps, so order matters) and its key objects; the
  other conditions have no routines and keep their own read interfaces.
- full MEMORA, a question about one video and an object: that episode's consolidated step list about the
  object (get_episode_steps: each narrated step once, in the order done; consolidation.episodes) is one
  more window, weighted `episode_weight`.
- full MEMORA, typed preferences and habits (agents.knowledge_support): for a 'what next' question, the habits
  its action triggers (get_preferences(after=...)); otherwise the preferences the searches returned about
  objects the question names (a record counts only when the question names its object). Each choice gains the support of the option it describes (its count relative
  to the most frequent one). Whether memory supports an answer at all is judged on the episodes, or on
  a typed record that backs the best choice by at least `knowledge_min_support` (the episodes may say it in
  other words than the question).

Files: embeddings (vectors, cached), windows (retrieved items as ordered action texts), question (question
analysis, choice clauses), scoring (choice support in a window), routines (routine support), decision
(scores -> answer or E), answerer (retrieval, StructuredAnswerer); typed knowledge support is
memora_core.agents.knowledge_support.
"""
from memora_core.agents.answering.answerer import StructuredAnswerer
from memora_core.agents.answering.decision import AnswerResult
from memora_core.agents.answering.embeddings import embed_texts
from memora_core.agents.answering.question import Question, analyse, clauses
from memora_core.agents.answering.routines import (
    RoutineView, lcs_alignment, routine_support, routine_views, shared_choice_words,
)
from memora_core.agents.answering.scoring import Scorer, question_relevance, window_coverage, window_support
from memora_core.agents.answering.windows import KNOWLEDGE_KINDS, Window, windows_from

__all__ = ["KNOWLEDGE_KINDS", "AnswerResult", "Question", "RoutineView", "Scorer", "StructuredAnswerer", "Window",
           "analyse", "clauses", "embed_texts", "lcs_alignment", "question_relevance", "routine_support",
           "routine_views", "shared_choice_words", "window_coverage", "window_support", "windows_from"]
