"""Every planning metric against hand-computed cases."""
import pytest

from memora_bench.metrics.planning import (
    PreferenceView, StepView, aggregate, exec_score, grounding, keyobj, lcs_length, order_exec_lcs,
    order_exec_prefix, prefadh, relevant_preferences, rgp, score_task, tool_share,
)

S = StepView


def plan(*rows):
    return [S(action=a, object=o, target=t) for a, o, t in rows]


def test_exec_counts_action_object_location():
    steps = plan(("pick up", "cup", "counter"), ("open", "cupboard", None), ("wash", None, "sink"),
                 ("place", "cup", "cupboard"))
    assert exec_score(steps) == pytest.approx(2 / 4)
    assert exec_score([]) == 0.0


def test_lcs_length():
    assert lcs_length(list("ABCBDAB"), list("BDCABA")) == 4
    assert lcs_length([], ["a"]) == 0


def test_order_exec_lcs_uses_synonyms_and_reference_length():
    steps = plan(("grab", "cup", "counter"), ("rinse", "cup", "sink"), ("put", "cup", "rack"))
    ref = ["grasp", "turn_on", "wash", "place"]
    # LCS(grasp wash place, grasp turn_on wash place) = 3 ; ÷ 4
    assert order_exec_lcs(steps, ref) == pytest.approx(0.75)
    assert order_exec_lcs(steps, []) is None


def test_order_exec_prefix_stops_at_first_missing_reference_verb():
    steps = plan(("grab", "cup", "counter"), ("rinse", "cup", "sink"), ("put", "cup", "rack"))
    ref = ["grasp", "turn_on", "wash", "place"]
    # grasp matched, turn_on not found → stop: 1 / 4 (the LCS form gives 3/4 on the same plan)
    assert order_exec_prefix(steps, ref) == pytest.approx(0.25)
    # steps without a location do not count in the released form
    steps2 = plan(("grab", "cup", "counter"), ("turn on", "tap", None), ("rinse", "cup", "sink"))
    assert order_exec_prefix(steps2, ["grasp", "turn_on", "wash"]) == pytest.approx(1 / 3)
    assert order_exec_lcs(steps2, ["grasp", "turn_on", "wash"]) == pytest.approx(1.0)
    # order matters: wash before grasp in the plan, reference grasp then wash → prefix 1/2
    steps3 = plan(("wash", "cup", "sink"), ("grab", "cup", "counter"))
    assert order_exec_prefix(steps3, ["grasp", "wash"]) == pytest.approx(0.5)


def test_keyobj_task_objects_with_synonyms(taxonomy):
    steps = plan(("open", "cabinet", "kitchen"), ("take", "mug", "cabinet"))
    # key objects: cupboard (via cabinet), cup (via mug), kettle (absent) → 2/3
    assert keyobj(steps, ["cupboard", "cup", "kettle"], taxonomy) == pytest.approx(2 / 3)
    assert keyobj(steps, [], taxonomy) is None
    assert keyobj([], ["cup"], taxonomy) == 0.0
    # an object named only in step text still counts
    assert keyobj([S(action="boil", text="boil water in the kettle")], ["kettle"], taxonomy) == 1.0


def test_prefadh_relevance_and_keyword_share():
    bank = [PreferenceView(statement="a cup is rinsed in the sink before use", keywords=["rinse", "cup", "sink"]),
            PreferenceView(statement="chops onions on the board", keywords=["chop", "onion", "board"])]
    task = "Help P06 wash the cup."
    rel = relevant_preferences(task, bank, 0.05)
    assert [p.keywords[0] for p in rel] == ["rinse"]  # {wash,cup}∩{cup,rins,rinse,sink}: 1/5 ≥ 0.05; onion: 0
    steps = plan(("rinse", "cup", "counter"))
    # keywords {rinse, cup, sink}: rinse and cup in the plan → 2/3
    assert prefadh(steps, task, bank, 0.05) == pytest.approx(2 / 3)
    assert prefadh(steps, "Help P06 mop the floor.", bank, 0.05) is None
    assert prefadh([], task, bank, 0.05) == 0.0


def test_grounding_diagnostics(taxonomy):
    steps = plan(("take", "mug", "counter"), ("take", "spoon", "drawer"), ("open", "cabinet", "kitchen"))
    kb = {"cup", "cupboard", "kettle"}
    g = grounding(steps, ["cup", "kettle", "onion"], kb, taxonomy)
    # plan objects {cup, spoon, cupboard}: 2 of 3 in memory
    assert g["kbground"] == pytest.approx(2 / 3)
    # vs GT {cup, kettle, onion}: hit {cup} → R 1/3, P 1/3, F1 1/3
    assert g["objgt_r"] == pytest.approx(1 / 3) and g["objgt_p"] == pytest.approx(1 / 3)
    assert g["objgt_f1"] == pytest.approx(1 / 3)
    # grounded: plan∩KB {cup, cupboard}, GT∩KB {cup, kettle} → hit 1: R 1/2, P 1/2
    assert g["gr"] == pytest.approx(0.5) and g["gp"] == pytest.approx(0.5) and g["gf1"] == pytest.approx(0.5)


def test_tool_share():
    calls = [{"tool": "search_objects", "store": "entity"}, {"tool": "get_preferences", "store": "knowledge"},
             {"tool": "search_objects", "store": "entity"}, {"tool": "x"}]
    assert tool_share(calls) == {"entity": 0.5, "knowledge": 0.25, "x": 0.25}
    assert tool_share([]) == {}


def test_rgp_and_aggregate_count_empty_plans(taxonomy):
    bank = [PreferenceView(statement="rinse cup sink", keywords=["rinse", "cup"])]
    full = score_task(task_id="t1", participant_id="P1", split="replay", steps=plan(("rinse", "cup", "sink")),
                      ref_verbs=["wash"], key_objects=["cup"], task_text="wash the cup", bank=bank,
                      kb_objects={"cup"}, taxonomy=taxonomy, prefadh_threshold=0.05,
                      tool_calls=[{"store": "entity"}])
    empty = score_task(task_id="t2", participant_id="P1", split="replay", steps=[], ref_verbs=["wash"],
                       key_objects=["cup"], task_text="mop the floor", bank=bank, kb_objects={"cup"},
                       taxonomy=taxonomy, prefadh_threshold=0.05)
    assert (full.order_exec_lcs, full.keyobj, full.prefadh) == (1.0, 1.0, 1.0)
    assert empty.empty and empty.order_exec_lcs == 0.0 and empty.prefadh is None
    agg = aggregate([full, empty])
    # order 0.5, keyobj 0.5, prefadh 1.0 (defined on t1 only) → RGP (0.5+0.5+1)/3
    assert agg["rgp"] == pytest.approx(2 / 3)
    assert agg["rgp_nonempty_only"] == pytest.approx(1.0)
    assert agg["n_empty"] == 1 and agg["n_tasks"] == 2 and agg["tool_share"] == {"entity": 1.0}
    assert rgp({"order_exec_lcs": 0.3, "keyobj": None, "prefadh": 0.6}) == pytest.approx(0.45)
