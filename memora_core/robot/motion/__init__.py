"""Robot motion through a planning library: collision-free joint paths (OMPL RRTConnect + shortcutting),
IK goal postures ranked by cost, TOPP-RA timing within velocity and acceleration limits, and a cached
reachability map. Pure Python + numpy: the world comes in through `CollisionWorld` / `ArmKinematics`
(MuJoCo's implementation: `sim/planning_world.py`)."""
from memora_core.robot.motion.arm_planner import ArmMotionPlanner, MotionPlan
from memora_core.robot.motion.config import PlannerConfig, ReachGridConfig, load_planner_config
from memora_core.robot.motion.failures import PlanningCause, PlanningFailure
from memora_core.robot.motion.goals import GoalCandidate, GoalSelector
from memora_core.robot.motion.planner import JointPath, JointPlanner, path_free, segment_free
from memora_core.robot.motion.timing import TimedTrajectory, time_parameterize
from memora_core.robot.motion.world import ArmKinematics, CollisionWorld, JointSpace

__all__ = ["ArmKinematics", "ArmMotionPlanner", "CollisionWorld", "GoalCandidate", "GoalSelector", "JointPath",
           "JointPlanner", "JointSpace", "MotionPlan", "PlannerConfig", "PlanningCause", "PlanningFailure",
           "ReachGridConfig", "TimedTrajectory", "load_planner_config", "path_free", "segment_free",
           "time_parameterize"]
