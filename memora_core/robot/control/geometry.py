"""Table-space geometry as plain numpy (no MuJoCo, no robot): hand orientations, footprint gaps, free table
spots (near a point, set aside from the work, for a hand-off, for a pour) and top-grasp points.

Footprints are (table xy, radius) pairs; zones are ((x_lo, y_lo), (x_hi, y_hi)) boxes; `m` is the robot's
`MotionConfig` (the distances and counts the searches use)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from memora_core.robot.robot import MotionConfig

Footprints = list[tuple[np.ndarray, float]]


def palm_rotation(yaw_deg: float, pitch_deg: float, arm: str, roll_deg: float = 0.0) -> np.ndarray:
    """World orientation of the palm frame: turned about z by `yaw_deg` toward the midline (the right hand
    turns left, the left hand right), then fingers pitched down by `pitch_deg` about the hand's y, then rolled
    `roll_deg` about the fingers (x) so that the palm's inner side turns down (90: palm facing the table)."""
    t = np.radians(pitch_deg)
    c, s = np.cos(t), np.sin(t)
    pitch = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    a = np.radians(yaw_deg) * (1.0 if arm == "right" else -1.0)
    ca, sa = np.cos(a), np.sin(a)
    yaw = np.array([[ca, -sa, 0.0], [sa, ca, 0.0], [0.0, 0.0, 1.0]])
    if not roll_deg:
        return yaw @ pitch
    r = np.radians(roll_deg) * (-1.0 if arm == "right" else 1.0)  # the inner side: +y on the right, -y on the left
    cr, sr = np.cos(r), np.sin(r)
    roll = np.array([[1.0, 0.0, 0.0], [0.0, cr, -sr], [0.0, sr, cr]])
    return yaw @ pitch @ roll


