"""Robot limits that hold for every number: random commands (NaN, inf, negative, zero, huge and too-short
durations; NaN, inf, out-of-range and non-numeric targets; single moves and paths, back to back) against both
backends with their real limits from robot_configs/robots/*.yaml. Refused commands raise a LimitViolation with
a LimitCause and move nothing; accepted ones never put out a control target outside the commandable ranges
or a step between consecutive targets faster than the joint velocity limit.

Where the targets are watched: in the sim, every physics step's `data.ctrl` (a step observer); on the G1
path, every LowCmd frame at the publisher seam (the DDS publisher replaced by a loopback that records the
frames and moves the measured joints a fixed fraction toward each, as a lagging servo would report on
rt/lowstate), with a virtual clock so a move's frames are streamed without waiting out its wall time."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from memora_core.robot import load_robot_config, make_robot
from memora_core.robot.limits import PEAK_TO_MEAN_SPEED, LimitCause, LimitViolation
from memora_core.robot.trajectory import JointTrajectory
from sim.scene import Layout

pytestmark = pytest.mark.sim

# Arm joints with wide ranges, waist joints with narrow ones (their range edges are within a short move).
JOINTS = ["right_shoulder_pitch_joint", "right_elbow_joint", "right_wrist_roll_joint", "waist_roll_joint",
          "waist_pitch_joint"]
REACH = 0.4  # rad around the rest posture that valid targets are drawn from (keeps moves, and the test, short)
BAD_NUMBERS = [math.nan, math.inf, -math.inf, 1e300, -1e300]
BAD_DURATIONS = [math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0, -1e-9, 1e300, 61.0, True, "1.0", None]
TARGET_CAUSES = {LimitCause.BAD_TARGET, LimitCause.OUT_OF_RANGE, LimitCause.UNKNOWN_JOINT}
DURATION_CAUSES = {LimitCause.BAD_DURATION, LimitCause.DURATION_TOO_LONG}
SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- the commands ------------------------------------------------------------------------------------
@st.composite
def _target(draw, ranges, margin, rest, clean: bool) -> tuple[dict, bool]:
    """(joint targets, whether all are valid): valid ones near the rest posture or on a range's edge; an
    unclean target has one value outside its range or not a finite number, or an unknown joint."""
    names = draw(st.lists(st.sampled_from(JOINTS), min_size=1, max_size=3, unique=True))
    target = {}
    for name in names:
        lo, hi = ranges[name][0] + margin, ranges[name][1] - margin
        near = st.floats(max(lo, rest[name] - REACH), min(hi, rest[name] + REACH))
        edges = [e for e in (lo, hi) if abs(e - rest[name]) <= 1.5 * REACH]
        target[name] = draw(near | st.sampled_from(edges) if edges else near)
    if clean:
        return target, True
    name = draw(st.sampled_from(names))
    lo, hi = ranges[name]
    outside = [lo + margin - 1e-6, hi - margin + 1e-6, lo, hi + 1.0]
    flaw = draw(st.sampled_from(["outside", "number", "unknown"]))
    if flaw == "unknown":
        target["no_such_joint"] = 0.0
    else:
        target[name] = draw(st.sampled_from(outside if flaw == "outside" else [*BAD_NUMBERS, True, "0.5", None]))
    return target, False


def _duration():
    """A duration as asked: a number, a bad value, or ('rel', f): f times the velocity limit's minimum."""
    return st.one_of(st.sampled_from(BAD_DURATIONS), st.floats(1e-6, 1.0),
                     st.tuples(st.just("rel"), st.sampled_from([1.0, 1.0 + 1e-9, 1.05]) | st.floats(0.5, 2.0)),
                     st.tuples(st.just("rel"), st.sampled_from([1.0, 1.0 + 1e-9, 1.05]) | st.floats(0.5, 2.0)))


@st.composite
def _command(draw, ranges, margin, rest) -> tuple[str, object, object]:
    """('command', (target, valid), duration) or ('path', [(target, valid), ...], duration); two in three
    have only valid targets. Or ('raw', (target, True), duration): a valid target handed straight to the
    backend's `_move` with any duration, as if a caller had bypassed `Robot.command`."""
    clean = draw(st.sampled_from([True, True, False]))
    kind = draw(st.sampled_from(["command", "command", "path", "path", "raw"]))
    if kind == "raw":
        raw = st.sampled_from([0.0, 1e-9, 1e-3, math.nan, math.inf, -math.inf, -1.0]) | st.floats(0.0, 0.5)
        return "raw", draw(_target(ranges, margin, rest, True)), draw(raw)
    if kind == "command":
        return "command", draw(_target(ranges, margin, rest, clean)), draw(_duration())
    n = draw(st.integers(1, 3))
    flawed = -1 if clean else draw(st.integers(0, n - 1))
    return "path", [draw(_target(ranges, margin, rest, i != flawed)) for i in range(n)], draw(_duration())


