"""A routine's canonical steps come in the order most of its episodes did each pair of them, not by averaged
relative positions (which an episode with extra steps shifts: a step can land before one it follows everywhere)."""
from __future__ import annotations

from memora_core.agents.config import ConsolidationConfig
from memora_core.consolidation.procedures import Procedure, Step
from memora_core.consolidation.routines import canonical_steps, pairwise_wins


def episode(video: str, actions: list[tuple[str, str]]) -> Procedure:
    return Procedure([Step(video, float(i), float(i), verb, (noun,), f"{verb} {noun}") for i, (verb, noun) in
                      enumerate(actions)])


def test_steps_follow_the_order_of_the_episodes_that_have_both():
    both = episode("v1", [("grab", "kettle"), ("fill", "kettle"), ("grab", "mug"), ("rinse", "mug")])
    # an episode with many other steps before the kettle, and one that starts with the mug
    late = episode("v2", [("wipe", f"shelf{i}") for i in range(8)] + [("grab", "kettle"), ("fill", "kettle")])
    mug_first = episode("v3", [("grab", "mug"), ("rinse", "mug")] + [("sweep", f"floor{i}") for i in range(8)])
    steps = canonical_steps([both, late, mug_first], ConsolidationConfig(step_share=0.5))
    assert [s.key for s in steps] == [("grab", "kettle"), ("fill", "kettle"), ("grab", "mug"), ("rinse", "mug")]


def test_pairwise_wins_count_majorities_and_skip_ties():
    a = episode("v1", [("cut", "lime"), ("squeeze", "lime"), ("stir", "jug")])
    b = episode("v2", [("squeeze", "lime"), ("cut", "lime"), ("stir", "jug")])
    c = episode("v3", [("cut", "lime"), ("stir", "jug"), ("squeeze", "lime")])
    keys = [("cut", "lime"), ("squeeze", "lime"), ("stir", "jug")]
    # cut before squeeze 2:1, cut before stir 3:0, squeeze before stir 2:1
    assert pairwise_wins([a, b, c], keys) == {("cut", "lime"): 2, ("squeeze", "lime"): 1, ("stir", "jug"): 0}
    assert pairwise_wins([a, b], keys)[("cut", "lime")] == 1  # 1:1 with squeeze is no win; 2:0 over stir is
