"""Instruction reading (memora_core.agents.instruction) on invented instructions: coordination, sequence
words, politeness, questions, implicit needs; the structured planner on paraphrases; the paraphrase
benchmark's agreement rule. No benchmark task text here."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memora_core.agents.config import load_agents_config
from memora_core.agents.instruction import InstructionParser
from memora_core.agents.structured import StructuredPlanner, subtasks
from memora_core.agents.vocab import default_vocabulary
from memora_core.conditions import build_condition
from memora_core.config import EmbeddingConfig, MemoraConfig, StoreConfig, VectorConfig
from memora_core.schemas import Evidence
from memora_core.schemas.knowledge import Preference, RoutineSkill
from memora_core.store import MemoryStore
from tests.factories import segment_write

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def parser() -> InstructionParser:
    vocab = default_vocabulary()
    assert vocab, "the EPIC taxonomy is part of the shared data"
    return InstructionParser(vocab, load_agents_config().agents.soft_task_verbs)


def jobs(parser: InstructionParser, text: str) -> list[tuple[tuple[str, ...], list[str]]]:
    return [(t.verbs, t.objects) for t in parser.parse(text).tasks]


def test_coordinated_verbs_share_their_object_and_bare_imperatives_are_verbs(parser):
    # spaCy alone tags a sentence-initial 'Dry' / 'Scrub' as an adjective or noun
    assert jobs(parser, "Rinse and dry the blue mug.") == [(("rinse", "dry"), ["mug"])]
    assert jobs(parser, "Dry the mug.") == [(("dry",), ["mug"])]
    assert jobs(parser, "Scrub, rinse and stack the greasy pans.")[0][0] == ("scrub", "rinse", "stack")
    # a list of objects is not a list of verbs, and a place is the destination
    t = parser.parse("Put the cups, saucers and spoons on the tray.").tasks
    assert len(t) == 1 and t[0].objects == ["cup", "saucer", "spoon", "tray"] and t[0].destination == "tray"


def test_sequence_words_and_reordered_clauses_give_one_order(parser):
    canonical = jobs(parser, "Trim and slice the leek.")
    for said in ("First trim the leek, then slice it.", "Slice the leek after trimming it.",
                 "Before slicing the leek, trim it.", "After you trim the leek, slice it."):
        assert jobs(parser, said) == canonical, said
    # different objects stay different jobs, in the order they are to be done
    assert jobs(parser, "Wipe the board after you rinse the knife.") == [(("rinse",), ["knife"]),
                                                                         (("wipe",), ["board"])]


def test_politeness_questions_and_goal_verbs_are_not_the_job(parser):
    canonical = jobs(parser, "Peel the carrot.")
    for said in ("Could you please peel the carrot for me?", "Would you mind peeling the carrots?",
                 "I'd like you to peel the carrot.", "Hey robot, can you help me peel the carrot?",
                 "Get the carrot ready by peeling it.", "Ready the carrot, peeling it.",
                 "Peel the carrot to make a snack."[:-len(" to make a snack.")] + "."):
        assert jobs(parser, said) == canonical, said
    # a goal verb with a purpose: the goal's object comes first, the concrete verb is the job
    assert jobs(parser, "Toast the bread to make a snack.") == jobs(parser, "Make a snack by toasting the bread.")
    # a fronted place or tool
    assert jobs(parser, "In the sink, rinse the colander.") == jobs(parser, "Rinse the colander in the sink.")
    # 'the leeks we have': a relative clause adds no job
    assert jobs(parser, "Make a soup with the leeks we have.") == jobs(parser, "Make a soup with the leeks.")


def test_implicit_needs_ask_for_nothing_concrete(parser):
    p = parser.parse("I'm parched.")
    assert p.implicit and p.need == "I'm parched" and not p.tasks
    p = parser.parse("I'm parched, get my usual juice ready.")
    assert p.need == "I'm parched" and [(t.verb, t.objects) for t in p.tasks] == [("prepare", ["juice"])]
    assert not p.implicit
    # the old reading split "I'm" into a verb 'm'
    assert all(t.verb != "m" for t in p.tasks)


def test_a_verb_list_for_one_object_is_a_sequence_of_jobs(parser):
    # the old reading gave one job with objects [dry, put, greasy, pans]
    parts = subtasks(parser.parse("Scrub, dry and put away the greasy pans."), 3)
    assert [p.verb for p in parts] == ["scrub", "dry", "put"]
    assert all(p.objects == parts[0].objects and parts[0].objects[-1].endswith("pan") for p in parts)
    assert [p.verb for p in subtasks(parser.parse("Scrub the pans, dry them and put them away."), 3)] == \
        ["scrub", "dry", "put"]
    assert len(subtasks(parser.parse("Rinse and dry the mug."), 3)) == 1


def test_long_or_hostile_instructions_are_bounded(parser):
    p = parser.parse("wash the cup and " * 500)
    assert len(p.core) <= 600
    assert parser.parse("").tasks == [] and parser.parse("?!,;").tasks == []


# ------------------------------------------------------------------ an implicit need planned from memory
def _preference(ev: list[Evidence]) -> Preference:
    """One preference record; the typed fields (subject, attribute, choice, ...) are filled where the
    schema has them (schemas.knowledge is being typed in parallel)."""
    typed = {"subject": "juice carton", "attribute": "variant", "choice": "green glass",
             "choice_text": "green glass", "occasions": 3}
    return Preference(pref_id="P77:p0", participant_id="P77", statement="uses the green glass for juice",
                      keywords=["green", "glass", "juice"], confidence=0.9, support=3, episodes=ev,
                      **{k: v for k, v in typed.items() if k in Preference.model_fields})


@pytest.fixture
def drinks_memory(tmp_path):
    # a real Chroma index with MiniLM: a need shares no word with a routine ("parched" / "juice"), so the
    # routine tool finds it by meaning, as on the demo memory
    cfg = MemoraConfig(store=StoreConfig(vectors=VectorConfig(backend="chroma"),
                                         embedding=EmbeddingConfig(backend="minilm")))
    store = MemoryStore.open_writer(tmp_path / "mem", cfg)
    for i, objs in enumerate([["juice carton", "green glass"], ["cereal box", "white bowl", "spoon"]]):
        store.commit_segment(segment_write("P77", "P77_01", i, i, objs, place="table"))
    ev = [Evidence(video_id="P77_01", start_s=0, end_s=10)]
    store.replace_knowledge("P77", [
        RoutineSkill(routine_id="P77:r0", participant_id="P77", goal="time to pour my juice", name="juice",
                     steps=["pick up juice carton", "pour juice carton into green glass",
                            "put juice carton on table"], key_objects=["juice carton", "green glass"],
                     episodes=ev, frequency=3),
        RoutineSkill(routine_id="P77:r1", participant_id="P77", goal="time to make my cereal", name="cereal",
                     steps=["pick up white bowl", "put white bowl on table", "pick up cereal box",
                            "pour cereal box into white bowl"], key_objects=["white bowl", "cereal box"],
                     episodes=ev, frequency=3)],
        # one preference, so the memory counts as consolidated (the condition mines none of its own)
        [_preference(ev)])
    yield store
    store.close()


def test_a_stated_need_is_planned_as_the_closest_routine(drinks_memory):
    planner = StructuredPlanner(build_condition("memora", drinks_memory, "P77"))
    canonical = [s.text for s in planner.plan("Prepare my juice.").steps]
    said = planner.plan("I'm so thirsty, could you get my usual juice ready?")
    assert [s.text for s in said.steps] == canonical
    assert not any(s.object == "m" or s.action == "m" for s in said.steps)  # the old reading: 'm juice'
    parched = planner.plan("I'm parched.")  # no drink named: the routine closest in meaning
    assert "pour the juice carton into the green glass" in [s.text for s in parched.steps]
    assert any("read as routine P77:r0" in m for m in parched.missing)
    hungry = planner.plan("I'm starving.")
    assert any("cereal box" in s.text for s in hungry.steps)
    assert any("read as routine P77:r1" in m for m in hungry.missing)


# ------------------------------------------------------------------ the paraphrase benchmark's rule
def test_paraphrase_agreement_rule_and_suites():
    sys.path.insert(0, str(ROOT / "bench"))
    from memora_bench.paraphrases.agreement import SuiteError, agreement, agrees, load_suite, task_rgp

    assert agrees(["Pick up cup", "rinse cup"], ["pick up cup", "rinse cup "])
    assert not agrees(["pick up cup"], ["rinse cup"])                    # no RGP: steps must match
    assert agrees(["pick up cup"], ["rinse cup"], 0.50, 0.52)             # within 0.02
    assert not agrees(["pick up cup"], ["rinse cup"], 0.50, 0.53)
    assert task_rgp(0.2, None, 0.4) == pytest.approx(0.3) and task_rgp(None, None, None) is None
    assert agreement([True, True, False, True]) == 0.75 and agreement([]) is None
    sizes = {}
    for name in ("p06", "demo", "p28"):
        suite = load_suite(ROOT / "bench" / "memora_bench" / "paraphrases" / f"{name}.yaml")
        sizes[name] = sum(len(v) for v in suite.tasks.values())
        if name != "p28":
            assert all(len(v) >= 3 for v in suite.tasks.values())
    assert sum(sizes.values()) >= 150 and len(load_suite(ROOT / "bench" / "memora_bench" / "paraphrases"
                                                         / "demo.yaml").tasks) == 2


def test_a_bad_suite_is_refused_in_one_line(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    from memora_bench.paraphrases.agreement import SuiteError, load_suite

    bad = tmp_path / "x.yaml"
    bad.write_text("participant: P06\nsplit: dev\ntasks: {t1: [ok, '']}\n")
    with pytest.raises(SuiteError) as err:
        load_suite(bad)
    assert "tasks.t1.1" in str(err.value) and "\n" not in str(err.value)
    bad.write_text("participant: P06\ntasks: {}\n")
    with pytest.raises(SuiteError):
        load_suite(bad)
