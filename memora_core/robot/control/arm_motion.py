"""Arm motion building blocks: IK waypoints along a straight palm line (each checked for reach and
clearance before anything moves), joint-space lines, and running a checked path with its outcome typed
(arm hit, stopped short)."""
from __future__ import annotations

import logging

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.control.geometry import palm_rotation
from memora_core.robot.limits import EStopActive, LimitViolation
from memora_core.robot.motion.failures import is_robot_link

log = logging.getLogger(__name__)
Posture = dict[str, float]


class ArmMotion:
    def __init__(self, c: ControlContext) -> None:
        self.c = c
        self.robot, self.cfg = c.robot, c.cfg

    def rotation(self) -> np.ndarray:
        """World orientation of the palm frame for the current grasp pose."""
        pose = self.c.state.pose
        return palm_rotation(pose.yaw_deg, pose.pitch_deg, self.robot.arm, pose.roll_deg)

    def cruise_z(self) -> float:
        """Palm height for transit: whatever hangs below the palm (the held object, else the fingers) clears
        the tallest standing object by `carry_margin`."""
        held = self.robot.held_object()
        tops = [2 * o.half_height for o in self.c.resolver.objects() if o.name != held]
        tallest = max(tops, default=0.0)
        # A pitched hand's fingers reach as far below the palm as its lowest palm height over the table.
        below = max(self.cfg.motion.hand_below, self.c.state.pose.min_palm_height)
        if held:
            pos, rot = self.robot.object_pose(held)
            below = max(below, float(self.robot.hand_position()[2]
                                     - (pos[2] - self.c.resolver.require(held).half_up(rot))))
        return self.c.table_z + tallest + self.cfg.motion.carry_margin + below

    def cruise_levels(self) -> list[float]:
        """Cruise height, then two lower ones for far targets the arm cannot reach that high (the
        clearance check decides whether a lower one is still clear)."""
        z = self.cruise_z()
        return [z, z - 0.05, z - 0.10]

    @property
    def transit_margin(self) -> float:
        """The roomier clearance the level carry keeps, never below the default margin."""
        m = self.cfg.motion
        return max(m.transit_clearance_margin, m.clearance_margin)

    def target_rotation(self) -> tuple[np.ndarray, float]:
        """(palm orientation, IK weight on it) for the next move: the grasp pose's, or while holding, the
        orientation the hand had at the grasp (so the object hanging below does not swing into a neighbour), or
        while retracting after a release, the one it let go with."""
        s = self.c.state
        rot, cost = self.rotation(), s.pose.orientation_cost
        if s.let_go_rot is not None and self.robot.held_object() is None:
            # Rising off what it just let go of, the hand keeps the orientation it let go with: turning the open
            # fingers back to the grasp's orientation there drags what lies between them.
            return s.let_go_rot, cost
        if s.held_rot is not None and self.robot.held_object() is not None:
            held_cost = self.cfg.motion.held_orientation_cost if s.held_cost is None else s.held_cost
            rot, cost = s.held_rot, max(cost if s.held_cost is None else 0.0, held_cost)
        return rot, cost

    def plan_line(self, point: np.ndarray, ignore: set[str], what: str,
                  start: Posture | None = None, start_xyz: np.ndarray | None = None,
                  touch_at_end: set[str] = frozenset(), bisect: bool = True,
                  margin: float | None = None, fresh: bool = False, at_rest: bool = False) -> list[Posture]:
        """IK waypoints along the straight palm line to `point`, each checked for reach and clearance
        (`touch_at_end`: objects only the last waypoint may touch; `bisect`: add waypoints where neighbouring
        postures differ much — off only for the rough move out of the tuck; `fresh`: its first point may also
        be solved from the rest posture; `at_rest`: the move leaves or goes to the configured rest posture,
        which lies against the robot's own body beside the hip: an empty arm's contacts with the body are
        not counted there; elsewhere they are, since an arm pressed on the torso runs off its checked path into
        the objects on the table). Raises PrimitiveFailure before anything moves."""
        point = np.asarray(point, float)
        try:
            self.robot.limits.check_workspace(point)
        except LimitViolation as exc:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"{what}: {exc}", cause=FailureCause.OUT_OF_WORKSPACE,
                                   what=what, point=point) from exc
        hand = self.robot.hand_position() if start_xyz is None else start_xyz
        n = max(1, int(np.ceil(np.linalg.norm(point - hand) / self.cfg.motion.path_step)))
        seed, path = start, []
        rot, cost = self.target_rotation()
        prev = hand
        for i in range(1, n + 1):
            p = hand + (point - hand) * i / n
            depth = 0 if bisect else self.cfg.motion.max_bisections
            segment = (self.solve_fresh(p, rot, cost, what) if fresh and seed is None and i == 1 else
                       self.solve_segment(prev, p, seed, rot, cost, what, final=i == n, depth=depth))
            for q, sub in segment:
                hits = self.robot.clearance(q, ignore | (set(touch_at_end) if i == n and sub is p else set()), margin)
                if at_rest:
                    hits = self.off_body(hits)
                if hits:
                    raise PrimitiveFailure.blocked(what, sub, hits, self.c.resolver.movable(hits), arm_posture=q)
                path.append(q)
                seed = q
            prev = p
        return path

    def off_body(self, hits: list[str]) -> list[str]:
        """`hits` without the robot's own links, for an empty hand's move to or from the rest posture (`at_rest`);
        a held object pressed into the body still counts."""
        if self.robot.held_object() is not None:
            return hits
        return [h for h in hits if not is_robot_link(h)]

    def solve_fresh(self, point: np.ndarray, rot: np.ndarray, cost: float,
                    what: str) -> list[tuple[Posture, np.ndarray]]:
        """A posture for `point` alone: solved from the current one, else from the rest posture (chained
        solves can wind the arm up so that the current posture is a seed from which a far point does not
        converge)."""
        for seed in (None, self.rest_posture(self.robot.arm)):
            q, err = self.robot.solve_ik(point, seed=seed, rotation=rot, orientation_cost=cost)
            if err <= self.cfg.ik.tolerance:
                return [(q, point)]
        raise PrimitiveFailure.no_ik(what, point, err, self.cfg.ik.tolerance)

    def solve_segment(self, start: np.ndarray, end: np.ndarray, seed: Posture | None,
                      rot: np.ndarray, cost: float, what: str, final: bool,
                      depth: int = 0) -> list[tuple[Posture, np.ndarray]]:
        """IK postures along the palm segment start→end, ending at `end`. A segment whose two end postures
        differ by more than `motion.max_joint_jump` (joint interpolation would leave the palm line) is halved,
        at most `motion.max_bisections` times."""
        q, err = self.robot.solve_ik(end, seed=seed, rotation=rot, orientation_cost=cost)
        # Intermediate points may cut a corner a little; the end point must be reached.
        missed = err > self.cfg.ik.tolerance * (1 if final else 2)
        if missed and depth >= self.cfg.motion.max_bisections:
            raise PrimitiveFailure.no_ik(what, end, err, self.cfg.ik.tolerance)
        base = seed if seed is not None else self.robot.joint_positions()
        jump = max((abs(v - base[k]) for k, v in q.items() if k in base), default=0.0)
        if not missed and (jump <= self.cfg.motion.max_joint_jump or depth >= self.cfg.motion.max_bisections):
            return [(q, end)]
        mid = (start + end) / 2
        first = self.solve_segment(start, mid, seed, rot, cost, what, False, depth + 1)
        return first + self.solve_segment(mid, end, first[-1][0], rot, cost, what, final, depth + 1)

    def go(self, point: np.ndarray, ignore: set[str] | None = None, what: str = "waypoint",
           exact: bool = True, bisect: bool = True, margin: float | None = None) -> None:
        """The palm straight to `point`. When only the robot's own body is in the line's way (the IK postures
        along it press a link into the torso or a leg), the motion library plans the move instead, with the
        same hand orientation: its goal postures are chosen clear of the body. Raises the straight line's
        refusal when that is refused too."""
        point = np.asarray(point, float)
        ignore = set(ignore or set())
        try:
            path = self.plan_line(point, ignore, what, bisect=bisect, margin=margin)
        except PrimitiveFailure as f:
            if not f.self_only or not self.c.guarded.settings.guarded_approach:
                raise
            self.c.planned.instead_of(f, lambda: self.c.planned.move_to(point, ignore, f"planned {what}",
                                                                        keep_hold=True, exact=exact))
            log.info("%s: %s; planned round the robot's body instead", what, f.detail)
            return
        self.follow(path, point, ignore, what, exact)

    def follow(self, path: list[Posture], point: np.ndarray, ignore: set[str], what: str,
               exact: bool = True, duration: float | None = None) -> None:
        """Run a checked joint path whose palm ends at `point`; fail when the arm hit something or stopped
        short of it (`exact=False`: a free-space move whose end point only needs to be roughly reached).
        `duration`: the path's own timing (default: the palm distance at `motion.speed`)."""
        if duration is None:
            dist = float(np.linalg.norm(point - self.robot.hand_position()))
            duration = max(self.cfg.motion.min_segment_s, dist / self.cfg.motion.speed)
        report = self.robot.command_path(path, duration)
        if report.stopped_by_estop:
            raise EStopActive("e-stop engaged during motion")
        hits = set(report.collisions) - ignore
        if hits:
            raise PrimitiveFailure.arm_hit(what, sorted(hits), self.c.resolver.movable(sorted(hits)))
        gap = float(np.linalg.norm(self.robot.hand_position() - point))
        if gap > 3 * self.cfg.ik.tolerance:
            if not exact:
                log.debug("%s: palm %.1f cm short (nothing hit); continuing from there", what, gap * 100)
                return
            raise PrimitiveFailure.short_of(what, gap)  # IK said yes but the arm did not get there

    def rest_posture(self, arm: str) -> Posture:
        """`arm`'s tuck joints with the torso upright (the tuck; and a seed for IK away from a wound-up posture)."""
        rest = {k: v for k, v in self.cfg.home.items() if k.startswith(arm)}
        joints = self.robot.joint_positions()
        rest.update({j: 0.0 for j in joints if j.startswith("waist")})
        rest.update({j: 0.0 for j in joints if j.startswith(arm) and j not in rest and "hand" not in j})
        return rest

    def joint_line(self, goal: Posture, ignore: set[str], what: str,
                   end_ignore: set[str] | None = None, at_rest: bool = False) -> list[Posture]:
        """Joint-space waypoints from the commanded posture to `goal`, each checked for clearance (the last one
        with `end_ignore`, when given). `at_rest`: as in `plan_line`."""
        return self.joint_line_from(self.robot.joint_positions(), goal, ignore, what, end_ignore, at_rest)

    def joint_line_from(self, now: Posture, goal: Posture, ignore: set[str], what: str,
                        end_ignore: set[str] | None = None, at_rest: bool = False) -> list[Posture]:
        # From the measured posture moved into the commandable ranges: a joint the last move pressed against its
        # stop would put the line's first waypoints out of range.
        now = self.robot.limits.clip({k: now[k] for k in goal})
        span = max(abs(v - now[k]) for k, v in goal.items())
        n = max(1, int(np.ceil(span / self.cfg.motion.joint_step)))
        path = []
        for i in range(1, n + 1):
            q = {k: now[k] + (v - now[k]) * i / n for k, v in goal.items()}
            hits = self.robot.clearance(q, ignore if i < n or end_ignore is None else end_ignore)
            if at_rest:
                hits = self.off_body(hits)
            if hits:
                raise PrimitiveFailure.blocked(what, self.robot.hand_position(), hits, self.c.resolver.movable(hits),
                                               posture=True)
            path.append(q)
        return path
