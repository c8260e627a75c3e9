"""One `locate_objects` call grounds a whole plan: each name is looked up on its own in Entity memory, so a plan
with more objects than tool calls left still gets every object's place (invented narrations through the real
writer and consolidation, real SQLite store, the structured planner's grounding)."""
from __future__ import annotations


from memora_core.agents import make_planner
from memora_core.agents.calls import CallLog
from memora_core.agents.config import load_agents_config
from memora_core.conditions import build_condition
from memora_core.schemas import Plan, PlanStep
from memora_core.store.sqlite_store import SQLiteStore
from tests.agents.invented_store import formed_store

PID = "Z08"
PLACED = {"jug": "shelf", "whisk": "drawer", "lemon": "fridge", "grater": "cupboard", "teapot": "tray"}
# EPIC-100 noun class ids of these words (the writer keeps one entity per class)
CLASS = {"jug": 66, "shelf": 247, "whisk": 218, "drawer": 8, "lemon": 105, "fridge": 12, "grater": 96,
         "cupboard": 3, "teapot": 158, "tray": 35}
ROWS = [(f"Z08_0{v}", 3 + 10 * i + v, text, verb, noun) for v in (1, 2)
        for i, (obj, place) in enumerate(PLACED.items())
        for text, verb, noun in ((f"pick up {obj}", "pick-up", [obj]), (f"put {obj} on {place}", "put-on", [obj, place]))]


def _rows():
    for i, (vid, t, text, verb, nouns) in enumerate(ROWS):
        ts = lambda s: f"00:{s // 60:02d}:{s % 60:05.2f}"  # noqa: E731
        yield [f"{vid}_{i}", PID, vid, ts(t), ts(t), ts(t + 2), t * 50, (t + 2) * 50, text, verb, 0,
               nouns[0], CLASS[nouns[0]], str(nouns), str([CLASS[n] for n in nouns])]


def _store(tmp_path) -> SQLiteStore:
    return SQLiteStore(formed_store(tmp_path, PID, _rows()), readonly=True)


def test_locate_objects_looks_up_each_name_on_its_own(tmp_path):
    store = _store(tmp_path)
    try:
        for condition in ("memora", "memora_episodic"):
            mem = build_condition(condition, store, PID)
            res = mem.call("locate_objects", {"names": ["whisk", "jug", "saucepan"]})
            assert res.ok and res.store == "entity_memory"
            got = {it["query"]: (it["name"], it["location"]) for it in res.items}
            assert got == {"whisk": ("whisk", "drawer"), "jug": ("jug", "shelf"), "saucepan": (None, None)}
            # untrusted arguments: bounded list, no empty names
            assert mem.call("locate_objects", {"names": []}).ok is False
            assert mem.call("locate_objects", {"names": [" "]}).ok is False
            assert mem.call("locate_objects", {"names": ["jug"] * 13}).ok is False
    finally:
        store.close()


def test_one_call_grounds_every_object_of_a_plan(tmp_path):
    store = _store(tmp_path)
    cfg = load_agents_config()
    cfg = cfg.model_copy(update={"agents": cfg.agents.model_copy(update={"max_iterations": 2})})
    try:
        for condition in ("memora", "memora_episodic"):
            planner = make_planner("structured", build_condition(condition, store, PID), config=cfg)
            plan = Plan(participant_id=PID, instruction="use them", planner="structured", condition=condition)
            plan.steps = [PlanStep(index=i, action="pick up", object=o, text=f"pick up {o}")
                          for i, o in enumerate(PLACED)]
            log = CallLog(planner.memory)
            planner._ground(plan, log)
            # two calls would ground two objects one by one; the batch grounds all five in one
            assert [c["tool"] for c in log.calls] == ["locate_objects"]
            assert {s.object: s.target for s in plan.steps} == PLACED
            assert all(s.entity_id for s in plan.steps)
            assert plan.steps[0].text == "pick up jug at shelf"
    finally:
        store.close()


def test_an_object_is_where_the_plan_last_put_it(tmp_path):
    """Steps before the plan puts the jug on the tray happen where memory last saw it (the shelf), steps
    after it on the tray; the place the plan puts it later is not where it is picked up."""
    store = _store(tmp_path)
    try:
        planner = make_planner("structured", build_condition("memora", store, PID))
        plan = Plan(participant_id=PID, instruction="use the jug", planner="structured", condition="memora")
        plan.steps = [PlanStep(index=0, action="pick up", object="jug", text="pick up jug"),
                      PlanStep(index=1, action="put", object="jug", target="tray", text="put jug on tray"),
                      PlanStep(index=2, action="rinse", object="jug", text="rinse jug")]
        planner._ground(plan, CallLog(planner.memory))
        assert [s.text for s in plan.steps] == ["pick up jug at shelf", "put jug on tray", "rinse jug at tray"]
    finally:
        store.close()
