"""Typed settings of the motion planner (OMPL joint-space planning, IK goal choice, time parameterisation,
reachability map), loaded from `robot_configs/planner.yaml`. Every default lives here, once."""
from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from memora_core.config import CONFIG_DIR, REPO_ROOT, load_yaml


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class ReachGridConfig(_Cfg):
    """The grid of palm positions (world frame, metres) over which each arm's reach is precomputed."""
    x_range: tuple[float, float] = Field(default=(0.15, 0.70), description="palm x from .. to (forward of the pelvis)")
    y_range: tuple[float, float] = Field(default=(-0.50, 0.45), description="palm y from .. to (left positive)")
    z_range: tuple[float, float] = Field(default=(0.78, 1.14), description="palm z from .. to (the table top is 0.74)")
    step: float = Field(default=0.04, gt=0, description="grid spacing along each axis")


class PlannerConfig(_Cfg):
    # --- validity ------------------------------------------------------------------------------------
    clearance_margin: float = Field(default=0.025, ge=0, description=(
        "m the arm and the held object keep from objects and the table at every checked state; it must cover "
        "how far the arm lags its plan (servos trail by up to ~0.045 rad, ~2 cm at the hand)"))
    self_penetration: float = Field(default=0.005, ge=0, description=(
        "m of overlap between two robot links tolerated (the G1's hands rest against its hips at home)"))
    clearance_horizon: float = Field(default=0.05, gt=0, description=(
        "m out to which clearance is measured for goal choice; farther counts as this much"))
    check_step: float = Field(default=0.02, gt=0, description=(
        "rad: motions are collision-checked at states at most this far apart (largest joint change)"))
    start_escape_radius: float = Field(default=0.15, ge=0, description=(
        "rad (every joint) within which a nearby valid posture is sought for a start already inside the clearance "
        "margin; the path then begins with a straight line out to it that comes no closer to anything (0: such a "
        "start is refused as START_IN_COLLISION)"))
    start_escape_attempts: int = Field(default=60, ge=0, description=(
        "postures sampled around such a start, in rings of growing size, before it is refused"))
    start_escape_depth: float = Field(default=0.015, ge=0, description=(
        "m a start may lie inside an obstacle and still be moved out; deeper is refused (a posture physics cannot "
        "hold, not a margin to leave)"))
    # --- OMPL ----------------------------------------------------------------------------------------
    time_limit_s: float = Field(default=1.0, gt=0, description="seconds RRTConnect may search before NO_PATH")
    shortcut_steps: int = Field(default=30, ge=0, description=(
        "shortcut attempts on a found path (OMPL's reduceVertices and partialShortcutPath; 0: none)"))
    planner_range: float = Field(default=0.0, ge=0, description=(
        "rad: longest RRTConnect extension (0: OMPL's own choice, a fifth of the space's extent)"))
    seed: int | None = Field(default=1, ge=1, description=(
        "OMPL's random seed, taken once per process (None: not fixed)"))
    # --- goals from IK ---------------------------------------------------------------------------------
    ik_tolerance: float = Field(default=0.015, gt=0, description="m of palm position error a goal may keep")
    ik_self_clearance: float | None = Field(default=0.005, ge=0, description=(
        "m the IK keeps the arm off the torso while solving for goals (None: the robot's own IK settings); a "
        "goal folded into the torso is rejected by the collision check anyway, and another seed may miss it"))
    ik_seeds: int = Field(default=6, ge=0, description="random IK seeds tried besides the start posture")
    goal_candidates: int = Field(default=3, ge=1, description=(
        "IK stops once this many distinct valid goal postures are found; the search is offered all of them"))
    waist_yaw_seeds: list[float] = Field(default_factory=lambda: [-0.3, 0.3], description=(
        "rad: extra IK seeds that also turn the waist this far (a far point is reached by turning)"))
    goal_travel_weight: float = Field(default=1.0, ge=0, description="goal cost per rad of largest joint travel")
    goal_clearance_weight: float = Field(default=20.0, ge=0, description=(
        "goal cost per metre of clearance missing to clearance_horizon"))
    goal_manipulability_weight: float = Field(default=0.1, ge=0, description=(
        "goal cost reduction per unit of manipulability sqrt(det(J J^T)) of the palm position Jacobian (x100)"))
    # --- time parameterisation -----------------------------------------------------------------------
    velocity_fraction: float = Field(default=0.6, gt=0, le=1, description=(
        "share of the robot's joint velocity limit a trajectory may use; at or below 2/pi every sampled step "
        "also passes the limit check's cosine-peak test on its own"))
    max_acceleration: float = Field(default=4.0, gt=0, description="rad/s^2 any joint may accelerate")
    sample_dt: float = Field(default=0.02, gt=0, description="s between samples of a timed trajectory")
    spline_step: float = Field(default=0.05, gt=0, description=(
        "rad: a path is resampled this finely before the smoothing spline, which then stays near its lines"))
    # --- guarded approach (planned to above a point, then a slow straight descent) ---------------------------
    guarded_approach: bool = Field(default=True, description=(
        "when a straight lowering onto a point is refused (IK miss, path blocked) or stops short, plan a "
        "collision-free joint path to guard_height above it, then descend the rest straight and slowly"))
    guard_height: float = Field(default=0.04, gt=0, description=(
        "m above the point where the planned part ends and the guarded descent begins (above clearance_margin "
        "plus the release gap, so the planned goal keeps its margin from the support)"))
    guard_margin: float = Field(default=0.005, ge=0, description=(
        "m the arm and held object keep from neighbours during the guarded descent (the planner's margin is "
        "relaxed only for these last cm near the goal)"))
    guard_step: float = Field(default=0.01, gt=0, description="m per step of the guarded descent")
    guard_speed: float = Field(default=0.03, gt=0, description="m/s of the palm during the guarded descent")
    guard_stall: float = Field(default=0.006, gt=0, description=(
        "m the palm may lag a descent step's end; more counts as contact and the descent stops there"))
    # --- carrying ------------------------------------------------------------------------------------------
    held_carry_speed: float = Field(default=0.2, gt=0, description=(
        "m/s of the palm on the level carry while it holds an object (the servos trail a fast move, a loaded arm "
        "most, and the sag must stay under the carry's margin)"))
    held_carry_drop: float = Field(default=0.03, ge=0, description=(
        "m below its level the line of a held carry is checked again (by the robot's default clearance margin): "
        "how far a loaded arm may sag behind its plan mid-carry"))
    # --- reachability --------------------------------------------------------------------------------
    reach_grid: ReachGridConfig = Field(default_factory=ReachGridConfig)
    cache_dir: str = Field(default=".cache/memora/reachability", description=(
        "where reachability maps are cached (relative: to the repository root); never committed"))

    def cache_path(self) -> Path:
        path = Path(self.cache_dir)
        return path if path.is_absolute() else REPO_ROOT / path


def load_planner_config(name_or_path: str | Path = "planner") -> PlannerConfig:
    """`robot_configs/<name>.yaml` (or a path): its `planner:` section."""
    path = Path(name_or_path)
    if not path.suffix:
        path = CONFIG_DIR / f"{name_or_path}.yaml"
    return PlannerConfig.model_validate(load_yaml(path).get("planner", {}))