def rotation_onto(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The smallest rotation (3x3) turning direction `a` onto direction `b` (both non-zero)."""
    a, b = np.asarray(a, float) / np.linalg.norm(a), np.asarray(b, float) / np.linalg.norm(b)
    axis, cos = np.cross(a, b), float(np.dot(a, b))
    sin = float(np.linalg.norm(axis))
    if sin < 1e-9:
        if cos > 0:
            return np.eye(3)
        # opposite: a half turn about any axis perpendicular to a
        perp = np.cross(a, [1.0, 0.0, 0.0] if abs(a[0]) < 0.9 else [0.0, 1.0, 0.0])
        perp /= np.linalg.norm(perp)
        return 2.0 * np.outer(perp, perp) - np.eye(3)
    k = axis / sin
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + sin * kx + (1.0 - cos) * kx @ kx


def edge_gap(c: np.ndarray, radius: float, footprints: Footprints) -> float:
    """Free gap, edge to edge, between a footprint of `radius` at `c` and the nearest of `footprints`
    (1 m when there are none)."""
    return min((float(np.linalg.norm(c - p)) - r - radius for p, r in footprints), default=1.0)


def grid(zone: Sequence, step: float) -> list[np.ndarray]:
    """Table points `step` apart over the (x, y) box `zone`."""
    lo, hi = np.array(zone[0]), np.array(zone[1])
    return [np.array([x, y]) for x in np.arange(lo[0], hi[0] + 1e-9, step)
            for y in np.arange(lo[1], hi[1] + 1e-9, step)]


def table_spots(near: np.ndarray, radius: float, footprints: Footprints, m: MotionConfig,
                min_dist: float = 0.0, every: bool = False) -> list[np.ndarray]:
    """Free table points (every footprint at least `beside_gap` away, edge to edge) within `table_spot_radius`
    of `near`, at least `min_dist` from it (and, when `min_dist` > 0, at most `beside_reach` beyond it: 'next
    to' means adjacent), inside `table_zone`; nearest first, at most `table_spot_tries` (`every`: all of
    them)."""
    near = np.asarray(near, float)
    r = np.arange(-m.table_spot_radius, m.table_spot_radius + 1e-9, m.table_spot_step)
    cands = [near + np.array([dx, dy]) for dx in r for dy in r]
    if min_dist > 0:  # beside: also the ring itself, so the closest spot is really next to it
        cands += [near + min_dist * np.array([np.cos(a), np.sin(a)])
                  for a in np.linspace(0, 2 * np.pi, 16, endpoint=False)]
    lo, hi = np.array(m.table_zone[0]), np.array(m.table_zone[1])
    far = min_dist + m.beside_reach if min_dist > 0 else np.inf
    free = [c for c in cands if min_dist - 1e-9 <= np.linalg.norm(c - near) <= far
            and np.all(c >= lo) and np.all(c <= hi)
            and all(np.linalg.norm(c - p) >= rad + radius + m.beside_gap for p, rad in footprints)]
    free.sort(key=lambda c: (round(float(np.linalg.norm(c - near)), 4), float(c[0]), float(c[1])))
    return free if every else free[: m.table_spot_tries]


def segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Distance from point `p` to the segment a-b (any dimension)."""
    p, a, b = (np.asarray(v, float) for v in (p, a, b))
    ab = b - a
    t = 0.0 if not ab.any() else float(np.clip(np.dot(p - a, ab) / np.dot(ab, ab), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


def side_arm(y: float, m: MotionConfig) -> str:
    """The arm on the side of table position `y` (`left_arm_min_y`): the one tried first there."""
    return "left" if y >= m.left_arm_min_y else "right"


def reach_corridors(work: list[np.ndarray], m: MotionConfig) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each work point, the table-plane segment its arm's forearm covers while the hand is there: from the
    base of the arm on the point's side (`arm_bases`, `side_arm`) to the point."""
    out = []
    for w in work:
        base = m.arm_bases.get(side_arm(float(w[1]), m))
        if base is not None:
            out.append((np.asarray(base, float), np.asarray(w[:2], float)))
    return out


def aside_spots(radius: float, footprints: Footprints, work: list[np.ndarray], m: MotionConfig,
                origin: np.ndarray | None = None, keep_clear: Sequence[np.ndarray] = (),
                distance: float | None = None, corridors: bool = True,
                zone: Sequence | None = None,
                accept: Callable[[np.ndarray], bool] | None = None) -> list[np.ndarray]:
    """Free spots in `zone` (default `table_zone`) to set an object aside on: at least `distance` (default `aside_distance`) from
    every work point, not in front of the main one (between the robot and it) and (`corridors`) not on the
    forearm's way to any of them (`reach_corridors`, `arm_corridor` wide), at least `aside_min_move` from
    `origin` (where the object stood), off `keep_clear` points, and that `accept` (when given) accepts; roomiest
    first, then nearest the middle of `table_zone`."""
    distance = m.aside_distance if distance is None else distance
    ways = reach_corridors(work, m) if corridors else []
    zone = m.table_zone if zone is None else zone
    middle = (np.array(m.table_zone[0]) + np.array(m.table_zone[1])) / 2
    scored = []
    for c in grid(zone, m.table_spot_step):
        if any(np.linalg.norm(c - w) < distance for w in work):
            continue
        if c[0] < work[0][0] and abs(c[1] - work[0][1]) < distance:  # in front of the main work point
            continue
        if any(segment_distance(c, a, b) < radius + m.arm_corridor for a, b in ways):
            continue  # the arm reaching for the work would find it in the way again
        if origin is not None and np.linalg.norm(c - origin[:2]) < m.aside_min_move:
            continue  # hardly moved: it would stand in the way as before
        if any(np.linalg.norm(c - k) < radius + m.aside_gap for k in keep_clear):
            continue
        gap = edge_gap(c, radius, footprints)
        if gap >= m.aside_gap and (accept is None or accept(c)):
            scored.append((round(min(gap, 2 * m.aside_gap), 2), float(np.linalg.norm(c - middle)), c))
    scored.sort(key=lambda t: (-t[0], t[1]))
    return [c for _, _, c in scored[: m.table_spot_tries]]


def corridor_clear(spot: np.ndarray, base: np.ndarray, radius: float, footprints: Footprints, m: MotionConfig) -> bool:
    """Whether the forearm reaching from `base` to an object of `radius` at `spot` passes every footprint with
    `arm_corridor` to spare (the object's own footprint aside)."""
    return all(segment_distance(c, base, spot) - r >= m.arm_corridor
               for c, r in footprints if np.linalg.norm(np.asarray(c[:2]) - spot) > radius + r)


def handoff_spots(radius: float, footprints: Footprints, m: MotionConfig,
                  prefer: Callable[[np.ndarray], bool] | None = None) -> list[np.ndarray]:
    """Free spots (`handoff_gap` clear of every footprint) where one arm can set an object down for the other:
    the roomiest in `handoff_zone` (both arms reach it) first, then the free spots of `table_zone` nearest the
    hand-off zone, those `prefer` holds for (the taking arm reaches them) before the rest; at most
    `handoff_tries`."""
    def gap(c: np.ndarray) -> float:
        return edge_gap(c, radius, footprints)

    step = m.table_spot_step / 2
    inner = sorted((c for c in grid(m.handoff_zone, step) if gap(c) >= m.handoff_gap), key=lambda c: -gap(c))
    centre = (np.array(m.handoff_zone[0]) + np.array(m.handoff_zone[1])) / 2
    outer = sorted((c for c in grid(m.table_zone, step) if gap(c) >= m.handoff_gap),
                   key=lambda c: (prefer is not None and not prefer(c), float(np.linalg.norm(c - centre))))
    return (inner[:1] + outer)[: m.handoff_tries]


def pour_spots(cup_radius: float, bottle_radius: float, footprints: Footprints, work_xy: np.ndarray,
               m: MotionConfig, away_from: np.ndarray | None = None,
               bottle_fits: Callable[[np.ndarray], bool] | None = None) -> list[np.ndarray]:
    """Free spots for a cup (`aside_gap` around it) with room on its left or right for the bottle held over
    its rim, nearest `work_xy` first; at most `table_spot_tries`. A side counts only where `bottle_fits` (the
    bottle's table point there; say, the hand that holds it stays in the workspace); a spot within
    `aside_min_move` of `away_from` (where the cup stands now) is no move at all and is left out."""
    side = np.array([0.0, cup_radius + bottle_radius + 0.01])

    def room(c: np.ndarray) -> bool:
        return any(edge_gap(b, bottle_radius, footprints) >= m.aside_gap and (bottle_fits is None or bottle_fits(b))
                   for b in (c + side, c - side))

    spots = [c for c in grid(m.table_zone, m.table_spot_step)
             if edge_gap(c, cup_radius, footprints) >= m.aside_gap and room(c)
             and (away_from is None or np.linalg.norm(c - np.asarray(away_from)[:2]) >= m.aside_min_move)]
    spots.sort(key=lambda c: float(np.linalg.norm(c - np.asarray(work_xy)[:2])))
    return spots[: m.table_spot_tries]


def grasp_points(top: np.ndarray, clearance: float, grasp_radius: float,
                 axes: list[tuple[np.ndarray, float]] | None, m: MotionConfig) -> list[np.ndarray]:
    """Palm points a top grasp may close at: `clearance` above the top's centre, then, for a long object
    (`axes`: its horizontal (axis, half length) pairs), above points along its long side(s),
    `grasp_end_margin` inside its end and within the grasp radius."""
    reach = np.sqrt(max(0.0, (grasp_radius + clearance) ** 2 - clearance ** 2)) * 0.9
    return points_along(top + np.array([0.0, 0.0, clearance]), axes, reach, m)


def points_along(centre: np.ndarray, axes: list[tuple[np.ndarray, float]] | None, longest: float,
                 m: MotionConfig) -> list[np.ndarray]:
    """`centre`, then for a long object (`axes`: its horizontal (axis, half length) pairs) the points either way
    along each axis `grasp_end_margin` inside its end, at most `longest` from the centre (an axis too short for
    `grasp_min_offset` adds none)."""
    points = [centre]
    for axis, half in axes or []:
        off = min(half - m.grasp_end_margin, longest)
        if off >= m.grasp_min_offset:
            d = axis * np.array([1.0, 1.0, 0.0])
            d /= max(np.linalg.norm(d), 1e-9)
            points += [centre + off * d, centre - off * d]
    return points


def rim_points(centre: Sequence[float], top_z: float, radius: float,
               n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """`n` places evenly round a round container's rim (its wall `radius` from `centre`, its top at `top_z`), the
    first on the side toward the robot (-x): each as (the point on the wall's top, the horizontal unit direction
    from there to the centre)."""
    out = []
    for k in range(n):
        a = np.pi + 2.0 * np.pi * k / n
        out_dir = np.array([np.cos(a), np.sin(a), 0.0])
        point = np.array([centre[0], centre[1], top_z]) + radius * out_dir
        out.append((point, -out_dir))
    return out


def aligned_yaws(axis: np.ndarray, extra_yaw_deg: float, arm: str, yaw_range: Sequence[float]) -> list[float]:
    """Hand yaws (toward the midline, mirrored for the left arm) that put the fingers along `axis`, either
    end, turned `extra_yaw_deg` further, within `yaw_range`."""
    theta = float(np.degrees(np.arctan2(axis[1], axis[0])))
    lo, hi = yaw_range
    out = []
    for end in (0.0, 180.0):
        world = (theta + end + extra_yaw_deg + 180.0) % 360.0 - 180.0
        yaw = world * (1.0 if arm == "right" else -1.0)
        if lo <= yaw <= hi:
            out.append(yaw)
    return out


def palm_inner_direction(yaw_deg: float, pitch_deg: float, arm: str, roll_deg: float = 0.0) -> np.ndarray:
    """World direction from the palm toward its inner side (where the thumb closes) at this hand pose."""
    inner = 1.0 if arm == "right" else -1.0  # the palm's inner side is the hand frame's +y on the right
    return palm_rotation(yaw_deg, pitch_deg, arm, roll_deg) @ np.array([0.0, inner, 0.0])


def half_width(radius: float, axes: list[tuple[np.ndarray, float]], direction: np.ndarray) -> float:
    """How far an object reaches from its centre along the horizontal part of `direction`: its footprint
    `radius` when round (`axes` empty), else the support of its box given by its horizontal (axis, half size)
    pairs (SceneObject.horizontal_axes)."""
    d = np.array([direction[0], direction[1], 0.0])
    n = float(np.linalg.norm(d))
    if n < 1e-9:
        return 0.0
    if not axes:
        return float(radius)
    d /= n
    return float(sum(abs(float(d @ np.asarray(a, float))) * float(h) for a, h in axes))


def lowest_reach(box: tuple[Sequence[float], Sequence[float]], yaw_deg: float, pitch_deg: float,
                 arm: str, roll_deg: float = 0.0) -> float:
    """How far below the palm centre (m, world z, >= 0 when below) a hand-frame box (low, high corners) reaches
    at this hand pose: e.g. the thumb's sweep (hand.thumb_sweep) level (its thickness) or fingers down (its
    length)."""
    rot = palm_rotation(yaw_deg, pitch_deg, arm, roll_deg)
    (x0, y0, z0), (x1, y1, z1) = box
    corners = np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)], float)
    return float(-min((corners @ rot.T)[:, 2]))


def finger_grasp_point(top: np.ndarray, arm: str, yaw_deg: float, pitch_deg: float, offset: Sequence[float],
                       half_up: float, half_wide: float = 0.0, roll_deg: float = 0.0) -> np.ndarray:
    """Palm point of a finger grasp. `offset` = (along, across, down): the grip point, `down` below the centre
    of the object's top (at most to its middle), lies `along` the fingers and `across` + `half_wide` toward the
    palm's inner side from the palm centre, in the hand's frame at this pose (palm_rotation: level with fingers
    forward at pitch 0, fingers straight down at 90), so the object sits between thumb and fingers. `across`
    is the palm centre's distance to the object's near face, `half_wide` the object's half width in that
    direction (half_width): a wide object keeps the palm as close to its side as a thin one."""
    along, across, down = (float(v) for v in offset)
    grip = np.asarray(top, float) - np.array([0.0, 0.0, min(down, half_up)])
    rot = palm_rotation(yaw_deg, pitch_deg, arm, roll_deg)
    inner = 1.0 if arm == "right" else -1.0  # the palm's inner side is the hand frame's +y on the right
    return grip - rot @ np.array([along, inner * (across + half_wide), 0.0])


def _outline_points(outline: Sequence[Sequence[float]], step: float = 0.002) -> np.ndarray:
    """Points every `step` along a closed outline's edges."""
    pts = np.asarray(outline, float)
    out = []
    for a, b in zip(pts, np.roll(pts, -1, axis=0)):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / step)))
        out += [a + (b - a) * k / n for k in range(n)]
    return np.array(out)


