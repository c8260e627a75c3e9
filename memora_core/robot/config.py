"""A robot's typed configuration (robot_configs/robots/*.yaml): grasping, IK, motion, DDS, the Dex3 hands,
gains and physics, loaded into pydantic models that refuse NaN/inf anywhere. A config may `extends:` another
and state only its differences."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memora_core.config import CONFIG_DIR, load_yaml
from memora_core.robot.hand import PRESS_PADS, TOUCH_THRESHOLD
from memora_core.robot.limits import LimitsConfig

Vec3 = tuple[float, float, float]


class _Cfg(BaseModel):
    # No NaN or inf anywhere in a robot's configuration: speeds, times and sizes feed command arithmetic.
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class GraspConfig(_Cfg):
    radius: float = Field(gt=0)
    clearance: float = Field(ge=0)
    mode: Literal["palm", "fingers"] = Field(
        default="palm", description="palm: the hand takes the object once the palm is within `radius` + "
        "`clearance` of its top (the simulator's weld); fingers: the palm goes beside the object (the grasp poses "
        "with a finger_offset) and the hand's fingers close on it once, the finger state deciding (Dex3)")


class IKConfig(_Cfg):
    tolerance: float = Field(gt=0)
    iterations: int = Field(ge=1)
    dt: float = Field(gt=0)
    posture_cost: float = Field(ge=0)
    orientation_cost: float = Field(ge=0)
    self_clearance: float | None = None      # m the arm keeps from the trunk while solving (None: not checked)
    self_detection: float = Field(default=0.03, gt=0)  # m beyond that at which the solver starts to care
    max_step: float | None = Field(default=None, gt=0)  # rad a joint may move per iteration (None: unbounded)


class GraspPose(_Cfg):
    """A hand orientation the controller may grasp with: fingers pitched `pitch_deg` below the horizontal
    (0: level, palm facing the midline; 90: fingers straight down) and turned `yaw_deg` from forward toward
    the body's midline (90: the hand comes in from the arm's own side, fingers pointing across), held with
    `orientation_cost` in the IK (0: free)."""
    name: str
    pitch_deg: float = Field(ge=0, le=90)
    yaw_deg: float = Field(default=0.0, ge=-90, le=90)
    orientation_cost: float = Field(ge=0)
    # Lowest palm height above the table top at which this hand's fingers stay off the table (measured with
    # the clearance check); a grasp with this hand keeps the palm at least this high.
    min_palm_height: float = Field(default=0.0, ge=0)
    # Long objects only (a spoon, a tea box): the yaw is taken from the object instead, fingers along its
    # long axis (`yaw_deg` is then an extra turn from that axis). The hand then occupies the object's own
    # footprint, so its wrist and forearm come in over the free end rather than over a neighbour.
    along_long_axis: bool = False
    # Finger grasps (grasp.mode fingers) only: (along, across, down), m: the grip point, `down` below the centre
    # of the object's top (at most to its middle), lies `along` the fingers and `across` plus the object's half
    # width toward the palm's inner side from the palm centre (`across`: palm centre to the object's near face),
    # in the hand's frame at this pose; the fingers close around it there.
    finger_offset: tuple[float, float, float] | None = None
    # Finger grasps only: the hand turned `roll_deg` about its fingers, the palm's inner side toward the table
    # (90: palm facing down): a flat object's sweep pinch, the thumb's tip a wall just above the table behind the
    # object and the index and middle sweeping it against the thumb (sim.dex3, hand.sweep_path). Such a hand is
    # placed by the table: its palm centre `min_palm_height` above the table top exactly, `finger_offset`'s
    # `along` in front of the object's centre. 0 for every other hand.
    roll_deg: float = Field(default=0.0, ge=0, le=90)
    # Only for objects at most this tall (m, their measured height); None: any height.
    max_object_height: float | None = Field(default=None, gt=0)
    # Only for objects at least this tall (m, their measured height); None: any height (a palm-over pinch for
    # boxes leaves the flat ones to the sweep pinch made for them).
    min_object_height: float | None = Field(default=None, gt=0)
    # Tried before every hand without it, for the objects it fits (each grasp point, each arm in reach order):
    # a hand that holds more surely than the others where it fits.
    tried_first: bool = False
    # Tried after every hand without it (each grasp point, each arm): a hand for where all the others are blocked,
    # less proven than they are where they fit.
    tried_last: bool = False
    # (thumb, fingers) closing fractions the empty hand takes before reaching for the object with this pose
    # (None: the level hand's pre-shape from the object's footprint, grasping.GraspChooser.shape_hand).
    preshape: tuple[float, float] | None = None
    # Sweep pinches (`roll_deg`) only: the pre-closed thumb's tip stops the swept object this far along the fingers
    # from the palm centre (m): the closed hand holds the object's near face there, its centre that plus its narrow
    # half width (pushed against the thumb, a long object turns square to the fingers; PickSkill.swept_to). A
    # backend that knows the object only from its camera places it so in the hand (the closed hand hides it); None:
    # where it was seen before the fingers closed.
    thumb_wall: float | None = Field(default=None, ge=0)
    # Hands along a long object's axis only: the yaws (deg, as `motion.aligned_yaw_range`) this hand may take
    # instead of that range, for an object on its arm's side of the body (None: the range). A palm-down hand's
    # forearm rises above it rather than trailing beside it, so it may also point away from the midline, which
    # reaches an object at the table's outer edge.
    yaw_range: tuple[float, float] | None = None
    # Rolled finger hands (`roll_deg`) only: a pinch of an open container's wall at its rim (a bowl whose side is
    # crowded by neighbours), the palm centre this far above the rim (m): the pre-closed thumb hangs down on one side
    # of the wall and the index and middle curl over the rim on the other, pinching the wall between them. The grip
    # is tried at `rim_points` places round the rim, the fingers pointing at the container's centre or away from
    # it (`yaw_deg`: a turn from there), `finger_offset`'s `along` from the palm centre to the wall. None: a hand
    # for the object's body, not its rim (containers only take a rim hand).
    rim_above: float | None = Field(default=None, gt=0)
    rim_points: int = Field(default=8, ge=1, le=36)

    @model_validator(mode="after")
    def _one_turn(self) -> "GraspPose":
        if self.tried_first and self.tried_last:
            raise ValueError(f"grasp pose {self.name!r}: tried_first and tried_last both set")
        if self.rim_above is not None and (not self.roll_deg or self.finger_offset is None or self.along_long_axis):
            raise ValueError(f"grasp pose {self.name!r}: a rim hand (rim_above) is a rolled finger hand "
                             "(roll_deg, finger_offset) not along a long axis")
        if self.yaw_range is not None and self.yaw_range[0] > self.yaw_range[1]:
            raise ValueError(f"grasp pose {self.name!r}: yaw_range {list(self.yaw_range)} runs backwards")
        return self

    @property
    def turn(self) -> int:
        """When this hand is tried among the others: 0 tried_first, 1 the rest, 2 tried_last."""
        return 0 if self.tried_first else 2 if self.tried_last else 1


class MotionConfig(_Cfg):
    lift_height: float = Field(gt=0)
    approach_height: float = Field(gt=0)
    speed: float = Field(gt=0)
    min_segment_s: float = Field(gt=0)
    settle_s: float = Field(ge=0)
    place_tolerance: float = Field(gt=0)
    collision_force: float = Field(gt=0)
    pour_angle: float
    pour_min_angle: float = Field(default=0.9, gt=0)  # rad: a wrist that cannot roll this far cannot pour from this side
    pour_hold_s: float = Field(ge=0)
    object_wait_s: float = Field(default=0.0, ge=0, le=60, description=(
        "how long a step waits for the object source to see the object or target it names before failing with "
        "object_missing: a perceived scene fills in over its first frames; 0 = no wait (ground-truth scenes)"))
    look_again_below: float = Field(default=0.5, ge=0, le=1, description=(
        "a pick whose object the kept view explains less of than this fraction (hidden in part behind a "
        "neighbour, or cut by the image's edge) first looks at it from the head's other viewpoints and plans from "
        "the view that shows the most of it (robots whose objects are perceived; 0 = never)"))
    # Collision-aware motion: Cartesian moves are cut into IK waypoints this far apart, and every waypoint's
    # arm (and held object) must keep `clearance_margin` from objects not involved and from the table.
    path_step: float = Field(default=0.05, gt=0)
    joint_step: float = Field(default=0.1, gt=0)         # rad between checked waypoints of a joint-space move
    # Cartesian moves: neighbouring IK postures may differ by at most this (rad, any joint), else the palm
    # segment between them is halved (at most max_bisections times) so joint interpolation stays on the line.
    max_joint_jump: float = Field(default=0.08, gt=0)
    max_bisections: int = Field(default=3, ge=0)
    held_orientation_cost: float = Field(default=0.5, ge=0)  # IK weight on keeping the grasp's hand orientation
    relaxed_held_orientation_cost: float = Field(default=0.02, ge=0)  # ... in a carry the strict one cannot reach
    upright_tolerance_deg: float = Field(default=8.0, ge=0, description=(
        "degrees a held object may lean from how it stood at the grasp when it is put down on the table; more "
        "(it turned in the hand, or a relaxed carry or pour left the wrist turned) and the hand is turned back to "
        "stand it as it stood before it is carried over the spot and let go"))
    clearance_margin: float = Field(default=0.01, ge=0)
    arm_self_check: bool = Field(default=False, description=(
        "the clearance check behind straight lines, joint lines and checked descents also counts the moving arm "
        "pressed more than the planner's self_penetration into the rest of the robot (robot:<link>), as the OMPL "
        "planning world does: the servos cannot push a link through the torso, so such a posture is never "
        "reached and the arm runs off its checked path. A move refused for the body alone is planned round it "
        "(README, robot section)"))
    planned_carry: bool = Field(default=False, description=(
        "when no straight carry (any level, relaxed hand, re-posture) works, plan a collision-free joint path "
        "with the motion library (backends with Robot.arm_planner). Off: on the dev tests it rescued a carry "
        "that the making-room recovery then continued from into a failure (README, robot section). Either way a "
        "carry refused for the robot's body alone is planned, and so is that of an empty hand whose joint-space "
        "re-posture was refused before it moved"))
    retract_shifts: list[float] = Field(default_factory=lambda: [0.03, 0.06], description=(
        "m: a retract whose straight rises are refused for a neighbour rises while moving this far away from it "
        "(tried in turn)"))
    # Transit (the level carry between objects) keeps this much more room around standing objects: there the
    # arm moves fastest and lags its plan most, and a light bottle brushed by a fingertip falls over.
    transit_clearance_margin: float = Field(default=0.03, ge=0)
    carry_margin: float = Field(default=0.04, ge=0)     # held object's bottom above the tallest object's top
    # Arm choice: objects left of this y (world) are tried with the left arm first, the rest with the right.
    left_arm_min_y: float = 0.0
    hand_below: float = Field(default=0.06, ge=0)        # how far fingers reach below the palm in transit
    release_gap: float = Field(default=0.012, ge=0)      # a placed object is let go this far above its support
    stow_x: float = 0.15                                 # palm x (world) behind the table edge before tucking an arm
    rest_between_plans: bool = Field(default=True, description=(
        "a new plan with the hand empty first stows the arm (the waist upright): the IK seeds from the current "
        "posture and would carry one task's twist into the next; only on backends with a motion planner"))
    # Where an object is put down to pass it to the other arm (x/y box, world), and the free gap it needs.
    handoff_zone: tuple[tuple[float, float], tuple[float, float]] = ((0.32, -0.15), (0.45, 0.05))
    handoff_gap: float = Field(default=0.03, ge=0)
    handoff_tries: int = Field(default=3, ge=1)  # spots tried for a hand-off (each failed put-down costs a carry)
    # 'put X on the table' (no region) / 'put X next to Y': free table spots tried nearest first, on a grid of
    # this step within this radius of the wanted point (where X came from, or beside Y), at most this many.
    table_spot_step: float = Field(default=0.03, gt=0)
    # 'put X on the table' with no place named: near this scene region (the work area in front of the robot,
    # where both arms reach, as a person brings a bowl in front of themselves); None or an unknown region:
    # back where X came from.
    table_put_region: str | None = "table center"
    table_spot_radius: float = Field(default=0.24, gt=0)
    table_spot_tries: int = Field(default=10, ge=1)
    # Placing in a container that already holds something: let go this far above the contents' top, trying
    # each in turn (higher drops clear a crowded bowl; a few cm is still a gentle drop).
    container_drops: list[float] = Field(default_factory=lambda: [0.005, 0.03, 0.06])
    # A palm that stopped short of the grasp point steps down toward the object this far at a time, this many times.
    close_in_step: float = Field(default=0.015, gt=0)
    close_in_steps: int = Field(default=3, ge=0)
    # The guarded approach closes the hand at the fingers' first touch only on objects that tip: half-height at
    # least this fraction of the footprint radius (a tea box, a cup); flat ones (bread) are pressed on.
    tip_ratio: float = Field(default=0.6, gt=0)
    press_tilt_deg: float = Field(default=10.0, gt=0, description=(
        "degrees an object may tip under the approaching palm before the hand can close on it; beyond that the "
        "approach stops and the next grasp candidate is tried (a palm pressing on at a flat object's edge "
        "stands it on that edge)"))
    # A pick whose chosen grasp was blocked after the arm moved (approach stopped short, lift blocked by a
    # neighbour) backs off and tries the next grasp candidate (the other arm, another hand pose), this many times in all.
    pick_attempts: int = Field(default=3, ge=1)
    stow_orientation_cost: float = Field(default=0.005, ge=0)  # IK weight on hand orientation while an empty arm leaves
    high_carry: list[float] = Field(default_factory=lambda: [0.05, 0.10])  # extra cruise heights tried when the usual are blocked
    # Pour poses: the bottle's bottom this far above the cup's rim (plus the bottle's height), tried in turn.
    pour_heights: list[float] = Field(default_factory=lambda: [0.06, 0.03, 0.09])
    pour_wrist_bend: float = Field(default=0.5, ge=0)    # rad the wrist also bends when the roll alone tips too little
    beside_gap: float = Field(default=0.02, ge=0)         # 'next to Y': edge gap left to Y (and to the rest)
    beside_reach: float = Field(default=0.08, ge=0)       # 'next to Y': at most this much further from Y than the gap
    # Where on the table the arm puts things down (x/y box, world: on the table and within comfortable reach):
    # 'on the table' / 'next to Y' spots and set-aside spots are taken from it.
    # Making room: a step blocked by neighbours it is not about sets up to `clear_moves` of them aside, on
    # free spots of `table_zone` with `aside_gap` free around them, at least `aside_distance` from the work
    # and not in front of it.
    clear_moves: int = Field(default=2, ge=0)
    # The first this-many metres of a lift are a test: a neighbour rising with the object is caught on it.
    lift_test_height: float = Field(default=0.03, gt=0)
    table_zone: tuple[tuple[float, float], tuple[float, float]] = ((0.28, -0.36), (0.55, 0.30))
    aside_gap: float = Field(default=0.04, ge=0)
    aside_min_move: float = Field(default=0.04, ge=0)  # an object set aside goes at least this far from where it stood
    aside_distance: float = Field(default=0.15, ge=0)
    aside_clearance: float = Field(default=0.03, ge=0, description=(
        "m an object set aside must keep, at its spot, from the arm posture of a grasp that setting it aside is to "
        "free (checked before it moves): where it lands and where it is then seen differ from the spot by a few cm"))
    aside_zone: tuple[tuple[float, float], tuple[float, float]] = Field(default=((0.26, -0.42), (0.68, 0.33)),
                                                                         description=(
        "x/y box (world, m) on the table where an object may be set aside when `table_zone` has no room: only its "
        "spots the holding arm reaches (reachability map) are used"))
    arm_bases: dict[str, tuple[float, float]] = Field(
        default_factory=lambda: {"left": (0.0, 0.14), "right": (0.0, -0.14)}, description=(
            "x/y (world, m) where each arm's reach over the table starts (below its shoulder): a hand working at a "
            "point has its forearm over the line from here to it"))
    arm_corridor: float = Field(default=0.05, ge=0, description=(
        "m: half-width of the strip along that line an object set aside must keep out of (the forearm and "
        "wrist, with room to pass), besides its own radius"))
    # Off-centre grasps on long objects (a spoon by its handle): the palm stays this far inside the object's
    # end, and an offset shorter than `grasp_min_offset` is not worth trying.
    grasp_end_margin: float = Field(default=0.025, ge=0)
    grasp_min_offset: float = Field(default=0.015, gt=0)
    # Yaws (deg from forward toward the midline) a hand aligned with a long object's axis may take: the
    # forearm must trail behind the hand, not cross in front of the body.
    aligned_yaw_range: tuple[float, float] = (-60.0, 120.0)
    grasp_poses: list[GraspPose] = Field(default_factory=lambda: [GraspPose(name="forward", pitch_deg=0.0,
                                                                             orientation_cost=0.05)])


class DDSConfig(_Cfg):
    domain: int = 0
    interface: str = "eth0"
    command_hz: float = Field(default=250.0, gt=0)


class Dex3Config(_Cfg):
    """The Dex3-1 hands on a G1 over DDS (rt/dex3/{left,right}/cmd|state), one per enabled arm."""

    close_s: float = Field(default=0.8, gt=0, le=5.0,
                           description="how long a grasp streams the closed posture before reading the finger state")
    open_s: float = Field(default=0.5, gt=0, le=5.0, description="how long a release streams the open posture")
    state_timeout_s: float = Field(default=10.0, gt=0, description="wait for the first HandState_ of each hand")
    command_every: int = Field(default=5, ge=1,
                               description="re-send the hands' targets every this many LowCmd frames (a steady stream)")
    touch_threshold: float = Field(default=TOUCH_THRESHOLD, gt=0,
                                   description="a tactile pad whose cells sum to at least this is touching something: "
                                               "a closing digit stops there (the sim bridge publishes contact force "
                                               "in N; calibrate on the real hand's raw readings)")
    press_pads: list[tuple[Literal["thumb", "index", "middle"], Literal["tip", "pad"]]] = Field(
        default_factory=lambda: list(PRESS_PADS),
        description="HandState_.press_sensor_state[i] lies on press_pads[i] (digit, tip or pad below it); "
                    "the default order (memora_core.robot.hand.PRESS_PADS) is unchecked on a hand of ours")


class GainsConfig(_Cfg):
    kp_arm: float = 60.0
    kd_arm: float = 1.5
    kp_leg: float = 120.0
    kd_leg: float = 2.0


class PhysicsConfig(_Cfg):
    real_time: bool = False
    # Joint servos as the G1's motor drivers run them: kp (q_des - q) - kd dq + tau_ff, with gravity
    # compensation as tau_ff. Off: a plain position servo that sags under the arm's and torso's weight.
    servo_feedforward: bool = True
    velocity_feedforward: bool = Field(default=False, description=(
        "each joint target goes with its trajectory's velocity (LowCmd dq), so the servo's damping acts on the "
        "tracking error's rate, not on the motion: kp (q_des - q) + kd (dq_des - dq). Off (dq_des = 0): the arm "
        "trails its path by about kd / kp seconds, 1-2 cm at speed"))


class RobotConfig(_Cfg):
    type: Literal["sim", "sim_perceived", "unitree_g1"]  # sim_perceived: the sim planning from its head camera
    scene: str = "scenes/kitchen.yaml"
    arm: Literal["right", "left"] = "right"      # the default arm
    arms: list[Literal["right", "left"]] = Field(default_factory=lambda: ["right", "left"])  # arms the controller may use
    home: dict[str, float] = Field(default_factory=dict)
    limits: LimitsConfig
    grasp: GraspConfig
    ik: IKConfig
    motion: MotionConfig
    dds: DDSConfig | None = None
    gains: GainsConfig | None = None
    dex3: Dex3Config | None = None  # the G1 backend's hands; None: no hands (grasp() is False)
    physics: PhysicsConfig = Field(default_factory=PhysicsConfig)

    def scene_path(self) -> Path:
        path = Path(self.scene)
        return path if path.is_absolute() else CONFIG_DIR / path


def _merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """`over` on top of `base`: mappings merge key by key, anything else (lists included) replaces."""
    out = dict(base)
    for k, v in over.items():
        out[k] = _merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _robot_yaml(name_or_path: str | Path, seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """A robot config's mapping; `extends: <name>` takes that config and overrides what this one gives, so a
    variant (e.g. the same robot with other hands) states only its differences. `motion.grasp_poses` may name a
    shared set of poses (grasp_pose_set) instead of listing them."""
    path = Path(name_or_path)
    if not path.suffix:
        path = CONFIG_DIR / "robots" / f"{name_or_path}.yaml"
    if path.resolve() in seen:
        raise ValueError(f"{path}: `extends` loops back to itself")
    data = load_yaml(path)
    base = data.pop("extends", None)
    if base is not None:
        data = _merged(_robot_yaml(str(base), (*seen, path.resolve())), data)
    motion = data.get("motion")
    if not seen and isinstance(motion, dict) and isinstance(motion.get("grasp_poses"), str):
        # a named set (grasp_pose_set), read once for the config asked for, not for each config it extends
        data["motion"] = {**motion, "grasp_poses": grasp_pose_set(motion["grasp_poses"])}
    return data


GRASP_POSE_DIR = CONFIG_DIR / "grasp_poses"


def grasp_pose_set(name: str) -> list[Any]:
    """The grasp poses of the named set (robot_configs/grasp_poses/<name>.yaml, under `poses:`): one list for every
    robot config with the same hands, which names it as `motion.grasp_poses: <name>`."""
    path = GRASP_POSE_DIR / f"{name}.yaml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in GRASP_POSE_DIR.glob("*.yaml"))) or "none"
        raise ValueError(f"grasp pose set {name!r} not found in {GRASP_POSE_DIR} (known: {known})")
    poses = load_yaml(path).get("poses")
    if not isinstance(poses, list):
        raise ValueError(f"{path}: `poses` must be a list of grasp poses")
    return poses


def load_robot_config(name_or_path: str | Path = "sim_g1") -> RobotConfig:
    return RobotConfig.model_validate(_robot_yaml(name_or_path))
