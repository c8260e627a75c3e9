"""Typed Inferred Knowledge on invented examples: habits formed from action sequences, preferences and habits
stored and served as fields (SQLite + the MEMORA tools), old sentence rows migrated away, and the answerer
choosing what a habit says follows an action."""
from __future__ import annotations

import sqlite3

from memora_core.agents.answering import StructuredAnswerer
from memora_core.agents.config import load_agents_config
from memora_core.agents.knowledge_support import knowledge_support, knowledge_views
from memora_core.consolidation.preferences import mine_preferences
from memora_core.consolidation.procedures import Step
from memora_core.schemas import Evidence, RoutineSkill
from memora_core.schemas.knowledge import Follower, Habit, Preference, PreferenceAttribute
from memora_core.store import MemoryStore
from memora_core.store.migrations import MIGRATIONS
from memora_core.tools.memora_tools import MemoraTools
from memora_core.tools.registry import ToolResult, ToolSet

from tests.agents.activity_items import pick_then
from tests.agents.conftest import no_vector_config

EV = [Evidence(video_id="Z01_01", start_s=1.0, end_s=4.0)]


def _step(video: str, t: float, verb: str, *nouns: str) -> Step:
    return Step(video, t, t + 2.0, verb, tuple(nouns), " ".join([verb.replace("-", " "), *nouns]))


def _mornings() -> dict[str, list[Step]]:
    """Three invented videos: after picking up the mug the person fills it (5x), once rinses it instead."""
    out: dict[str, list[Step]] = {}
    for v in range(3):
        vid, t, steps = f"Z01_{v:02d}", 0.0, []
        for nxt in (["fill", "mug"], ["fill", "mug"]) if v < 2 else (["fill", "mug"], ["rinse", "mug"]):
            steps += [_step(vid, t, "pick-up", "mug"), _step(vid, t + 3, *nxt), _step(vid, t + 6, "open", "fridge")]
            t += 40.0
        out[vid] = steps
    return out


def test_consolidation_forms_typed_habits_from_action_sequences():
    cfg = load_agents_config().consolidation
    knowledge = mine_preferences("Z01", _mornings(), [], {}, cfg)
    habits = [k for k in knowledge if isinstance(k, Habit)]
    (mug,) = [h for h in habits if (h.after_action, h.after_object) == ("pick-up", "mug")]
    assert (mug.action, mug.object, mug.text) == ("fill", "mug", "fill mug")
    assert mug.frequency == 6 and mug.support == 5 and mug.videos == 3
    assert [(f.action, f.count) for f in mug.followers] == [("fill", 5), ("rinse", 1)]
    assert all(e.video_id.startswith("Z01_") for e in mug.episodes)


def _knowledge() -> tuple[Preference, Habit]:
    pref = Preference(pref_id="Z01-P001", participant_id="Z01", subject="bread", action="cut",
                      attribute=PreferenceAttribute.COMPANION, choice="serrated knife", choice_text="cut bread with knife",
                      alternatives={"scissors": 1}, context="cut bread", confidence=0.8, support=4, occasions=5,
                      keywords=["cut", "bread", "knife"], episodes=EV, statement="Z01 cuts bread with the serrated knife.")
    habit = Habit(habit_id="Z01-P000", participant_id="Z01", after_action="pick-up", after_object="mug",
                  after_text="pick up mug", action="fill", object="mug", text="fill mug",
                  followers=[Follower(action="fill", object="mug", text="fill mug", count=5),
                             Follower(action="rinse", object="mug", text="rinse mug", count=1)],
                  context="after pick up mug", frequency=6, videos=3, confidence=0.83, support=5,
                  keywords=["pick", "mug", "fill"], episodes=EV, statement="After picking up the mug Z01 fills it.")
    return pref, habit


def test_typed_knowledge_round_trips_through_store_and_tools(tmp_path):
    pref, habit = _knowledge()
    store = MemoryStore.open(tmp_path / "mem", no_vector_config())
    store.replace_knowledge("Z01", [RoutineSkill(routine_id="Z01-R000", participant_id="Z01", goal="make tea",
                                                 steps=["fill kettle"], episodes=EV, frequency=2)], [pref, habit])
    assert store.preferences("Z01") == [habit, pref] and store.habits("Z01") == [habit]
    assert store.stats("Z01").preferences == 2
    tools = MemoraTools(store, "Z01")
    res = tools.call("get_preferences", {"after": "What does Z01 do after picking up the mug?", "kind": "habit"})
    (item,) = res.items
    assert Habit.model_validate(item) == habit  # served as fields, read back without loss
    res = tools.call("get_preferences", {"query": "cut the bread", "kind": "preference"})
    assert [Preference.model_validate(i) for i in res.items] == [pref]
    assert tools.call("get_preferences", {"kind": "sentence"}).ok is False  # the schema refuses other kinds
    store.close()


def test_sentence_preferences_are_migrated_away(tmp_path):
    db = tmp_path / "mem" / "memory.sqlite"
    db.parent.mkdir()
    conn = sqlite3.connect(db, isolation_level=None)
    for script in MIGRATIONS[:2]:
        conn.executescript(script)
    conn.execute("PRAGMA user_version = 2")
    conn.execute("INSERT INTO preferences VALUES ('Z01-P000', 'Z01', ?)",
                 ('{"pref_id": "Z01-P000", "statement": "After they pick up mug, Z01 usually fill mug next."}',))
    conn.close()
    store = MemoryStore.open(tmp_path / "mem", no_vector_config())
    assert store.schema_version == len(MIGRATIONS) == 3
    assert store.preferences("Z01") == [] and store.habits("Z01") == []
    assert ("preferences", "Z01-P000") in store.pending_vectors()  # its vector is queued for deletion
    store.close()


