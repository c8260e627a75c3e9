"""Dex3 command/state round trip over real DDS (loopback, this worker's domain: tests/dds_domains.py) between the sim bridge process and the
controller-side Dex3Hand client: both hands close and open as commanded, within their joint ranges."""
import signal
import subprocess
import sys
import time

import pytest

from tests.dds_domains import unitree_domain
from tests.fresh_process import run_in_fresh_process

pytest.importorskip("unitree_sdk2py")
# solo: a sim bridge keeping real time against deadlines (TEST_WORKERS=N make test runs it alone, after the workers)
pytestmark = [pytest.mark.sim, pytest.mark.solo]


def test_dex3_cmd_state_round_trip_through_the_bridge():
    run_in_fresh_process("tests.scene.test_dex3_dds", "_round_trip")


def _wait(pred, seconds: float, hand) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        hand.command(hand.target)  # a steady command stream, as the hand expects
        if pred():
            return True
        time.sleep(0.02)
    return False


def _round_trip() -> None:
    from unitree_sdk2py.core.channel import ChannelFactoryInitialize

    from memora_core.robot.backends.dex3 import Dex3Hand
    from memora_core.robot.hand import HandPostures, joint_ranges

    bridge = subprocess.Popen([sys.executable, "-m", "sim.unitree_bridge.bridge", "--domain", str(unitree_domain()),
                               "--interface", "lo", "--seconds", "90"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        ChannelFactoryInitialize(unitree_domain(), "lo")
        hands = {side: Dex3Hand(side) for side in ("left", "right")}
        for hand in hands.values():
            q0 = hand.wait_for_state(60.0)  # the bridge builds its model first; CPUs are shared
            assert max(abs(v) for v in q0) < 0.1, q0  # the hand starts open

        postures = HandPostures()
        for side, hand in hands.items():
            closed = hand.close()
            assert closed == postures.closed(side)
            near = lambda h=hand, c=closed: max(abs(a - b) for a, b in zip(h.q(), c)) < 0.1  # noqa: E731
            assert _wait(near, 20.0, hand), f"{side} never closed: {hand.q()} vs {closed}"
            assert not hand.grasping() and hand.blocked() == set()  # nothing between the fingers
            assert hand.touching() == set()  # ... and no tactile pad feels anything
            for q, (lo, hi) in zip(hand.q(), joint_ranges(side).values()):
                assert lo - 0.01 <= q <= hi + 0.01

            # Out of range is clipped before it is sent: the fingers stop inside their ranges.
            sent = hand.command([5.0] * 7)
            assert all(lo < v < hi for v, (lo, hi) in zip(sent, joint_ranges(side).values()))

            opened = hand.open()
            back = lambda h=hand, o=opened: max(abs(a - b) for a, b in zip(h.q(), o)) < 0.1  # noqa: E731
            assert _wait(back, 20.0, hand), f"{side} never opened: {hand.q()}"
            assert hand.states > 10 and hand.sent > 10
        for hand in hands.values():
            hand.shutdown()
    finally:
        bridge.send_signal(signal.SIGINT)
        out, _ = bridge.communicate(timeout=30)
    assert bridge.returncode == 0, out


def _tracker_seeing(name: str, position, yaw, size, shape, colour: str):
    """The G1's object source for a DDS test: an object tracker over the kitchen's catalogue that has seen `name`
    once, at `position` (what the head RGB-D scene model would send)."""
    from memora_core.perception.scene.tracker import ObjectTracker, scene_catalogue
    from memora_core.perception.scene.types import PerceivedObject, SceneModel
    from memora_core.robot import load_robot_config
    from sim.scene.config import load_scene_config

    tracker = ObjectTracker(scene_catalogue(load_scene_config(load_robot_config("unitree_g1").scene_path())))
    tracker.update(SceneModel(table_z=0.74, stamp_s=1.0, objects=[PerceivedObject(
        position=position, yaw=yaw, size=size, shape=shape, colour=colour, pixels=900, name=name, match_cost=0.1)]))
    return tracker


@pytest.mark.slow
def test_g1_backend_grasps_with_its_dex3_hand_through_the_bridge():
    run_in_fresh_process("tests.scene.test_dex3_dds", "_g1_grasp")


def _g1_grasp() -> None:
    """The `unitree_g1` Robot over DDS: the right palm brought beside a bottle (IK on the G1 backend, LowCmd
    to the bridge), grasp() closes the Dex3 hand and reports the grasp from finger state alone; the bottle
    comes up with the hand (the bridge's ground truth says so). Brought 13 cm further out, the fingers meet
    nothing: no grasp, the hand opens again."""
    import numpy as np

    from memora_core.perception.scene.types import Shape
    from memora_core.robot import make_robot
    from memora_core.robot.hand import clamp_to_ranges
    from tests.scene.bridge_process import bridge_with

    bottle, at = "coca-cola bottle", (0.40, -0.20, 0.0)
    # The G1's object source: the tracker a scene model feeds (here one sighting of the bottle where it stands).
    tracker = _tracker_seeing(bottle, (at[0], at[1], 0.85), None, (0.07, 0.07, 0.22), Shape.CYLINDER, "red")
    with bridge_with({bottle: at}, seconds=150) as bridge:
        robot = make_robot("unitree_g1", domain=unitree_domain(), interface="lo", state_timeout_s=60, objects=tracker)
        assert set(robot.hands) == {"left", "right"} and robot.held_object() is None
        robot.use_arm("right")
        # The sim's bottle: 0.74 m table, its centre 0.11 m up; the palm level beside its upper half.
        palm = np.array([at[0] - 0.045, at[1] - 0.05, 0.74 + 0.11 + 0.08])

        def go(target, seconds=None):
            q, residual = robot.solve_ik(np.asarray(target), rotation=np.eye(3), orientation_cost=0.5)
            assert residual < 0.01, residual
            assert robot.command(q, seconds).completed

        go([0.22, -0.30, 1.02])
        go(palm + [0.0, -0.08, 0.06])           # beside and above
        go(palm + [0.0, -0.13, 0.0])           # level, 13 cm out: nothing between the fingers
        sent = []
        command = robot.hands["right"].command
        robot.hands["right"].command = lambda q: sent.append(list(q)) or command(q)
        assert not robot.grasp(bottle)
        assert robot.held_object() is None
        assert not robot.hands["right"].grasping()
        # The close is guarded: the fingers stepped toward closed (hand.CLOSE_S in GUARD_POLL_S steps), no pad
        # felt anything, so none stopped early, before the full close and the opening.
        from memora_core.robot.hand import CLOSE_S, GUARD_POLL_S
        closed = robot.hands["right"].postures.closed("right")
        steps = [q for i, q in enumerate(sent) if (i == 0 or q != sent[i - 1]) and q != closed]
        assert len(steps) >= round(CLOSE_S / GUARD_POLL_S) - 1, len(steps)
        assert robot.hands["right"].touching() == set()
        # Pre-shaping the empty hand (grasp.mode fingers shapes it before reaching): the thumb goes a third of
        # the way closed through HandCmd_, as the HandState_ says; and back open.
        hand = robot.hands["right"]
        for thumb in (0.35, 0.0):
            target = clamp_to_ranges("right", hand.postures.shaped("right", thumb, 0.0), hand.postures.margin)
            assert robot.shape_hand("right", thumb, 0.0)
            assert not robot.shape_hand("right", thumb, 0.0)  # already in that shape
            end = time.monotonic() + 20.0
            while max(abs(a - b) for a, b in zip(hand.q(), target)) > 0.1 and time.monotonic() < end:
                robot.settle(0.1)
            assert max(abs(a - b) for a, b in zip(hand.q(), target)) < 0.1, (thumb, hand.q(), target)
        go(palm + [0.0, -0.08, 0.0])
        go(palm)                                # in: the bottle between thumb and fingers
        sent.clear()
        readings = []
        touching = robot.hands["right"].touching
        robot.hands["right"].touching = lambda: readings.append(touching()) or readings[-1]
        assert robot.grasp(bottle)
        assert robot.held_object() == bottle and robot.hands["right"].grasping()
        # The pads (the bridge's contact forces) felt the bottle: thumb and a finger, at the guarded close's last
        # reading; it stopped stepping before its end, once they did.
        assert "thumb" in readings[-1] and readings[-1] & {"index", "middle"}, readings
        guarded = [q for i, q in enumerate(sent) if (i == 0 or q != sent[i - 1]) and q != closed]
        assert 0 < len(guarded) < round(CLOSE_S / GUARD_POLL_S), len(guarded)
        assert tracker() == []                  # its place on the table is stale: the tracker forgot it
        go(palm + [0.0, 0.0, 0.10])             # lift
        robot.settle(0.3)
        assert abs(robot.object_pose(bottle)[0][2] - 0.95) < 0.02  # it moves with the hand
        # ... and turns with it: rolling the wrist tips the bottle (a pour's tilt check reads this)
        roll = "right_wrist_roll_joint"
        palm_before = robot._palm_rotation("right")
        # The controller reads the palm's orientation (a leaning held object is stood from it): not None here.
        assert np.allclose(robot.hand_rotation(), palm_before) and np.allclose(robot.hand_rotation("right"), palm_before)
        assert robot.command({roll: robot.joint_positions()[roll] + 0.8}, 2.0).completed
        robot.settle(0.3)
        turned = np.degrees(np.arccos(np.clip(np.trace(robot._palm_rotation("right") @ palm_before.T) / 2 - 0.5, -1, 1)))
        tilt = np.degrees(np.arccos(np.clip(robot.object_pose(bottle)[1][2, 2], -1, 1)))
        assert turned > 25 and abs(tilt - turned) < 10, (tilt, turned)
        robot.close()
    seen = bridge["truth"]
    assert seen["held"] == bottle, seen
    assert seen["objects"][bottle][2] > 0.74 + 0.11 + 0.07, seen  # came up ~10 cm with the hand


@pytest.mark.slow
def test_g1_backend_closes_a_rolled_hand_by_a_sweep_through_the_bridge():
    run_in_fresh_process("tests.scene.test_dex3_dds", "_g1_sweep")


def _g1_sweep() -> None:
    """The controller picks a lone tea box on the `unitree_g1` backend through the bridge with a rolled hand (the
    palm-over pinch of the G1 config): grasp() sweeps the index and middle against the thumb (hand.sweep_path, as
    the simulation closes a rolled hand), then closes the hand; the finger state reads a grasp, and the bridge's
    ground truth has the box held and lifted. The sweep is recorded: the thumb kept its target while the fingers
    closed step by step."""
    import numpy as np

    from memora_core.perception.scene.types import Shape
    from memora_core.robot import load_robot_config, make_robot
    from memora_core.robot.control import RuleBasedController
    from memora_core.robot.hand import FINGER_JOINTS
    from memora_core.robot.primitives import Primitive, PrimitiveCall
    from sim.scene.config import load_scene_config
    from tests.scene.bridge_process import bridge_with

    box, at = "cinnamon tea box", (0.42, -0.15, 0.3)
    # the box stands turned at[2] (its own x from the world's); its long side is its own y, so the scene model
    # gives that side's direction, at[2] + 90 degrees (as a yaw of a long side, within [-90, 90) degrees)
    long_side = (at[2] + np.pi / 2 + np.pi / 2) % np.pi - np.pi / 2
    tracker = _tracker_seeing(box, (at[0], at[1], 0.775), long_side, (0.06, 0.09, 0.07), Shape.BOX, "brown")
    cfg = load_robot_config("unitree_g1")
    scene = load_scene_config(cfg.scene_path())
    with bridge_with({box: at}, seconds=200) as bridge:
        robot = make_robot(cfg, domain=unitree_domain(), interface="lo", state_timeout_s=60, objects=tracker)
        sent = []
        hand = robot.hands["right"]
        command = hand.command
        hand.command = lambda q: sent.append(list(q)) or command(q)
        ctl = RuleBasedController(robot, scene.table.height, scene.regions, recoveries=[])
        result = ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object=box))
        assert result.success, result.detail
        assert ctl.c.state.pose.name.startswith("top pinch")
        assert robot.held_object() == box and hand.grasping()
        thumb = [i for i, j in enumerate(FINGER_JOINTS) if j.startswith("thumb")]
        distinct = [q for i, q in enumerate(sent) if i == 0 or q != sent[i - 1]]
        run = best = 0  # the longest run of new targets that move the fingers with the thumb's held
        for a, b in zip(distinct, distinct[1:]):
            run = run + 1 if all(a[i] == b[i] for i in thumb) else 0
            best = max(best, run)
        assert best >= 10, "the fingers did not close step by step with the thumb held"
        robot.settle(0.3)
        robot.close()
    seen = bridge["truth"]
    assert seen["held"] == box, seen
    assert seen["objects"][box][2] > 0.74 + 0.035 + 0.08, seen  # lifted with the hand
