"""The G1 backend without a DDS link, for tests at the LowCmd publisher seam: `loopback_g1(cfg)` builds a
`UnitreeG1Robot` whose publisher records every LowCmd written (virtual time, the 29 motors' q; their dq in
`velocities`) and moves the measured joints 30 % of the way toward it, as a lagging servo would report on
rt/lowstate, on a virtual clock (a move's frames stream without waiting out its wall time)."""
from __future__ import annotations

import numpy as np


class Loopback:
    """The DDS link's stand-in (publisher and subscriber both)."""

    def __init__(self, robot) -> None:
        self.robot = robot
        self.frames: list[tuple[float, np.ndarray]] = []
        self.velocities: list[np.ndarray] = []  # each frame's commanded joint velocities (LowCmd dq)

    def Write(self, msg) -> None:  # noqa: N802 (the SDK's name)
        q = np.array([msg.motor_cmd[i].q for i in range(len(self.robot._qadr))])
        self.frames.append((self.robot._now(), q))
        self.velocities.append(np.array([msg.motor_cmd[i].dq for i in range(len(q))]))
        with self.robot._state_lock:
            self.robot._q = self.robot._q + 0.3 * (q - self.robot._q)

    def Close(self) -> None:  # noqa: N802
        pass


def loopback_g1(cfg, **kwargs):
    """A `UnitreeG1Robot` for config `cfg` (no `dex3`: the loopback serves no hands) starting at the config's
    home posture, on the loopback link and a virtual clock. `restart()` puts it back at home."""
    from memora_core.robot.backends.unitree_g1 import UnitreeG1Robot
    from sim.g1 import BODY_JOINTS_29

    rest = np.array([cfg.home.get(n, 0.0) for n in BODY_JOINTS_29])

    class LoopbackG1(UnitreeG1Robot):
        clock = 0.0

        def _open_channels(self) -> None:
            self._pub = self._sub = Loopback(self)
            self._q, self._dq = rest.copy(), np.zeros(len(rest))

        def _now(self) -> float:
            return self.clock

        def _sleep(self, seconds: float) -> None:
            assert seconds >= 0
            self.clock += seconds

        def restart(self) -> None:
            self._q = rest.copy()
            self._target = self.limits.clip(self.joint_positions())
            self._pub.frames.clear()
            self._pub.velocities.clear()

    return LoopbackG1(cfg, **kwargs)


def seeing_g1():
    """(robot, seen): a loopback G1 without hands whose object source reports the list `seen` (fill it in a test)."""
    from memora_core.robot import load_robot_config

    seen: list = []
    robot = loopback_g1(load_robot_config("unitree_g1").model_copy(update={"dex3": None}), objects=lambda: list(seen))
    return robot, seen


def posture(robot, palm, residual_m: float = 0.01) -> dict[str, float]:
    """The robot's IK posture putting the current arm's palm at `palm` (asserted to solve within `residual_m`)."""
    joints, residual = robot.solve_ik(np.array(palm, float))
    assert residual < residual_m
    return joints
