"""Which neighbours to set aside, and in what order, so that a crowded object can be grasped: planned before
anything moves.

A grasp that no candidate can reach clear names every neighbour some candidate ran into. Moving the wrong ones
spends the making-room budget, crowds the rest of the table and may knock something over, and the object is still
hemmed in. So the grasp is planned again as if neighbours were gone (`GraspChooser.blockers_of`, a what-if: nothing
moves): a freeing set is one neighbour whose removal alone frees a grasp, else (none does) a pair of the first
`PAIR_BLOCKERS`. Each neighbour of a freeing set must itself be picked up: as it stands, or once a freeing set of
its own neighbours is aside (one level deep: those neighbours must be pickable as they stand), and must have a free
table spot to go to. The plan is the freeing set with the fewest moves in all that fits the budget; its moves come
in order, a neighbour's own hemmers before it."""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import BlockedGrasp
from memora_core.robot.robot import SceneObject

log = logging.getLogger(__name__)

# Neighbours paired when no single one frees a grasp (the first this many, in their given order): pairs grow as
# the square, and each what-if is one full grasp search.
PAIR_BLOCKERS = 5


@dataclass(frozen=True)
class Move:
    """Set `name` aside, kept away from `keep_from` (the neighbour it hems in, picked up next), leaving open one of
    `keep_open` (that neighbour's grasps it blocked; empty: those of the step's own object)."""
    name: str
    keep_from: frozenset[str] = frozenset()
    keep_open: tuple[BlockedGrasp, ...] = ()


def freeing_sets(c: ControlContext, obj: SceneObject, blockers: list[str]) -> list[tuple[str, ...]]:
    """The single neighbours of `blockers` whose removal frees a grasp of `obj`; where none does, the freeing pairs
    of the first PAIR_BLOCKERS (in their order)."""
    singles = [(b,) for b in blockers if c.grasps.blockers_of(obj, {b}) is None]
    if singles:
        return singles
    return [p for p in combinations(blockers[:PAIR_BLOCKERS], 2) if c.grasps.blockers_of(obj, set(p)) is None]


def clearing_moves(c: ControlContext, name: str, keep: set[str],
                   has_spot: Callable[[str], bool]) -> list[Move] | None:
    """The moves that set `name` aside: itself when the hand can pick it up as it stands; else first the first
    freeing set of its own neighbours (not those in `keep`) that the hand can pick up as they stand; None when
    there is none, or when `has_spot` finds no free table spot for `name`."""
    obj = c.resolver.resolve(name)
    if obj is None or not has_spot(name):
        return None
    hemmed_by = c.grasps.blockers_of(obj)
    if hemmed_by is None:
        return [Move(name)]
    for hemmers in freeing_sets(c, obj, [b for b in hemmed_by if b not in keep]):
        if all(has_spot(h) and pickable(c, h) for h in hemmers):
            freed = tuple(g for g in hemmed_by.grasps if set(g.blockers) <= set(hemmers)) or hemmed_by.grasps
            return [Move(h, frozenset({name}), freed) for h in hemmers] + [Move(name)]
    return None


def pickable(c: ControlContext, name: str) -> bool:
    """Whether the hand can pick `name` up as it stands (by the what-if)."""
    obj = c.resolver.resolve(name)
    return obj is not None and c.grasps.blockers_of(obj) is None


def room_plan(c: ControlContext, target: SceneObject, blockers: list[str], keep: set[str], budget: int,
              has_spot: Callable[[str], bool]) -> list[Move] | None:
    """The moves (at most `budget`) that free a grasp of `target` by the what-if, fewest first; None when no plan
    within the budget frees it. `keep`: objects never moved (the step's own, those moved already); `has_spot`:
    whether a neighbour has a free table spot to be set aside on."""
    best: list[Move] | None = None
    for names in freeing_sets(c, target, [b for b in blockers if b not in keep]):
        moves: list[Move] = []
        for name in names:
            more = clearing_moves(c, name, keep | set(names) | {m.name for m in moves}, has_spot)
            if more is None:
                break
            moves += more
        else:
            if len(moves) <= budget and (best is None or len(moves) < len(best)):
                best = moves
                if len(best) == len(names):
                    break  # no plan frees it in fewer moves than its freeing set has neighbours
    log.debug("making room for %s: %s", target.name,
              " -> ".join(m.name for m in best) if best else f"no plan within {budget} moves")
    return best