def _commands(robot):
    ranges, margin = robot.limits.ranges, robot.config.limits.position_margin
    rest = robot.limits.clip({n: robot.config.home.get(n, 0.0) for n in JOINTS})
    return st.lists(_command(ranges, margin, rest), min_size=1, max_size=3)


def _resolve(duration: tuple[str, float], robot, target: dict) -> float:
    """f times the shortest duration the velocity limit allows from the measured joints to `target`."""
    current = robot.joint_positions()
    worst = max(abs(v - current[k]) for k, v in target.items())
    return max(worst / robot.config.limits.max_velocity * PEAK_TO_MEAN_SPEED * duration[1], 1e-6)


def _run(robot, command) -> tuple[object, bool, bool]:
    """Issue one command: (the LimitViolation or the report, inputs valid, duration valid as such)."""
    kind, spec, duration = command
    targets = spec if kind == "path" else [spec]
    valid_targets = all(ok for _, ok in targets)
    plain = [t for t, _ in targets]
    d = duration
    if isinstance(duration, tuple):  # ('rel', f): against the measured joints; any 1 s when a target is bad
        d = _resolve(duration, robot, plain[-1]) if valid_targets else 1.0
    try:
        if kind == "command":
            result = robot.command(plain[0], d)
        elif kind == "path":
            result = robot.command_path(plain, d)
        else:
            result = robot._move(plain[0], d)
    except LimitViolation as exc:
        result = exc
    if kind == "raw":  # too short (even 0) is stretched; what is not a finite number >= 0 is refused
        return result, True, math.isfinite(d) and d >= 0
    good_d = (d is None and kind == "command") or (isinstance(d, float) and 0 < d <= robot.config.limits.max_duration_s)
    return result, valid_targets, good_d


def _check_outcome(result, valid_targets: bool, good_duration: bool, kind: str, duration) -> None:
    event(f"{kind}: " + (f"refused, {result.cause.value}" if isinstance(result, LimitViolation) else "moved"))
    if not valid_targets:
        assert isinstance(result, LimitViolation) and result.cause in TARGET_CAUSES, result
    elif not good_duration:
        assert isinstance(result, LimitViolation) and result.cause in DURATION_CAUSES, result
    elif isinstance(result, LimitViolation):
        # Only a caller's own timing can be too fast for the velocity limit (a path is stretched instead).
        assert result.cause is LimitCause.TOO_FAST and kind == "command", result
        assert not (isinstance(duration, tuple) and duration[1] >= 1.0), result
    else:
        assert result.completed


def _check_frames(frames: list[np.ndarray], before: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                  max_step: float) -> None:
    """Every frame inside [lo, hi]; no joint moves more than max_step from one frame to the next."""
    prev = before
    for k, q in enumerate(frames):
        assert np.all(np.isfinite(q)), (k, q)
        assert np.all(q >= lo - 1e-9) and np.all(q <= hi + 1e-9), (k, q, lo, hi)
        step = float(np.max(np.abs(q - prev)))
        assert step <= max_step * (1 + 1e-9) + 1e-12, f"frame {k}: step {step:.6f} rad > {max_step:.6f}"
        prev = q


# --- the pure profile --------------------------------------------------------------------------------
@SETTINGS
@given(knots=st.lists(st.lists(st.floats(-1.5, 1.5), min_size=2, max_size=2), min_size=2, max_size=5),
       scale=st.sampled_from([0.0, 1e-9, 0.01, 1.0, 3.0]), dt=st.sampled_from([0.002, 0.004, 0.005]),
       v=st.sampled_from([1.0, 2.0]))
def test_the_profile_never_exceeds_the_velocity_limit_and_ends_at_the_goal(knots, scale, dt, v):
    path = JointTrajectory(knots, [scale] * (len(knots) - 1), dt, v)
    frames = [path[k] for k in range(len(path))]
    box = np.array(knots)
    _check_frames(frames, box[0], box.min(axis=0), box.max(axis=0), v * dt)
    assert np.array_equal(frames[-1], box[-1]) and np.array_equal(path[len(path) + 5], box[-1])


@pytest.mark.parametrize("times, cause", [([math.nan], LimitCause.BAD_DURATION), ([math.inf], LimitCause.BAD_DURATION),
                                          ([-1.0], LimitCause.BAD_DURATION), ([1e308, 1e308], LimitCause.BAD_DURATION)])
def test_the_profile_refuses_times_that_are_not_finite_or_negative(times, cause):
    with pytest.raises(LimitViolation) as exc:
        JointTrajectory([[0.0]] * (len(times) + 1), times, 0.004, 1.0)
    assert exc.value.cause is cause
    with pytest.raises(LimitViolation) as exc:
        JointTrajectory([[0.0], [math.nan]], [1.0], 0.004, 1.0)
    assert exc.value.cause is LimitCause.BAD_TARGET


