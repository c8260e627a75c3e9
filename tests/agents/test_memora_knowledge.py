"""What full MEMORA's planner does with typed memory that the other conditions lack: task objects resolved
through Entity memory's stored taxonomy class, the person's routine for a verb completing a recalled episode,
and a routine's tools picked up. On P06's real memory (shared data), checked for behaviour, not for scores."""
from __future__ import annotations

from memora_core.agents.structured import StructuredPlanner
from memora_core.conditions import build_condition
from memora_core.tools.registry import SearchObjectsArgs


def test_search_objects_finds_an_object_by_its_class(p06_store):
    memory = build_condition("memora", p06_store, "P06")
    by_name = {e.name for e in memory.entities}
    assert "counter" in by_name and "countertop" not in by_name
    res = memory.search_objects(SearchObjectsArgs(name="countertop", top_k=5))
    assert res.items and res.items[0]["name"] == "counter"  # same EPIC class 'top', another name
    assert res.items[0]["attributes"]["category"] == "top"
    # a name match still outranks a class match
    res = memory.search_objects(SearchObjectsArgs(name="counter top", top_k=5))
    assert res.items[0]["name"] == "counter"
    assert not memory.search_objects(SearchObjectsArgs(name="spaceship", top_k=5)).items


def test_memora_plans_with_the_persons_name_for_a_task_object(p06_store):
    memory = build_condition("memora", p06_store, "P06")
    plan = StructuredPlanner(memory).plan("Help P06 clear and clean the whole countertop by the window.")
    assert any("resolved to this person's 'counter'" in m for m in plan.missing)
    assert plan.tool_calls[0]["tool"] == "search_objects" and len(plan.tool_calls) <= 8
    labels = [s.text for s in plan.steps]
    # both verbs are planned from memory: the person wipes the counter (their word for cleaning it)
    assert any(s.object == "counter" and s.action in {"wipe", "clean"} for s in plan.steps), labels
    assert not any("window" in lbl or "whole" in lbl for lbl in labels)
    # Flat-1D has no typed entities: it gets no class resolution (its own interface is unchanged)
    flat = StructuredPlanner(build_condition("flat1d_raw", p06_store, "P06")).plan(
        "Help P06 clear and clean the whole countertop by the window.")
    assert not any("resolved to" in m for m in flat.missing)


def test_routine_tools_and_verb_routine(p06_store):
    memory = build_condition("memora", p06_store, "P06")
    planner = StructuredPlanner(memory)
    chop = next(r for r in memory.routines if "chopping board" in r.key_objects
                and not any("chopping board" in s for s in r.steps))
    tools = planner._tool_objects(chop.model_dump(mode="json"), list(chop.steps))
    assert "chopping board" in tools and "hand" not in tools  # a utensil, never a body part
    assert len(tools) <= planner.cfg.agents.max_routine_tools
    plan = planner.plan("Help P06 please wash the dishes for me.")
    labels = [s.text for s in plan.steps]
    # the recalled plate-washing is completed by how this person washes things (the tap on and off)
    assert any(s.object == "plate" for s in plan.steps) and "turn on the tap" in labels, labels
    assert len(plan.tool_calls) <= 8


def test_question_objects_and_the_optional_entity_check(p06_store):
    from memora_core.agents.answering import StructuredAnswerer
    from memora_core.agents.config import load_agents_config
    from memora_core.agents.vocab import default_vocabulary

    v = default_vocabulary()
    # inflected verbs are not objects; a modifier noun gives way to its head ('tea towel' -> towel)
    assert v.object_nouns("When tidying the tea towel after setting the kettle down") == ["towel", "kettle"]
    cfg = load_agents_config()
    cfg.agents.answer_embedder = "none"
    cfg.agents.answer_check_objects = True
    memory = build_condition("memora", p06_store, "P06")
    choices = {"A": "spreads it with a knife", "B": "uses a spoon", "C": "tilts the plate", "D": "shakes it",
               "E": "Information not available in memory."}
    res = StructuredAnswerer(memory, cfg).answer("When spreading honey on a croissant, how does P06 smooth it out?", choices)
    assert res.letter == "E" and "croissant" in res.raw and res.tool_calls[0]["tool"] == "search_objects"
    res = StructuredAnswerer(memory, cfg).answer("After P06 fills the kettle, what do they do next?", choices)
    assert "Entity memory" not in res.raw  # the kettle is in this person's memory: answered from retrieval
