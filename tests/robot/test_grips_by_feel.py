"""A grasp read from a Dex3 hand's state (hand.grips_by_feel, what Dex3Hand.grasping answers on the G1): the thumb
stopped short of its target, and a finger stopped short or pressing. A finger curled round a thin wall reaches its
closed posture with the wall in it, so only its pads tell that it holds; the thumb stopped short is always needed."""
import pytest

from memora_core.robot.hand import grips_by_feel


@pytest.mark.parametrize("blocked, touching, grips", [
    ({"thumb", "index"}, set(), True),            # both stopped short on the object (a hand without pads too)
    ({"thumb"}, {"thumb", "middle"}, True),       # the middle closed round a thin wall, its pads pressing
    ({"thumb"}, {"middle"}, True),
    ({"thumb"}, set(), False),                    # the thumb alone stopped: nothing opposes it
    ({"thumb"}, {"thumb"}, False),
    ({"index", "middle"}, {"thumb", "index"}, False),  # the thumb closed all the way: it holds nothing
    (set(), {"thumb", "index", "middle"}, False),
    (set(), set(), False),
])
def test_a_grip_needs_the_thumb_stopped_and_a_finger_stopped_or_pressing(blocked, touching, grips):
    assert grips_by_feel(blocked, touching) is grips
