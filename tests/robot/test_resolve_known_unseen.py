"""A plan's words that fit an object the robot knows but does not see now mean that object, not a look-alike in
view: with only the yellow spoon seen, 'metal spoon' resolves to nothing (the step then waits for it and reports it
missing) instead of sending the hand to the yellow spoon. Found on a perceived-pose trial where the metal spoon sat
out of the head camera's view and the pick took the yellow spoon. Words that fit a seen object best still find it,
and a word both fit equally ('spoon', one seen) is refused as ambiguous, as it is when both are seen."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from memora_core.robot.control.failures import FailureReason, PrimitiveFailure
from memora_core.robot.control.resolve import Resolver
from memora_core.robot.limits import EStop
from memora_core.robot.robot import SceneObject


def _obj(name: str, category: str, colour: str, material: str, xy) -> SceneObject:
    return SceneObject(name=name, category=category, colour=colour, material=material, half_height=0.01,
                       radius=0.08, position=(xy[0], xy[1], 0.76))


YELLOW_SPOON = _obj("yellow spoon", "spoon", "yellow", "plastic", (0.4, 0.1))
METAL_SPOON = _obj("metal spoon", "spoon", "silver", "metal", (0.5, -0.3))
YELLOW_BOWL = _obj("yellow bowl", "bowl", "yellow", "plastic", (0.5, 0.2))
GREY_BOWL = _obj("grey bowl", "bowl", "grey", "ceramic", (0.3, 0.0))
CATALOGUE = [YELLOW_SPOON, METAL_SPOON, YELLOW_BOWL, GREY_BOWL]


class PartlySeen:
    """A perceived scene: the catalogue is known, only `seen` is in view."""

    perceived_scene = True

    def __init__(self, seen: list[SceneObject]) -> None:
        self.seen = seen
        self.estop = EStop()
        self.config = SimpleNamespace(motion=SimpleNamespace(object_wait_s=0.2))

    def scene_objects(self) -> list[SceneObject]:
        return list(self.seen)

    def known_objects(self) -> list[SceneObject]:
        return list(CATALOGUE)

    def object_pose(self, name: str):  # noqa: ANN201 - (position, rotation) or None
        o = next((o for o in self.seen if o.name == name), None)
        return None if o is None else (np.array(o.position), np.eye(3))


@pytest.mark.parametrize("query", ["metal spoon", "the metal spoon", "grey bowl", "the grey ceramic bowl"])
def test_an_unseen_known_object_is_not_found_in_its_look_alike(query):
    robot = PartlySeen([YELLOW_SPOON, YELLOW_BOWL])
    assert Resolver(robot).resolve(query) is None
    with pytest.raises(PrimitiveFailure) as err:
        Resolver(robot).find(query, "object")
    assert err.value.reason is FailureReason.OBJECT_MISSING


@pytest.mark.parametrize("query, name", [("yellow spoon", "yellow spoon"), ("the plastic spoon", "yellow spoon"),
                                         ("yellow bowl", "yellow bowl"), ("metal spoon", "metal spoon")])
def test_words_that_fit_a_seen_object_best_find_it(query, name):
    robot = PartlySeen([YELLOW_SPOON, METAL_SPOON, YELLOW_BOWL])
    assert Resolver(robot).resolve(query).name == name


def test_a_word_an_unseen_object_fits_as_well_is_ambiguous():
    assert Resolver(PartlySeen([YELLOW_SPOON])).resolve("spoon") is None
    assert Resolver(PartlySeen([YELLOW_SPOON, METAL_SPOON])).resolve("spoon") is None  # as when both are seen

