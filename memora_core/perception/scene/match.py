"""Perceived objects to known entities: one-to-one assignment (Hungarian) on a cost of shape, size and colour,
gated so that something that fits no entity well stays unnamed. Size and shape keep a look-alike apart when
the colour agrees (a yellow can is not a yellow bowl); colour keeps apart look-alikes of one size."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from memora_core.perception.scene.types import EntityDescription, PerceivedObject, Shape

# Colour words that lighting and shading move between: a near miss costs half a miss.
# Brown is a dark orange or red; grey a dull silver or a light black. (Brown and yellow are not near: a
# yellow box must not pass for a brown one of the same size.)
NEAR_COLOURS = {frozenset(p) for p in (("brown", "orange"), ("brown", "red"), ("grey", "silver"),
                                       ("grey", "black"))}


@dataclass(frozen=True)
class MatchSettings:
    shape_cost: float = 1.0     # a different shape
    colour_cost: float = 1.0    # a different colour word (half for a near one)
    # Catalogue sizes are nominal (a container's wall, a label's thickness): a dimension within `size_tolerance`
    # of it (relative, of at least `min_size_m`) costs nothing, each further `size_tolerance` costs 1.
    size_tolerance: float = 0.15
    min_size_m: float = 0.03
    max_cost: float = 0.9       # above this an object is left unmatched: a wrong colour alone is too much


def colour_cost(seen: str | None, known: str) -> float:
    if seen is None:
        return 0.5
    if seen == known:
        return 0.0
    return 0.5 if frozenset((seen, known)) in NEAR_COLOURS else 1.0


def size_cost(o: PerceivedObject, e: EntityDescription, s: MatchSettings) -> float:
    cost = 0.0
    for seen, known in zip(o.size, (*e.footprint, e.height)):
        # A partly seen object is at least as big as it looks: only a size above the entity's counts.
        err = max(0.0, seen - known) if o.partial else abs(seen - known)
        cost += max(0.0, err / max(known, s.min_size_m) - s.size_tolerance) / s.size_tolerance
    return cost


def pair_cost(o: PerceivedObject, e: EntityDescription, s: MatchSettings) -> float:
    shape = 0.0 if o.partial and (o.shape is not e.shape) and Shape.CONTAINER not in (o.shape, e.shape) \
        else s.shape_cost * (o.shape is not e.shape)  # a partly seen box may look round
    return shape + s.colour_cost * colour_cost(o.colour, e.colour) + size_cost(o, e, s)


def match(objects: list[PerceivedObject], entities: list[EntityDescription], s: MatchSettings | None = None) -> None:
    """Names each object in place (`name`, `match_cost`); objects that fit nothing get name None."""
    s = s or MatchSettings()
    for o in objects:
        o.name, o.match_cost = None, None
    if not objects or not entities:
        return
    cost = np.array([[pair_cost(o, e, s) for e in entities] for o in objects])
    rows, cols = linear_sum_assignment(cost)
    for r, c in zip(rows, cols):
        objects[r].match_cost = float(cost[r, c])
        if cost[r, c] <= s.max_cost:
            objects[r].name = entities[c].name
