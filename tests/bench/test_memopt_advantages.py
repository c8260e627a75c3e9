"""MemOpt advantage shaping against hand-computed tensors."""
from __future__ import annotations

import pytest
import torch

from memora_bench.memopt.advantages import candidate_scores, group_statistics, token_advantages, whiten


def test_candidate_scores_average_response_tokens_only():
    r = torch.tensor([[1.0, 0.0, 9.0], [0.5, 0.5, 0.5]])
    m = torch.tensor([[1, 1, 0], [1, 1, 1]])
    assert torch.allclose(candidate_scores(r, m), torch.tensor([0.5, 0.5]))


def test_group_statistics_per_group_population_std():
    mu, sigma = group_statistics(torch.tensor([1.0, 3.0, 10.0, 10.0]), 2)
    assert torch.allclose(mu, torch.tensor([2.0, 2.0, 10.0, 10.0]))
    assert torch.allclose(sigma, torch.tensor([1.0, 1.0, 0.0, 0.0]))
    with pytest.raises(ValueError):
        group_statistics(torch.tensor([1.0, 2.0, 3.0]), 2)


def test_token_advantages_hand_computed():
    # one group of two candidates; candidate 0 has a padded third token
    r = torch.tensor([[1.0, 0.0, 5.0], [0.5, 0.5, 0.5]])
    m = torch.tensor([[1, 1, 0], [1, 1, 1]])
    # scores: 0.5 and 0.5 -> mu 0.5, sigma 0 -> (r - 0.5) / 1e-4, clipped to +-2
    raw = torch.tensor([[2.0, -2.0, 2.0], [0.0, 0.0, 0.0]])
    sel = torch.tensor([2.0, -2.0, 0.0, 0.0, 0.0])  # response tokens only
    mean, std = sel.mean(), sel.std(unbiased=False)
    want = torch.where(m.bool(), (raw - mean) / (std + 1e-6), torch.zeros(()))
    got = token_advantages(r, m, group_size=2, kappa=2.0)
    assert torch.allclose(got, want, atol=1e-5)
    assert got[0, 2] == 0  # padding excluded and zeroed
    assert abs(float(got[m.bool()].mean())) < 1e-5 and abs(float(got[m.bool()].std(unbiased=False)) - 1) < 1e-4


def test_token_advantages_group_baseline_not_batch():
    # group A: scores 0.2 / 0.4; group B: 0.8 / 1.0; tokens equal within a candidate
    r = torch.tensor([[0.2, 0.2], [0.4, 0.4], [0.8, 0.8], [1.0, 1.0]])
    m = torch.ones_like(r)
    got = token_advantages(r, m, group_size=2, kappa=10.0)
    # per group: (r - mu) / (sigma + eps) = -1, +1 (sigma 0.1) -> whitened: already mean 0, std 1
    want = torch.tensor([[-1.0, -1.0], [1.0, 1.0], [-1.0, -1.0], [1.0, 1.0]]) * (0.1 / (0.1 + 1e-4))
    want = whiten(want, m)
    assert torch.allclose(got, want, atol=1e-4)
    assert torch.allclose(got[0], got[2])  # a weak group's best is not penalised by a strong group


def test_kappa_clips_before_whitening():
    # group 1: advantages -1/+1 (kept); group 2: sigma 0 -> -5000/+5000 before the clip
    r = torch.tensor([[0.2, 0.2], [0.4, 0.4], [0.0, 1.0], [0.5, 0.5]])
    m = torch.ones_like(r)
    got = token_advantages(r, m, 2, kappa=2.0)
    k = 0.1 / (0.1 + 1e-4)
    raw = torch.tensor([[-k, -k], [k, k], [-2.0, 2.0], [0.0, 0.0]])
    assert torch.allclose(got, whiten(raw, m), atol=1e-4)
    assert not torch.allclose(token_advantages(r, m, 2, kappa=100.0), got)
    with pytest.raises(ValueError):
        token_advantages(r, m, 2, kappa=0.0)


def test_whiten_all_masked_is_zero():
    assert torch.equal(whiten(torch.ones(2, 2), torch.zeros(2, 2)), torch.zeros(2, 2))
