"""Layouts whose pick-and-place knocked a neighbour over (fresh sim-bench layouts of 2026-12-02, on the code
before these fixes), run end to end in MuJoCo as `memora sim-bench` runs them:
- 67017: a cup set aside was lowered with the hand turning back to its grasp orientation, swung 7 cm off its free
  spot, and was let go over the table's edge (the put-down now aims the object and refuses to let go off aim);
- 67074: a hand whose fingers rested against a bottle rose straight up to stow and dragged it over (it now
  leaves the contact sideways first);
- 67152: after a place, the hand stood against a bottle; the next pick's rise ignored that bottle, since it was the
  object to pick, and tipped it (a transit's start no longer ignores what it goes for at its end).
Each failed on that code with a distractor knocked over; each must now succeed with none. Each trial runs in a
process of its own, as `memora sim-bench` starts it (what ran before in the test process does not change it)."""
import json
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.sim, pytest.mark.slow]

TRIAL = "import json, sys; from memora_core.cli.sim_bench import _trial; print(json.dumps(_trial(int(sys.argv[1]), 'sim_g1')))"


@pytest.mark.parametrize("seed", [67017, 67074, 67152])
def test_the_trial_succeeds_with_every_neighbour_standing(seed):
    out = subprocess.run([sys.executable, "-c", TRIAL, str(seed)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["distractors_toppled"] == [], r
    assert r["success"], r