class _Kitchen(ToolSet):
    """Invented episodes in which picking up the mug is followed once by filling and once by rinsing it (a
    tie), and a consolidated habit that says filling follows 5 times out of 6."""

    family = "memora"

    def __init__(self, habit: Habit | None) -> None:
        self.habit = habit
        handlers = {"search": self._search, "search_activities": self._search}
        if habit is not None:
            handlers["get_preferences"] = self._prefs
        super().__init__(handlers)

    def _search(self, args) -> ToolResult:
        acts = pick_then("mug", ["fill", "rinse"], "Z01_01")
        return ToolResult(tool="search", items=acts, store="activity_memory")

    def _prefs(self, args) -> ToolResult:
        return ToolResult(tool="get_preferences", items=[self.habit.model_dump(mode="json")],
                          store="inferred_knowledge")


def test_answerer_chooses_the_follower_a_typed_habit_names():
    cfg = load_agents_config()
    cfg.agents.answer_embedder = "none"
    _, habit = _knowledge()
    q = "What does Z01 usually do next after picking up the mug?"
    choices = {"A": "rinse mug", "B": "fill mug", "C": "open the oven", "D": "wipe table"}
    without = StructuredAnswerer(_Kitchen(None), cfg).answer(q, choices)
    with_habit = StructuredAnswerer(_Kitchen(habit), cfg).answer(q, choices)
    assert without.letter != "B"  # the episodes alone tie between filling and rinsing
    assert with_habit.letter == "B"
    assert any(c["tool"] == "get_preferences" and c["args"].get("kind") == "habit" for c in with_habit.tool_calls)


def test_habit_support_scales_with_the_followers_count():
    _, habit = _knowledge()
    views = knowledge_views([habit.model_dump(mode="json")], "after picking up the mug", 0.5)
    lexical = lambda a, b: float(a == b)  # noqa: E731
    assert knowledge_support("fill mug", views, lexical, 0.35) == 1.0
    assert knowledge_support("rinse mug", views, lexical, 0.35) == 0.2
    assert knowledge_support("open oven", views, lexical, 0.35) == 0.0
    assert knowledge_views([habit.model_dump(mode="json")], "after opening the oven", 0.5) == []


def test_preference_support_ranks_the_choice_above_its_alternatives():
    pref, _ = _knowledge()
    views = knowledge_views([pref.model_dump(mode="json")], "How does Z01 usually cut the bread?", 0.5)
    lexical = lambda a, b: float(a == b)  # noqa: E731
    assert knowledge_support("cut bread with knife", views, lexical, 0.35) == 1.0
    assert knowledge_support("cut bread scissors", views, lexical, 0.35) == 0.25  # seen 1 time against 4
    assert knowledge_views([pref.model_dump(mode="json")], "How does Z01 slice cheese?", 0.5) == []


class _Bakery(ToolSet):
    """Invented episodes that never say what the question asks in its words (slicing with a knife, serving),
    and, when given, a typed preference about cutting bread that the searches return beside them."""

    family = "memora"

    def __init__(self, pref: Preference | None) -> None:
        self.pref = pref
        super().__init__({"search": self._search, "search_activities": self._search})

    def _search(self, args) -> ToolResult:
        acts = [{"activity_id": "a0", "video_id": "Z01_02", "start_s": 0.0, "end_s": 20.0, "summary": "",
                 "actions": [{"verb": v, "nouns": [n], "text": f"{v} {n}", "start_s": t, "end_s": t + 2}
                             for t, (v, n) in enumerate([("open", "drawer"), ("take", "knife"), ("slice", "loaf")])]}]
        items = acts + ([self.pref.model_dump(mode="json")] if self.pref else [])
        return ToolResult(tool="search", items=items, store="activity_memory")


def test_a_typed_preference_backing_the_best_choice_is_support_where_episodes_use_other_words():
    cfg = load_agents_config()
    cfg.agents.answer_embedder = "none"
    pref, _ = _knowledge()
    q = "When guests arrive hungry for a late Sunday dinner, which implement does Z01 reach for to cut the fresh bread?"
    choices = {"A": "Cut bread with knife", "B": "Tear it by hand", "C": "Use kitchen scissors",
               "D": "Buy it sliced", "E": "The information is not available"}
    without = StructuredAnswerer(_Bakery(None), cfg).answer(q, choices)
    with_pref = StructuredAnswerer(_Bakery(pref), cfg).answer(q, choices)
    assert without.letter == "E"
    assert with_pref.letter == "A" and "backed by typed knowledge" in with_pref.raw
    cfg.agents.knowledge_min_support = 2.0  # more than any record can add: the episodes decide alone again
    assert StructuredAnswerer(_Bakery(pref), cfg).answer(q, choices).letter == "E"


def test_a_record_counts_only_when_the_question_names_its_object():
    pref, habit = _knowledge()
    items = [habit.model_dump(mode="json"), pref.model_dump(mode="json")]
    # the verb alone ('pick up', 'cut') is half of each record's words, but they are about a mug and bread
    assert knowledge_views(items, "What does Z01 do after picking up the kettle?", 0.5) == []
    assert knowledge_views(items, "How does Z01 cut the cheese?", 0.5) == []
    assert [v.about for v in knowledge_views(items, "after picking up the mug", 0.5)] == ["pick-up mug"]