def outline_clear(outline: Sequence[Sequence[float]], centre: Sequence[float], radius: float,
                  axes: Sequence[tuple[Sequence[float], float]], margin: float) -> bool:
    """Whether a digit's outline (hand frame, x, y) keeps `margin` from an object's footprint in the same frame:
    a disc of `radius` at `centre` when `axes` is empty, else a box given by its (unit axis (x, y), half size)
    pairs."""
    rel = _outline_points(outline) - np.asarray(centre, float)[:2]
    if not axes:
        return bool(np.min(np.linalg.norm(rel, axis=1)) >= radius + margin)
    inside = np.ones(len(rel), bool)
    for a, h in axes:
        inside &= np.abs(rel @ np.asarray(a, float)[:2]) < float(h) + margin
    return not bool(inside.any())


def hand_frame_footprint(arm: str, yaw_deg: float, pitch_deg: float, offset: Sequence[float], half_wide: float,
                         axes: list[tuple[np.ndarray, float]],
                         roll_deg: float = 0.0) -> tuple[np.ndarray, list[tuple[np.ndarray, float]]]:
    """Where a finger grasp (finger_grasp_point) puts the object in the hand's frame as the right hand sees it
    (the left mirrored): its centre (along, across + half_wide) and its box axes (x, y), unit, with half sizes."""
    rot = palm_rotation(yaw_deg, pitch_deg, arm, roll_deg)
    inner = 1.0 if arm == "right" else -1.0
    out = []
    for a, h in axes:
        v = rot.T @ np.asarray(a, float)
        xy = np.array([v[0], inner * v[1]])
        n = float(np.linalg.norm(xy))
        if n > 1e-6:
            out.append((xy / n, float(h)))
    return np.array([float(offset[0]), float(offset[1]) + half_wide]), out


def preshape(outlines: tuple[dict[float, Sequence], dict[float, Sequence]], shapes: Sequence[tuple[float, float]],
             centre: Sequence[float], radius: float, axes: Sequence[tuple[Sequence[float], float]],
             margin: float) -> tuple[float, float]:
    """The first (thumb, fingers) pre-shape of `shapes` (most closed first) whose thumb and finger outlines
    (`outlines`: per fraction) keep `margin` from the object's footprint at the grasp; fully open when none."""
    thumbs, fingers = outlines
    for t, f in shapes:
        if (t in thumbs and f in fingers and outline_clear(thumbs[t], centre, radius, axes, margin)
                and outline_clear(fingers[f], centre, radius, axes, margin)):
            return t, f
    return 0.0, 0.0


def angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    """Degrees between unit vectors `a` and `b` (how far an object's axis leans from where it pointed)."""
    return float(np.degrees(np.arccos(np.clip(float(np.dot(a, b)), -1.0, 1.0))))
