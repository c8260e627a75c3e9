import os

import pytest

# Headless rendering: Mesa's software EGL unless the caller chose otherwise.
os.environ.setdefault("MUJOCO_GL", "egl")


@pytest.fixture
def ctl(request):
    """The palm G1's rule-based controller on the test module's own layout (`OBJS`: name -> (x, y, yaw))."""
    from memora_core.robot import make_robot
    from memora_core.robot.control import RuleBasedController
    from sim.scene import Layout

    robot = make_robot("sim_g1", layout=Layout(seed=0, poses=request.module.OBJS))
    yield RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
    robot.close()
