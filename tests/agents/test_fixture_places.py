"""Where the person does an action, from their routines (full MEMORA): a step between turning a fixture on and
off is done at that fixture, and an object picked up elsewhere is moved there first. And grounding reuses the
Entity memory records the plan has already read (invented routines and objects)."""
from __future__ import annotations

from memora_core.agents import make_planner
from memora_core.agents.calls import CallLog
from memora_core.agents.config import load_agents_config
from memora_core.conditions import build_condition
from memora_core.conditions.base import ParametricMemory
from memora_core.schemas import Plan, PlanStep
from memora_core.store.sqlite_store import SQLiteStore
from tests.agents.test_locate_objects import PID, _store

ROUTINES = [
    {"routine_id": "R1", "goal": "rinse mug", "steps": ["turn on tap", "pick up mug", "rinse mug", "turn off tap"]},
    {"routine_id": "R2", "goal": "scrub tray", "steps": ["turn on tap", "scrub tray", "put tray on rack",
                                                         "turn off tap", "scrub tray"]},
    {"routine_id": "R3", "goal": "boil egg", "steps": ["turn on hob", "boil egg", "turn off hob", "peel egg"]},
]


def _planner():
    p = make_planner("structured", ParametricMemory("Z10"))
    p._routines_cached = {"rinse the teapot": ROUTINES}
    return p


def _plan(steps):
    plan = Plan(participant_id="Z10", instruction="rinse the teapot", planner="structured", condition="memora")
    plan.steps = [PlanStep(index=i, action=a, object=o, target=t, text=" ".join(x for x in (a, o) if x)
                           + (f" on {t}" if t else "")) for i, (a, o, t) in enumerate(steps)]
    return plan


def test_fixture_places_come_from_the_steps_between_on_and_off():
    places = _planner()._fixture_places()
    # done while the tap runs: rinse; while the hob is on: boil; picking up and putting are handling; the tray
    # is scrubbed once with the tap on and once with it off, not mostly at the tap
    assert places == {"rinse": "tap", "boil": "hob"}


def test_a_step_is_done_at_its_fixture_and_its_object_moved_there():
    p = _planner()
    plan = _plan([("pick up", "teapot", "shelf"), ("turn on", "tap", None), ("rinse", "teapot", None),
                  ("turn off", "tap", None), ("peel", "egg", None), ("put", "teapot", "tray")])
    p._at_fixtures(plan)
    assert plan.steps[2].target == "tap" and plan.steps[2].text == "rinse teapot at tap"
    assert plan.steps[4].target is None  # peeling is not done at a fixture
    p._carry_to_fixtures(plan)
    assert [s.text for s in plan.steps] == ["pick up teapot on shelf", "move teapot to tap", "turn on tap",
                                            "rinse teapot at tap", "turn off tap", "peel egg", "put teapot on tray"]
    assert [s.index for s in plan.steps] == list(range(7))
    assert plan.steps[1].action == "move" and plan.steps[1].target == "tap"


def test_no_move_when_the_object_is_already_there_or_put_down_first():
    p = _planner()
    plan = _plan([("pick up", "teapot", "tap"), ("rinse", "teapot", None)])
    p._at_fixtures(plan)
    p._carry_to_fixtures(plan)
    assert [s.action for s in plan.steps] == ["pick up", "rinse"]
    plan = _plan([("pick up", "teapot", "shelf"), ("put", "teapot", "tray"), ("rinse", "teapot", None)])
    p._at_fixtures(plan)
    p._carry_to_fixtures(plan)
    assert [s.action for s in plan.steps] == ["pick up", "put", "rinse"]


def test_without_routines_nothing_changes():
    p = make_planner("structured", ParametricMemory("Z10"))
    plan = _plan([("pick up", "teapot", "shelf"), ("rinse", "teapot", None)])
    p._at_fixtures(plan)
    p._carry_to_fixtures(plan)
    assert [(s.action, s.target) for s in plan.steps] == [("pick up", "shelf"), ("rinse", None)]


def test_grounding_reuses_entity_records_already_read(tmp_path):
    """With the call budget spent on an earlier read that returned the jug and the whisk (with their places),
    the plan's steps about them are still grounded, from that read."""
    store: SQLiteStore = _store(tmp_path)
    cfg = load_agents_config()
    cfg = cfg.model_copy(update={"agents": cfg.agents.model_copy(update={"max_iterations": 1})})
    try:
        planner = make_planner("structured", build_condition("memora", store, PID), config=cfg)
        planner._entities_read = {}
        log = CallLog(planner.memory)
        res = planner._call(log, "search_objects", {"name": "jug whisk", "top_k": 20})
        assert {it["name"] for it in res.items} >= {"jug", "whisk"}
        plan = Plan(participant_id=PID, instruction="use them", planner="structured", condition="memora")
        plan.steps = [PlanStep(index=i, action="pick up", object=o, text=f"pick up {o}")
                      for i, o in enumerate(("jug", "whisk", "lemon"))]
        planner._ground(plan, log)
        assert len(log.calls) == 1  # no call left: the places come from the read above
        assert [s.text for s in plan.steps] == ["pick up jug at shelf", "pick up whisk at drawer", "pick up lemon"]
        assert plan.steps[0].entity_id and plan.steps[0].evidence
    finally:
        store.close()


def test_a_verb_mostly_done_elsewhere_has_no_fixture():
    """Chopping while the oven happens to be on, but more often with the oven off, is not done at the oven."""
    p = make_planner("structured", ParametricMemory("Z10"))
    p._routines_cached = {"bake the bread": [
        {"routine_id": "R4", "goal": "bake bread", "steps": ["turn on oven", "chop garlic", "bake bread",
                                                              "turn off oven"]},
        {"routine_id": "R5", "goal": "chop garlic", "steps": ["chop garlic", "put garlic in pan"]},
        {"routine_id": "R6", "goal": "chop leek", "steps": ["pick up leek", "chop leek"]}]}
    assert p._fixture_places() == {"bake": "oven"}
