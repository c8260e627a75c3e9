"""Robot side of memora: primitives (the whitelist a plan may use), limits, the Robot interface and registry,
the rule-based controller and the execution monitor. Pure Python: no ROS, no MuJoCo at import time."""
from memora_core.robot.primitives import Primitive, PrimitiveCall, parse_step
from memora_core.robot.robot import Robot, RobotConfig, SceneObject, load_robot_config, make_robot

__all__ = ["Primitive", "PrimitiveCall", "Robot", "RobotConfig", "SceneObject", "load_robot_config",
           "make_robot", "parse_step"]
