"""Token-level advantage shaping for FIRM rewards.

Our reading of the paper's rule (documented because the issue leaves the exact statistics to "the paper"):
1. every candidate's token rewards r[i, t] (response tokens only) are averaged into one score s[i];
2. the group statistics are the mean mu_g and the standard deviation sigma_g (population, ddof=0) of the G
   scores s[i] of one segment's candidates;
3. the token advantage is A[i, t] = (r[i, t] - mu_g) / (sigma_g + eps): a token is rewarded for beating its
   group's average candidate, so tokens of one candidate can still get advantages of different sign;
4. A is clipped to [-kappa, kappa];
5. then recentred and whitened over all response tokens of the batch (prompt and padding excluded, set to 0).
"""
from __future__ import annotations

import torch


def candidate_scores(token_rewards: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """(N, T) rewards and 0/1 mask -> (N,) mean reward over each candidate's response tokens (0 when empty)."""
    m = mask.to(token_rewards.dtype)
    return (token_rewards * m).sum(dim=1) / m.sum(dim=1).clamp(min=1.0)


def group_statistics(scores: torch.Tensor, group_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(N,) scores, N = groups x group_size (consecutive) -> per-candidate (mu, sigma) of its group."""
    if group_size < 1 or scores.numel() % group_size:
        raise ValueError(f"{scores.numel()} candidates do not split into groups of {group_size}")
    grouped = scores.view(-1, group_size)
    mu = grouped.mean(dim=1)
    sigma = grouped.std(dim=1, unbiased=False)
    return mu.repeat_interleave(group_size), sigma.repeat_interleave(group_size)


def whiten(values: torch.Tensor, mask: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """Recentre to mean 0 and scale to std 1 over the masked entries; masked-out entries become 0."""
    m = mask.bool()
    if not m.any():
        return torch.zeros_like(values)
    sel = values[m]
    mean = sel.mean()
    std = sel.std(unbiased=False)
    out = (values - mean) / (std + eps)
    return torch.where(m, out, torch.zeros_like(out))


def token_advantages(token_rewards: torch.Tensor, mask: torch.Tensor, group_size: int, kappa: float,
                     eps: float = 1e-4) -> torch.Tensor:
    """(N, T) token rewards -> (N, T) advantages (steps 1-5 of the module docstring)."""
    if token_rewards.shape != mask.shape:
        raise ValueError(f"rewards {tuple(token_rewards.shape)} and mask {tuple(mask.shape)} differ")
    if kappa <= 0:
        raise ValueError("kappa must be > 0")
    scores = candidate_scores(token_rewards, mask)
    mu, sigma = group_statistics(scores, group_size)
    adv = (token_rewards - mu[:, None]) / (sigma[:, None] + eps)
    adv = adv.clamp(-kappa, kappa)
    return whiten(adv, mask)
