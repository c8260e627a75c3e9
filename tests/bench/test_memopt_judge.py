"""The configurable FIRM judge (memopt/evaluator.py), faithfulness across tokenizers
(rewards/token_alignment.py, against hand-computed spans) and the judge-discrimination cases
(memopt/judge_cases.py). The Qwen GGUF judge is loaded only where the file exists (it is not committed)."""
from __future__ import annotations

import copy

import pytest
import torch

from memora_core.config import REPO_ROOT
from memora_core.schemas import SegmentObservation

from memora_bench.memlife.types import SegmentInput
from memora_bench.memopt.config import MEMOPT_CONFIGS, RewardConfig, load_memopt_config
from memora_bench.memopt.evaluator import EvaluatorNotFound, Judge, load_judge
from memora_bench.memopt.judge_cases import FILLERS, KINDS, build_cases, first_person, win_rate
from memora_bench.memopt.models import smollm2_tokenizer, tiny_model
from memora_bench.memopt.rewards.faithfulness import token_faithfulness_batch
from memora_bench.memopt.rewards.token_alignment import align_scores, evaluator_tokens, writer_spans
from memora_bench.memopt.rewards.validity import entry_validity

QWEN_GGUF = REPO_ROOT / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"


# ---------------------------------------------------------------- alignment
def test_align_scores_hand_made():
    scores = torch.tensor([0.9, 0.2, 1.0, 0.5])
    sources = [(0, 2), (2, 5), (5, 6), (6, 9)]          # "I " "took" " " "cup" style pieces
    targets = [(0, 3), (3, 6), (6, 6), (6, 9), (9, 9)]   # straddling, straddling, empty, exact, empty at the end
    got = align_scores(targets, sources, scores)
    assert torch.allclose(got, torch.tensor([0.2, 0.2, 0.5, 0.5, 0.5]))
    assert torch.allclose(align_scores([(0, 4)], [], torch.zeros(0)), torch.ones(1))  # nothing to judge


def test_writer_spans_cover_the_decoded_text():
    tok = smollm2_tokenizer()
    ids = tok.encode("I took the orange cup, then I said \"thanks\".", add_special_tokens=False)
    text, spans = writer_spans(tok, ids)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a <= b for a, b in spans) and all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1))
    eids, espans = evaluator_tokens(tok, text)
    assert eids == ids and [text[a:b] for a, b in espans] == [text[a:b] for a, b in spans]


def test_faithfulness_through_re_tokenisation_equals_the_direct_path():
    """A 'foreign' judge whose tokenizer happens to tokenise like the writer's: the mapped scores must equal the
    direct teacher-forced ones (every writer token maps to exactly its own evaluator token)."""
    tok = smollm2_tokenizer()
    other = copy.deepcopy(tok)  # a second tokenizer object: the cross-tokenizer path is taken
    model = tiny_model(tok, seed=3).eval()
    text = "I took the cup from the shelf and turned the kettle on."
    ids = tok.encode(text, add_special_tokens=False)
    direct = token_faithfulness_batch(model, tok, ["PERCEPTION: cup"], [text], [ids], 256)[0]
    mapped = token_faithfulness_batch(model, tok, ["PERCEPTION: cup"], [text], [ids], 256,
                                      evaluator_tokenizer=other)[0]
    assert mapped.shape == direct.shape and torch.allclose(mapped, direct, atol=1e-5)
    assert (direct < 1).any()  # a random model does not agree with every token: the test can fail


# ---------------------------------------------------------------- judge loading
def test_initial_writer_judge_is_the_frozen_initial_writer():
    initial = Judge(model=object(), tokenizer=object(), label="initial_writer")
    assert load_judge(RewardConfig(), initial) is initial