# --- the MuJoCo sim backend ----------------------------------------------------------------------------
class _SimRig:
    """The sim robot and the control targets of JOINTS after every physics step (a step observer)."""

    def __init__(self) -> None:
        self.robot = make_robot("sim_g1", layout=Layout(seed=0, poses={}))
        self.frames: list[np.ndarray] = []
        self.ids = np.array([self.robot.model.actuator(n).id for n in JOINTS])
        self.robot.step_observers.append(lambda r: self.frames.append(r.data.ctrl[self.ids].copy()))

    def __repr__(self) -> str:
        return "sim_robot"


@pytest.fixture(scope="module")
def sim_robot():
    rig = _SimRig()
    yield rig
    rig.robot.close()


def test_sim_refuses_the_issue_s_nan_and_inf_durations_with_a_cause(sim_robot):
    robot, frames = sim_robot.robot, sim_robot.frames
    robot.reset()
    frames.clear()
    for bad in (math.nan, math.inf):
        with pytest.raises(LimitViolation) as exc:
            robot.command({"right_elbow_joint": 0.5}, bad)
        assert exc.value.cause is LimitCause.BAD_DURATION
        with pytest.raises(LimitViolation) as exc:
            robot.command_path([{"right_elbow_joint": 0.5}], bad)
        assert exc.value.cause is LimitCause.BAD_DURATION
    assert frames == []


@SETTINGS
@given(data=st.data())
def test_sim_frames_stay_inside_the_limits_for_any_command(sim_robot, data):
    robot, frames, ids = sim_robot.robot, sim_robot.frames, sim_robot.ids
    robot.reset()
    cfg = robot.config.limits
    lo = np.array([robot.limits.ranges[n][0] + cfg.position_margin for n in JOINTS])
    hi = np.array([robot.limits.ranges[n][1] - cfg.position_margin for n in JOINTS])
    for command in data.draw(_commands(robot)):
        frames.clear()
        before = robot.data.ctrl.copy()
        result, valid_targets, good_d = _run(robot, command)
        _check_outcome(result, valid_targets, good_d, command[0], command[2])
        if isinstance(result, LimitViolation):
            assert frames == [] and np.array_equal(robot.data.ctrl, before)  # nothing moved
            continue
        _check_frames(frames, before[ids], lo, hi, cfg.max_velocity * robot.model.opt.timestep)


# --- the G1 backend, at the LowCmd publisher seam --------------------------------------------------------
@pytest.fixture(scope="module")
def g1_robot():
    pytest.importorskip("unitree_sdk2py")
    from sim.g1 import BODY_JOINTS_29
    from tests.sim.g1_loopback import loopback_g1

    cfg = load_robot_config("unitree_g1").model_copy(update={"dex3": None})  # arm frames only: no hands on the loopback
    robot = loopback_g1(cfg)
    yield robot, [BODY_JOINTS_29.index(n) for n in JOINTS]
    robot.close()


def test_g1_refuses_the_issue_s_nan_and_inf_durations_with_a_cause(g1_robot):
    robot, _ = g1_robot
    robot.restart()
    published = robot.published
    for bad in (math.nan, math.inf):
        with pytest.raises(LimitViolation) as exc:
            robot.command({"right_elbow_joint": robot.joint_positions()["right_elbow_joint"] - 1.0}, bad)
        assert exc.value.cause is LimitCause.BAD_DURATION
    assert robot._pub.frames == [] and robot.published == published


@SETTINGS
@given(data=st.data())
def test_g1_lowcmd_frames_stay_inside_the_limits_for_any_command(g1_robot, data):
    robot, cols = g1_robot
    robot.restart()
    cfg = robot.config.limits
    lo = np.array([robot.limits.ranges[n][0] + cfg.position_margin for n in JOINTS])
    hi = np.array([robot.limits.ranges[n][1] - cfg.position_margin for n in JOINTS])
    previous = np.array([robot._target[n] for n in JOINTS])
    for command in data.draw(_commands(robot)):
        sent = len(robot._pub.frames)
        result, valid_targets, good_d = _run(robot, command)
        _check_outcome(result, valid_targets, good_d, command[0], command[2])
        new = robot._pub.frames[sent:]
        if isinstance(result, LimitViolation):
            assert new == []  # nothing published
            continue
        times = [t for t, _ in robot._pub.frames[max(sent - 1, 0):]]
        assert all(b - a >= robot.period * (1 - 1e-9) for a, b in zip(times, times[1:]))  # paced, no bursts
        _check_frames([q[cols] for _, q in new], previous, lo, hi, cfg.max_velocity * robot.period)
        previous = new[-1][1][cols]


@pytest.mark.parametrize("section, field", [("limits", "max_velocity"), ("limits", "max_duration_s"),
                                            ("motion", "speed"), ("motion", "min_segment_s")])
@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_robot_config_with_a_speed_or_time_that_is_not_finite_is_refused(section, field, bad):
    from pydantic import ValidationError

    from memora_core.robot.robot import RobotConfig

    raw = load_robot_config("unitree_g1").model_dump()
    raw[section][field] = bad
    with pytest.raises(ValidationError) as exc:
        RobotConfig.model_validate(raw)
    assert exc.value.errors()[0]["type"] == "finite_number" and exc.value.errors()[0]["loc"] == (section, field)
