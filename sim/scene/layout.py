"""Seeded object layouts on the table, within the arm's reach and without overlaps."""
from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict

from sim.scene.config import SceneConfig


class Layout(BaseModel):
    """Per object: (x, y, yaw) on the table top. Objects left out of `poses` are not in the scene."""

    model_config = ConfigDict(extra="forbid")
    seed: int
    poses: dict[str, tuple[float, float, float]]


def _slots(scene: SceneConfig) -> np.ndarray:
    lay = scene.layout
    step = lay.min_spacing / 3  # a fine grid: trying every slot makes a failure mean "does not fit"
    xs = np.arange(lay.x_range[0], lay.x_range[1] + 1e-9, step)
    ys = np.arange(lay.y_range[0], lay.y_range[1] + 1e-9, step)
    return np.array([(x, y) for x in xs for y in ys])


def _try_place(scene: SceneConfig, names: list[str], rng: np.random.Generator,
               slots: np.ndarray) -> dict[str, tuple[float, float, float]] | None:
    jitter = scene.layout.min_spacing / 6
    poses: dict[str, tuple[float, float, float]] = {}
    order = sorted(names, key=lambda n: (-scene.object(n).footprint_radius, rng.random()))
    for name in order:
        spec = scene.object(name)
        for idx in rng.permutation(len(slots)):
            x, y = slots[idx] + rng.uniform(-jitter, jitter, size=2)
            if any(np.hypot(x - cx, y - cy) < spec.footprint_radius + cr for cx, cy, cr in scene.layout.keep_clear):
                continue
            if all(np.hypot(x - px, y - py) >= max(scene.layout.min_spacing, spec.footprint_radius
                   + scene.object(other).footprint_radius + scene.layout.min_gap)
                   for other, (px, py, _) in poses.items()):
                poses[name] = (float(x), float(y), float(rng.uniform(-np.pi, np.pi)))
                break
        else:
            return None  # greedy placement painted itself into a corner; the caller starts over
    return poses


def sample_layout(scene: SceneConfig, seed: int, names: list[str] | None = None) -> Layout:
    """Objects go to random slots of a grid over the reach region (jittered), biggest first, keeping
    centres `layout.min_spacing` apart and footprints `layout.min_gap` apart; a placement that runs out of room
    starts over (up to `layout.max_tries` times). Deterministic per seed."""
    rng = np.random.default_rng(seed)
    names = names if names is not None else [o.name for o in scene.objects]
    slots = _slots(scene)
    for _ in range(scene.layout.max_tries):
        poses = _try_place(scene, names, rng, slots)
        if poses is not None:
            return Layout(seed=seed, poses={n: poses[n] for n in names})
    raise ValueError(f"layout seed {seed}: objects do not fit after {scene.layout.max_tries} tries; "
                     "enlarge the layout ranges")
