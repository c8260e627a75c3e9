"""One episode's consolidated step list about an object (invented kitchen, real SQLite store and MEMORA tools):
fragments that overlap are read once each in time order, an object's timeline keeps its neighbours, only full
MEMORA serves it, and the answerer's in-order clause match finds an order the steps show even when a step
repeats."""
from __future__ import annotations

from memora_core.agents.answering.scoring import Scorer, _ordered_match
from memora_core.consolidation.episodes import EpisodeIndex, object_timeline
from memora_core.consolidation.procedures import steps_from_activities
from memora_core.schemas import ActionObservation
from memora_core.store import MemoryStore
from memora_core.tools.memora_tools import MemoraTools

from tests.agents.conftest import no_vector_config
from tests.factories import segment_write

PID, VID = "Z02", "Z02_01"
# (t, verb, nouns, narration id): the person fills a jug, empties it, fills it again, then chills it
NARRATION = [(1, "pick-up", ["jug"], "n0"), (3, "turn-on", ["tap"], "n1"), (5, "fill", ["jug"], "n2"),
             (7, "empty", ["jug"], "n3"), (9, "fill", ["jug"], "n4"), (11, "turn-off", ["tap"], "n5"),
             (13, "open", ["oven"], "n6"), (15, "wipe", ["counter"], "n7"), (17, "open", ["fridge"], "n8"),
             (19, "put-in", ["jug", "fridge"], "n9")]


def _actions(rows) -> list[ActionObservation]:
    return [ActionObservation(verb=v, nouns=n, start_s=t, end_s=t + 1, source_id=i,
                              text=" ".join([v.replace("-", " "), *n])) for t, v, n, i in rows]


def _writes():
    """Two overlapping segments (narration n4-n6 written into both), the later one committed first."""
    out = []
    for index, seq, rows in ((1, 0, NARRATION[4:]), (0, 1, NARRATION[:7])):
        w = segment_write(PID, VID, index, seq, ["jug"], t0=float(rows[0][0]))
        acts = _actions(rows)
        out.append(w.model_copy(update={"activity": w.activity.model_copy(update={"actions": acts})}))
    return out


def test_fragments_become_one_ordered_step_list_and_a_timeline_keeps_neighbours():
    acts = [w.activity for w in _writes()]
    steps = EpisodeIndex(acts).steps(VID)
    assert [s.label() for s in steps] == [" ".join([v.replace("-", " "), *n]) for _, v, n, _ in NARRATION]
    tl = object_timeline(steps, "the jug", context=1)
    assert tl.texts() == ["pick up jug", "turn on tap", "fill jug", "empty jug", "fill jug", "turn off tap",
                          "open fridge", "put in jug fridge"]
    assert tl.marked == (True, False, True, True, True, False, False, True)
    assert object_timeline(steps, "jug", context=0).texts() == ["pick up jug", "fill jug", "empty jug",
                                                                "fill jug", "put in jug fridge"]
    assert object_timeline(steps, "kettle").steps == ()
    assert steps_from_activities(acts)[VID] == steps  # the same canonical list consolidation mines from


def test_only_full_memora_serves_the_episode_steps(tmp_path):
    store = MemoryStore.open(tmp_path / "mem", no_vector_config())
    for w in _writes():
        store.commit_segment(w)
    full, episodic = MemoraTools(store, PID), MemoraTools(store, PID, include_knowledge=False)
    res = full.call("get_episode_steps", {"video_id": VID, "about": "jug", "context": 0})
    assert res.ok and res.store == "inferred_knowledge"
    (item,) = res.items
    assert item["steps"] == ["pick up jug", "fill jug", "empty jug", "fill jug", "put in jug fridge"]
    assert {e.video_id for e in res.evidence} == {VID} and len(res.evidence) == 5
    assert full.call("get_episode_steps", {"video_id": VID, "about": "kettle"}).items == []
    assert full.call("get_episode_steps", {"video_id": VID, "about": "jug", "context": 9}).ok is False
    assert "get_episode_steps" not in episodic.tool_names
    store.close()


def test_in_order_match_pairs_repeated_steps_in_the_stated_order():
    scorer = Scorer({}, lexical_weight=1.0)  # token F1 only: deterministic
    steps = ["fill jug", "empty jug", "fill jug"]
    # 'fill, then empty' is what happened first; the best match of 'fill' alone is either fill
    assert _ordered_match(["fill jug", "empty jug"], steps, scorer) == 1.0
    assert _ordered_match(["empty jug", "fill jug"], steps, scorer) == 1.0
    # an order the steps never show pays the out-of-order factor
    assert _ordered_match(["empty jug", "fill jug"], steps[:2], scorer) == 0.8
    assert _ordered_match(["fill jug", "wipe counter"], steps, scorer) == 0.5


def test_memora_reads_the_episode_steps_of_the_object_a_question_about_one_video_names(tmp_path):
    from memora_core.agents.answering import StructuredAnswerer
    from memora_core.agents.config import load_agents_config
    from memora_core.conditions import build_condition

    store = MemoryStore.open(tmp_path / "mem", no_vector_config())
    for w in _writes():
        store.commit_segment(w)
    cfg = load_agents_config()
    cfg.agents.answer_embedder = "none"  # token overlap only: deterministic
    q = f"In video {VID}, {PID} handled the jug. What did they do with it?"
    # picking the jug up and chilling it lie in different fragments; the episode's step list has both in order
    choices = {"A": "They put it in the fridge, then picked it up.", "B": "They picked up the jug, then put it in the fridge.",
               "C": "They washed the jug, then dried it.", "D": "They opened the oven, then closed the oven.",
               "E": "The information is not available."}
    full = StructuredAnswerer(build_condition("memora", store, PID), cfg).answer(q, choices)
    episodic = StructuredAnswerer(build_condition("memora_episodic", store, PID), cfg).answer(q, choices)
    assert full.letter == "B" and [c["args"]["about"] for c in full.tool_calls if c["tool"] == "get_episode_steps"] == ["jug"]
    assert all(c["tool"] != "get_episode_steps" for c in episodic.tool_calls)
    cfg.agents.episode_weight = 0.0  # the read off: MEMORA reads only the fragments, like MEMORA-Episodic
    off = StructuredAnswerer(build_condition("memora", store, PID), cfg).answer(q, choices)
    assert all(c["tool"] != "get_episode_steps" for c in off.tool_calls)
    store.close()


def test_choice_pronouns_name_their_object_and_past_tenses_stem_to_the_verb():
    from memora_core.agents.answering.question import resolve_pronouns
    from memora_core.tools.text import tokens

    parts = ["They filled the jug", "emptied it again"]
    assert resolve_pronouns(parts, "", "jug") == ["They filled the jug", "emptied jug again"]
    assert resolve_pronouns(["They picked it up", "cut it"], "loaf", "") == ["They picked loaf up", "cut loaf"]
    assert resolve_pronouns(parts, "", "") == parts
    assert tokens("They took the lid off and emptied it") == tokens("take lid off, empty")
    assert tokens("shook the tin") == tokens("shake tin")
