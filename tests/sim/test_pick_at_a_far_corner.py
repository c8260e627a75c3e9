"""A pick whose re-planned descent is blocked follows the checked one from above the object; at a far corner of the
table the arm may not reach above it at cruise height from the posture it has, where a lower cruise level is
reached (dev sim-bench layout 76013: the bread at the right front corner, 'above: IK residual 2.4 cm'). Real MuJoCo,
the whole sim-bench trial on that dev layout, with a control."""
import pytest

from memora_core.cli.sim_bench import _trial

pytestmark = [pytest.mark.sim, pytest.mark.slow]

SEED = 76013


def test_the_far_corner_pick_comes_down_from_a_lower_level():
    row = _trial(SEED, "sim_g1")
    assert row["success"], row


def test_control_only_the_cruise_level_fails_there(monkeypatch):
    import numpy as np

    from memora_core.robot.control.skills.pick import PickSkill

    def cruise_only(self, grasp_pt, lowest, ignore):
        above = np.array([grasp_pt[0], grasp_pt[1], max(self.c.arm.cruise_z(), lowest)])
        self.c.arm.go(above, ignore, "above")
        return above

    monkeypatch.setattr(PickSkill, "over", cruise_only)
    row = _trial(SEED, "sim_g1")
    assert not row["success"] and row["cause"] == "ik_miss", row