def test_missing_gguf_judge_is_a_typed_error(tmp_path):
    cfg = RewardConfig(evaluator="gguf", evaluator_path=str(tmp_path / "absent.gguf"))
    with pytest.raises(EvaluatorNotFound):
        load_judge(cfg, Judge(None, None, "initial_writer"))
    with pytest.raises(ValueError):
        load_judge(RewardConfig(evaluator="gguf"), Judge(None, None, "initial_writer"))


@pytest.mark.slow
@pytest.mark.skipif(not QWEN_GGUF.is_file(), reason=f"{QWEN_GGUF.name} absent (make it with "
                    "scripts/fetch_qwen_gguf.sh; not committed, not on CI)")
def test_qwen_gguf_judge_scores_writer_tokens():
    cfg = RewardConfig(evaluator="gguf", evaluator_path=str(QWEN_GGUF.relative_to(REPO_ROOT)))
    judge = load_judge(cfg, Judge(None, None, "initial_writer"))
    writer_tok = smollm2_tokenizer()
    text = "I turn on tap and wash hands."
    ids = writer_tok.encode(text, add_special_tokens=False)
    got = token_faithfulness_batch(judge.model, writer_tok, ["PERCEPTION: turn on tap; wash hands"], [text], [ids],
                                   256, evaluator_tokenizer=judge.tokenizer)[0]
    assert got.shape == (len(ids),) and bool(((got > 0) & (got <= 1)).all())


@pytest.mark.parametrize("path", sorted(MEMOPT_CONFIGS.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_memopt_config_names_its_judge(path):
    cfg = load_memopt_config(str(path))
    assert cfg.name == path.stem
    if cfg.rewards.evaluator != "initial_writer":
        assert cfg.rewards.evaluator_path, "a separate judge needs its file or folder"


# ---------------------------------------------------------------- cases
def _segment(pid: str, video: str, idx: int, acts: list[tuple[str, str]]) -> SegmentInput:
    obs = SegmentObservation.model_validate({
        "segment": {"participant_id": pid, "video_id": video, "index": idx, "start_s": 0.0, "end_s": 30.0},
        "objects": [{"name": n} for _, n in acts],
        "actions": [{"verb": v, "nouns": [n], "start_s": float(i), "end_s": float(i) + 1}
                    for i, (v, n) in enumerate(acts)], "backend": "narration"})
    return SegmentInput(participant_id=pid, video_id=video, index=idx, start_s=0, end_s=30, t_start=30.0 * idx,
                        t_end=30.0 * idx + 30, perception_json=obs.model_dump_json())


def test_cases_are_grounded_fabricated_filler_and_copy():
    a = _segment("P01", "P01_01", 0, [("take", "cup"), ("open", "fridge")])
    b = _segment("P01", "P01_01", 1, [("take", "cup"), ("wash", "plate")])    # same video: never a donor
    c = _segment("P01", "P01_02", 0, [("cut", "onion"), ("turn-on", "tap")])
    d = _segment("P01", "P01_03", 0, [("take", "cup")])                       # one action: no case of its own
    cases = build_cases([a, d, c], [a, b, c, d])
    assert [x.segment.key for x in cases] == [a.key, c.key]
    first = cases[0].texts
    assert set(first) == set(KINDS)
    assert first["grounded"] == first_person(["take cup", "open fridge"]) == "I take cup and open fridge."
    assert first["fabricated"] == "I cut onion and turn on tap."  # c: another video, no noun shared with a
    assert first["filler"] == FILLERS[0] and cases[1].texts["filler"] == FILLERS[1]
    assert entry_validity(first["json_copy"]).score == 0.0 and entry_validity(first["grounded"]).score == 1.0
    assert cases[1].texts["fabricated"] == "I take cup."  # c's donor: the next other-video segment, d


def test_win_rate_counts_ties_half():
    assert win_rate([0.9, 0.5, 0.1], [0.1, 0.5, 0.9]) == pytest.approx(0.5)
    assert win_rate([1.0, 1.0], [0.0, 0.0]) == 1.0
