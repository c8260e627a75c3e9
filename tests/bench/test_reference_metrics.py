"""The `reference` metric family, rule by rule, on hand-computed cases (the rules of yuzihaowashu/MEMORA
@ 9c80048; each expected value is worked out in the comment beside it)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from memora_bench.metrics.reference import eamqa as ref_qa
from memora_bench.metrics.reference import planning as ref_plan
from memora_bench.metrics.reference.key_objects import keyobj, memory_nouns
from memora_bench.metrics.reference.lexicon import FILLER, VERB_CANON, _VERB_FORMS, action_verb, stem, tokenize
from memora_bench.metrics.reference.memory_view import MemoryView, PreferenceStatement, Procedure
from memora_bench.metrics.reference.order_exec import order_exec
from memora_bench.metrics.reference.preferences import prefadh
from memora_bench.metrics.reference.step_checks import exec_rate, executable, has_action, has_location, has_object

RECOMPUTE = Path(__file__).resolve().parents[2] / "bench" / "benchmarks" / "recompute_reference.py"


# ------------------------------------------------------------------------------------------------ lexicon
@pytest.mark.parametrize("word,expected", [
    ("cups", "cup"),        # "s" cut: 4 > 1 + 2
    ("bus", "bus"),         # too short for "s" (3 is not > 3)
    ("washes", "wash"),     # "es" before "s"
    ("dropped", "drop"),    # "ed" cut, then the doubled p undone
    ("carried", "car"),     # "ied" cut leaves "carr", undoubled to "car" (the rule is crude, on purpose)
    ("onions", "onion"),
])
def test_stem(word, expected):
    assert stem(word) == expected


def test_tokenize_drops_stopwords_short_words_and_digits():
    # "the"/"and" are stop-words, "p06" has digits, "knives" -> "kniv" ("es" cut)
    assert tokenize("The Onions and knives, p06 at 3") == {"onion", "kniv"}


def test_verb_table_has_each_form_once():
    forms = [f.strip() for spec in _VERB_FORMS.values() for f in spec.split(",")]
    assert len(forms) == len(set(forms)) == len(VERB_CANON)


@pytest.mark.parametrize("step,verb", [
    ("2) The person is picking up the cup", "grasp"),  # numbering and subject dropped; "picking" -> grasp
    ("Rinse the mug", "rinse"),                        # the synonym table keeps rinse as its own verb
    ("rinsing the mug", "wash"),                       # ... but its inflections map to wash
    ("He washes the pan", "wash"),                     # pronoun subject dropped
    ("Flip the pancake", "flip"),                      # not in the table: the stemmed first word
    ("it", FILLER),                                    # only a subject word
    ("", ""),
])
def test_action_verb(step, verb):
    assert action_verb(step) == verb


# -------------------------------------------------------------------------------------------- step checks
def test_step_checks_read_the_text_in_two_word_chunks():
    # "mix dough" is one chunk opening with an action: no object; and no location word
    assert has_action("mix dough") and not has_object("mix dough") and not has_location("mix dough")
    # chunks "pour water" (action first) and "into bowl" (preposition first): no object
    assert not has_object("pour water into bowl") and not executable("pour water into bowl")
    # chunks "pick up", "the red", "cup from", "the counter": "the red" counts as the object
    assert executable("Pick up the red cup from the counter.")
    assert not has_object("wash, it") and has_object("wash, cup")  # a pronoun alone is no object
    assert exec_rate(["Pick up the red cup from the counter.", "mix dough"]) == 0.5
    assert exec_rate([]) is None


# --------------------------------------------------------------------------------------------- OrderExec
PLAN = ["Take the cup from the shelf", "Wash the cup in the sink", "Place the cup on the rack"]


def test_order_exec_is_a_greedy_ordered_prefix():
    assert order_exec(PLAN, ["take cup", "wash cup", "put cup"]) == 1.0  # grasp, wash, place in order
    # wash is found at step 2; take is looked for after it only, and is not there: the walk stops (LCS: 2/3)
    assert order_exec(PLAN, ["wash cup", "take cup", "put cup"]) == 0.3333
    assert order_exec(["take cup", "wash cup"], ["take cup", "wash cup"]) == 0.0  # steps without a location
    assert order_exec(PLAN, ["it", "take cup"]) == 1.0  # a filler reference step is dropped
    assert order_exec([], ["take cup"]) is None and order_exec(PLAN, ["it"]) is None


# ------------------------------------------------------------------------------------------------ KeyObj
MEMORY = MemoryView(
    object_names=["red onion", "chopping board", "knife"],
    procedures=[Procedure(goal="make tea", key_objects=["kettle", "tea_bag", "mug"], steps=["fill kettle", "boil water"]),
                Procedure(goal="wash dishes", key_objects=["sponge", "plate"], steps=["scrub plate"])],
    preferences=[PreferenceStatement(text="likes tea with milk", keywords=["tea", "milk"]),
                 PreferenceStatement(text="keeps knives in the drawer")])


def test_keyobj_replay_uses_the_best_jaccard_procedure():
    # query tokens {make, cup, tea}; "make tea" procedure tokens {make, tea, kettle, bag, mug, fill, boil,
    # water}: Jaccard 2/9 >= 0.10. Its key objects: kettle (in the text), "tea bag" ("tea" is a substring of
    # "teabag"), mug (absent) -> 2/3
    plan = ["Fill the kettle at the tap", "Put the teabag in the cup"]
    assert keyobj(plan, split="replay", query="Help me make a cup of tea", ground_truth=[],
                  memory=MEMORY) == pytest.approx(2 / 3)
    # no procedure shares a token with the query: undefined
    assert keyobj(plan, split="replay", query="Help me fix the bike", ground_truth=[], memory=MEMORY) is None
    assert keyobj([], split="replay", query="make tea", ground_truth=[], memory=MEMORY) is None


def test_keyobj_generalize_uses_ground_truth_stems_in_memory_vocabulary():
    # red onion -> onion; chopping board -> board, chop ("chopping" -> "chopp" -> "chop"); knife; plus the
    # procedures' key objects
    assert {"onion", "board", "chop", "knife", "kettle", "bag", "mug", "sponge", "plate"} <= memory_nouns(MEMORY)
    # ground-truth stems in that vocabulary: knife, chop, onion, board; the plan has knife and onion -> 2/4
    truth = ["Pick up the knife", "Chop the onions on the board"]
    assert keyobj(["Take the knife", "Cut onion"], split="generalize", query="", ground_truth=truth,
                  memory=MEMORY) == 0.5
    # an empty memory falls back on the kitchen nouns: knife, drawer -> 1/2
    assert keyobj(["take knife"], split="generalize", query="", ground_truth=["Pick up the knife from the drawer"],
                  memory=MemoryView()) == 0.5


# ----------------------------------------------------------------------------------------------- PrefAdh
def test_prefadh_relevance_from_keywords_and_substring_hits():
    # tea/milk content {tea, milk}; query {make, cup, tea}: Jaccard 1/4 >= 0.05, relevant. The knives
    # preference has no keywords: content {keep, kniv, drawer}, Jaccard 0, irrelevant.
    q = "Help me make a cup of tea"
    assert prefadh(["Pour the milk into the mug"], q, MEMORY.preferences) == 0.5  # milk yes, tea no
    assert prefadh(["Steep the teabag"], q, MEMORY.preferences) == 0.5  # "tea" is a substring of the text
    assert prefadh(["Steep the teabag"], "Help me fix the bike", MEMORY.preferences) is None
    assert prefadh([], q, MEMORY.preferences) is None


# ------------------------------------------------------------------------------------------------ RGP
def test_rgp_skips_empty_plans_and_is_undefined_with_an_undefined_axis():
    kw = dict(participant_id="P0", split="replay", query="Help me make a cup of tea",
              ground_truth=["take cup", "wash cup", "put cup"], memory=MEMORY)
    full = ref_plan.score_task(task_id="t1", plan=PLAN, **kw)
    empty = ref_plan.score_task(task_id="t2", plan=[], **kw)
    agg = ref_plan.aggregate([full, empty])
    assert agg["n_empty"] == 1 and agg["n_scored"] == 1
    # OrderExec 1.0; KeyObj: kettle, tea bag, mug none in the plan -> 0; PrefAdh: tea, milk absent -> 0
    assert (agg["order_exec"], agg["keyobj"], agg["prefadh"]) == (1.0, 0.0, 0.0)
    assert agg["rgp"] == pytest.approx(1 / 3)
    lone = ref_plan.aggregate([ref_plan.score_task(task_id="t3", plan=PLAN, **{**kw, "query": "fix the bike"})])
    assert lone["keyobj"] is None and lone["rgp"] is None


# ----------------------------------------------------------------------------------------------- EAM-QA
@pytest.mark.parametrize("response,letter", [
    ("Answer: B) because", "B"),
    ("**Answer:** c then", "C"),            # any case after "Answer:", when a space follows
    ("I pick (D) over A) here", "D"),       # the first capital followed by ")"
    ("A person would choose C", "A"),       # else the first capital standing as a word
    ("Answer: B", "B"),                     # nothing after the letter: found as a word
    ("none of these", ""),
    (None, ""),
])
def test_parse_answer(response, letter):
    assert ref_qa.parse_answer(response) == letter


def _ans(qid, pid, t, gold, pred):
    return ref_qa.RefAnswer(qid=qid, participant_id=pid, qa_type=t, gold=gold, predicted=pred)


def test_per_type_accuracy_counts_the_controls():
    answers = [_ans("q1", "P0", "SPref", "A", "A"), _ans("q2", "P0", "SPref", "E", "B"),  # q2: a control
               _ans("q3", "P0", "ERecall", "C", "E")]
    s = ref_qa.summarize(answers)
    assert s["per_type_accuracy"] == {"ERecall": 0.0, "SPref": 0.5}  # answerable-only SPref would be 1.0
    assert s["accuracy"] == pytest.approx(1 / 3) and s["e_rate"] == pytest.approx(1 / 3)


def test_filtered_subset():
    # eligible: parametric wrong and memora committed to A-D -> q1 (memora A) and q2 (memora B); q3: parametric
    # right; q4: memora chose E
    par = [_ans("q1", "P0", "T", "A", "E"), _ans("q2", "P0", "T", "B", "E"), _ans("q3", "P0", "T", "C", "C"),
           _ans("q4", "P0", "T", "D", "E")]
    mem = [_ans("q1", "P0", "T", "A", "A"), _ans("q2", "P0", "T", "B", "C"), _ans("q3", "P0", "T", "C", "C"),
           _ans("q4", "P0", "T", "D", "E")]
    out = ref_qa.filtered_subset({"parametric": par, "memora": mem})
    assert out["memora"] == {"correct": 1, "total": 2, "accuracy": 0.5}
    assert out["parametric"] == {"correct": 0, "total": 2, "accuracy": 0.0}
    assert ref_qa.filtered_subset({"memora": mem}) == {}


# ------------------------------------------------------------------------------- independent recomputation
def _recompute(path: Path, data: Path, tol: str = "1e-9") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(RECOMPUTE), str(path), "--data", str(data), "--tol", tol],
                          capture_output=True, text=True, timeout=120)


def test_recomputation_agrees_and_catches_a_wrong_figure(compact_root, tmp_path):
    from memora_bench.config import BenchConfig
    from memora_bench.data import BenchData
    from memora_bench.runners.common import RunSettings
    from memora_bench.runners.eam_qa import run_eam_qa
    from memora_bench.runners.planning import run_planning

    conds = ["parametric", "graph2d_raw", "memora"]
    for name, run in (("plan", run_planning), ("qa", run_eam_qa)):
        out = tmp_path / name
        run(BenchData(compact_root), RunSettings(participants=["PX1"], conditions=conds, out=out, progress=False),
            BenchConfig())
        ok = _recompute(out / "results.json", compact_root)
        assert ok.returncode == 0, ok.stdout + ok.stderr  # every figure within 1e-9
        res = json.loads((out / "results.json").read_text())
        block = res["conditions"]["memora"]
        if name == "plan":
            block["replay"]["order_exec"] = (block["replay"]["order_exec"] or 0.0) + 0.01
        else:
            block["accuracy"] += 0.01
        (out / "bad.json").write_text(json.dumps(res))
        assert _recompute(out / "bad.json", compact_root, tol="0.005").returncode == 1
    (tmp_path / "broken.json").write_text("{")
    assert _recompute(tmp_path / "broken.json", compact_root).returncode == 2
