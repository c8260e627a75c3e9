"""The sim bridge and a controller process round-trip LowCmd/LowState over real DDS on loopback, on this test
worker's domain (tests/dds_domains.py)."""
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


def test_lowcmd_lowstate_round_trip_between_processes():
    run_in_fresh_process("tests.sim.test_unitree_bridge", "_round_trip")


@pytest.mark.slow
def test_unitree_g1_backend_drives_the_bridge_with_limits_and_estop():
    run_in_fresh_process("tests.sim.test_unitree_bridge", "_drives")


def _round_trip() -> None:
    from unitree_sdk2py.core.channel import ChannelFactoryInitialize, ChannelPublisher, ChannelSubscriber
    from unitree_sdk2py.idl.default import unitree_hg_msg_dds__LowCmd_
    from unitree_sdk2py.idl.unitree_hg.msg.dds_ import LowCmd_, LowState_
    from unitree_sdk2py.utils.crc import CRC

    from sim.g1 import BODY_JOINTS_29

    bridge = subprocess.Popen([sys.executable, "-m", "sim.unitree_bridge.bridge", "--domain", str(unitree_domain()),
                               "--interface", "lo", "--seconds", "60"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        ChannelFactoryInitialize(unitree_domain(), "lo")
        states = []
        sub = ChannelSubscriber("rt/lowstate", LowState_)
        sub.Init(lambda msg: states.append([msg.motor_state[i].q for i in range(29)]), 10)
        pub = ChannelPublisher("rt/lowcmd", LowCmd_)
        pub.Init()
        elbow = BODY_JOINTS_29.index("right_elbow_joint")
        cmd = unitree_hg_msg_dds__LowCmd_()
        crc = CRC()
        deadline = time.monotonic() + 40  # the bridge builds its model first; CPUs are shared
        while time.monotonic() < deadline and not states:
            time.sleep(0.05)
        assert states, "no LowState from the bridge process"
        start = states[-1][elbow]
        for i in range(29):
            cmd.motor_cmd[i].mode = 1
            cmd.motor_cmd[i].q = states[-1][i]
        cmd.motor_cmd[elbow].q = 0.6
        cmd.crc = crc.Crc(cmd)
        reached = False
        while time.monotonic() < deadline:
            pub.Write(cmd)
            time.sleep(0.02)
            if states and abs(states[-1][elbow] - 0.6) < 0.05:
                reached = True
                break
        assert abs(start - 0.6) > 0.3 and reached, f"elbow {states[-1][elbow]:.3f} never reached 0.6"
    finally:
        bridge.send_signal(signal.SIGINT)
        out, _ = bridge.communicate(timeout=30)
    assert bridge.returncode == 0, out
    assert "received" in out and "received 0 LowCmd" not in out, out


def _drives() -> None:
    """The controller-side `unitree_g1` Robot (memora_core/robot/backends) publishes LowCmd to the sim bridge process and reads LowState
    back: a joint command arrives, the rule-based controller moves the palm (out of the tuck without
    hooking the table's edge), bad commands and the e-stop are refused before anything is sent."""
    import numpy as np

    from memora_core.robot import make_robot
    from memora_core.robot.control import FailureCause, FailureReason, RuleBasedController
    from memora_core.robot.limits import EStopActive, LimitViolation
    from memora_core.robot.primitives import Primitive, PrimitiveCall

    bridge = subprocess.Popen([sys.executable, "-m", "sim.unitree_bridge.bridge", "--domain", str(unitree_domain()),
                               "--interface", "lo", "--seconds", "90"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        robot = make_robot("unitree_g1", domain=unitree_domain(), interface="lo", state_timeout_s=40)
        assert robot.states_received > 0
        before = robot.joint_positions()
        assert abs(before["right_elbow_joint"] - 1.3) < 0.1  # the bridge starts in the sim's home pose

        report = robot.command({"right_elbow_joint": 0.8}, 1.0)
        assert report.completed
        assert abs(robot.joint_positions()["right_elbow_joint"] - 0.8) < 0.05  # read back over rt/lowstate
        assert robot.published > 50

        sent = robot.published
        with pytest.raises(LimitViolation):
            robot.command({"right_elbow_joint": 5.0}, 2.0)                  # outside the joint range
        with pytest.raises(LimitViolation):
            robot.command({"right_elbow_joint": -0.5}, 0.1)                 # far too fast
        assert robot.published == sent  # nothing was published for the refused commands

        # The local kinematic model knows the scene's table: a posture with the palm at the table top is
        # refused, a raised one and an ignored table are not (the controller plans around what this says).
        into_table = {"right_shoulder_pitch_joint": -0.2, "right_elbow_joint": 0.3, "right_wrist_pitch_joint": 1.0}
        assert robot.clearance(into_table, set()) == ["table"]
        assert robot.clearance(into_table, {"table"}) == []
        assert robot.clearance({"right_shoulder_pitch_joint": -0.8, "right_elbow_joint": 0.0}, set()) == []

        ctl = RuleBasedController(robot, 0.74, {"table center": (0.40, -0.15, 0.98)})
        start_q = robot.joint_positions()
        res = ctl.execute(PrimitiveCall(primitive=Primitive.MOVE_TO, target="table center"))
        assert res.success, res.detail
        assert np.linalg.norm(robot.hand_position() - np.array([0.40, -0.15, 0.98])) < 0.03
        res = ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object="coke"))
        assert not res.success and res.reason is FailureReason.OBJECT_MISSING  # no perception on this backend
        assert res.cause is FailureCause.OBJECT_MISSING

        # Parity: the same controller step on the in-process MuJoCo backend (same kitchen table, no objects)
        # from the same start posture ends with the palm and the arm's joints where the G1 backend over DDS put them.
        from sim.scene import Layout

        sim = make_robot("sim_g1", layout=Layout(seed=0, poses={}))
        upper = {j: v for j, v in start_q.items() if j.startswith(("waist", "left_s", "left_e", "left_w", "right_s",
                                                                    "right_e", "right_w"))}
        sim.command(upper, 2.0)
        sim.settle(0.5)
        sim_ctl = RuleBasedController(sim, 0.74, {"table center": (0.40, -0.15, 0.98)})
        assert sim_ctl.execute(PrimitiveCall(primitive=Primitive.MOVE_TO, target="table center")).success
        assert np.linalg.norm(sim.hand_position() - robot.hand_position()) < 0.03
        g1_q, sim_q = robot.joint_positions(), sim.joint_positions()
        arm_joints = [j for j in upper if j.startswith((robot.arm, "waist"))]
        assert arm_joints and max(abs(g1_q[j] - sim_q[j]) for j in arm_joints) < 0.15, \
            {j: round(g1_q[j] - sim_q[j], 3) for j in arm_joints}
        sim.close()

        robot.emergency_stop()
        with pytest.raises(EStopActive):
            robot.command({"right_elbow_joint": 1.0}, 2.0)
        robot.close()
    finally:
        bridge.send_signal(signal.SIGINT)
        out, _ = bridge.communicate(timeout=30)
    assert bridge.returncode == 0, out
