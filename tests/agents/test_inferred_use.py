"""MEMORA-specific uses of Inferred Knowledge: routine questions answered against a routine's canonical
ordered steps and key objects (order-aware), and preferences applied to structured plans."""
from __future__ import annotations

from memora_core.agents.answering import (
    RoutineView, Scorer, StructuredAnswerer, analyse, lcs_alignment, routine_support, shared_choice_words,
)
from memora_core.agents.config import load_agents_config
from memora_core.conditions import build_condition

KETTLE = ["open kettle", "turn on tap", "fill kettle", "turn off tap", "close kettle", "turn on kettle"]


def test_lcs_alignment_is_order_aware():
    sc = Scorer({}, 1.0)  # lexical only: deterministic
    in_order = lcs_alignment(["open the kettle", "fill the kettle at the tap"], KETTLE, sc, 0.3)
    reversed_ = lcs_alignment(["fill the kettle at the tap", "open the kettle"], KETTLE, sc, 0.3)
    assert in_order > reversed_ > 0
    assert lcs_alignment(["chop onion"], KETTLE, sc, 0.3) == 0.0
    assert lcs_alignment([], KETTLE, sc, 0.3) == 0.0


def test_routine_support_prefers_the_routines_procedure_and_objects():
    sc = Scorer({}, 1.0)
    r = RoutineView("fill kettle", KETTLE, ["kettle", "tap"], relevance=1.0)
    good = routine_support(["opens the kettle", "fills the kettle at the tap"], ["kettle", "tap"], r, sc, 0.3, 0.3)
    other = routine_support(["fills a pan", "skips the kettle"], ["pan", "kettle"], r, sc, 0.3, 0.3)
    assert good > other
    # an irrelevant routine says nothing
    r0 = RoutineView("fill kettle", KETTLE, ["kettle", "tap"], relevance=0.0)
    assert routine_support(["opens the kettle"], ["kettle"], r0, sc, 0.3, 0.3) == 0.0


def test_procedure_questions_and_topic_words():
    cfg = load_agents_config()
    assert analyse("When making hot water, what setup approach does P06 follow?", cfg).procedure
    assert not analyse("What did P06 pick up after opening the fridge?", cfg).procedure
    assert shared_choice_words(["fills the kettle", "boils the kettle", "fills a pan"]) == {"fill", "kettle"}


def test_memora_reads_routines_for_a_procedure_question_and_others_do_not(p06_store):
    cfg = load_agents_config()
    cfg.agents.answer_embedder = "none"
    q = "When making hot water, what setup approach does P06 follow?"
    choices = {"A": "Boils leftover kettle water without checking.", "B": "Opens and fills the kettle at the tap.",
               "C": "Fills a pan directly and skips the kettle.", "D": "Carries water in a cup to the kettle.",
               "E": "Information not available in memory."}
    res = StructuredAnswerer(build_condition("memora", p06_store, "P06"), cfg).answer(q, choices)
    tools = [c["tool"] for c in res.tool_calls]
    assert "get_routine_skill" in tools and len(tools) <= cfg.agents.max_answer_searches
    res = StructuredAnswerer(build_condition("memora_episodic", p06_store, "P06"), cfg).answer(q, choices)
    assert "get_routine_skill" not in [c["tool"] for c in res.tool_calls]
    # switched off by configuration: no routine read
    cfg.agents.routine_weight = 0.0
    res = StructuredAnswerer(build_condition("memora", p06_store, "P06"), cfg).answer(q, choices)
    assert "get_routine_skill" not in [c["tool"] for c in res.tool_calls]
