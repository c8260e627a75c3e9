"""Perceived objects to known entities: one-to-one assignment (Hungarian) on a cost of shape, size and colour.

Leaving an object unnamed has a price too (`max_cost`, one dummy entity per object), so the assignment names
the set of objects that explains the entities best: an object is named only where its cost is below that
price, and two blobs that could both be an entity compete on how well each explains it. A partly seen blob
(cut by the image border, or hidden behind something nearer) is not held to the entity's full size, but it
pays for the part of the entity it leaves unexplained: a fragment of one colour does not take an entity's
name from the whole object of that colour next to it. Size and shape keep a look-alike apart when the
colour agrees (a yellow can is not a yellow bowl); colour keeps apart look-alikes of one size."""
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
    # A partly seen blob pays this times the fraction of the entity's box it leaves unexplained (each
    # dimension seen up to its tolerance counts as explained): a fragment of a tenth of a can costs ~0.45,
    # a can half hidden ~0.2, so the whole can's blob wins the name when both are seen.
    partial_unexplained_cost: float = 0.5
    max_cost: float = 0.9       # the price of leaving an object unnamed: a wrong colour alone is too much


def colour_cost(seen: str | None, known: str) -> float:
    if seen is None:
        return 0.5
    if seen == known:
        return 0.0
    return 0.5 if frozenset((seen, known)) in NEAR_COLOURS else 1.0


def known_size(o: PerceivedObject, e: EntityDescription) -> tuple[float, float, float]:
    """The entity's (long side, short side, height) to hold the blob's size against. A partly seen box that
    looks round (its shape differs) has a footprint measured across its visible faces, anywhere between the
    box's short side and its diagonal: only its long side bounds it."""
    long_side, short_side = e.footprint
    if o.partial and o.shape is not e.shape:
        short_side = long_side
    return long_side, short_side, e.height


def unexplained_fraction(o: PerceivedObject, e: EntityDescription, s: MatchSettings) -> float:
    """The fraction of the entity's box (footprint x height) that the blob's size does not account for."""
    explained = 1.0
    for seen, known in zip(o.size, known_size(o, e)):
        tol = s.size_tolerance * max(known, s.min_size_m)
        explained *= min(1.0, (seen + tol) / max(known, 1e-6))
    return 1.0 - explained


def size_cost(o: PerceivedObject, e: EntityDescription, s: MatchSettings) -> float:
    cost = 0.0
    for seen, known in zip(o.size, known_size(o, e)):
        # A partly seen object is at least as big as it looks: a size above the entity's counts in full,
        # what it falls short of only through `unexplained_fraction`.
        err = max(0.0, seen - known) if o.partial else abs(seen - known)
        cost += max(0.0, err / max(known, s.min_size_m) - s.size_tolerance) / s.size_tolerance
    if o.partial:
        cost += s.partial_unexplained_cost * unexplained_fraction(o, e, s)
    return cost


def pair_cost(o: PerceivedObject, e: EntityDescription, s: MatchSettings) -> float:
    shape = 0.0 if o.partial and (o.shape is not e.shape) and Shape.CONTAINER not in (o.shape, e.shape) \
        else s.shape_cost * (o.shape is not e.shape)  # a partly seen box may look round
    return shape + s.colour_cost * colour_cost(o.colour, e.colour) + size_cost(o, e, s)


def match(objects: list[PerceivedObject], entities: list[EntityDescription], s: MatchSettings | None = None) -> None:
    """Names each object in place (`name`; `match_cost`: the cost of the entity it was named as, else of the
    best-fitting entity); objects that fit nothing, or that another object explains better, get name None."""
    s = s or MatchSettings()
    for o in objects:
        o.name, o.match_cost, o.explained = None, None, None
    if not objects or not entities:
        return
    cost = np.array([[pair_cost(o, e, s) for e in entities] for o in objects])
    n, m = cost.shape
    # Columns m.. are "unnamed", one per object at `max_cost`; a pair above it is never worth taking.
    big = s.max_cost * (n + 1) + 1.0
    full = np.full((n, m + n), big)
    full[:, :m] = np.where(cost <= s.max_cost, cost, big)
    full[np.arange(n), m + np.arange(n)] = s.max_cost
    rows, cols = linear_sum_assignment(full)
    for r, c in zip(rows, cols):
        objects[r].match_cost = float(cost[r, c] if c < m else cost[r].min())
        if c < m:
            objects[r].name = entities[c].name
            objects[r].explained = 1.0 - unexplained_fraction(objects[r], entities[c], s)
