"""Which neighbours to set aside, and in what order, so that a crowded object can be grasped: planned before
anything moves.

A grasp that no candidate can reach clear names every neighbour some candidate ran into. Moving the wrong ones
spends the making-room budget, crowds the rest of the table and may knock something over, and the object is still
hemmed in. So the grasp is planned again as if neighbours were gone (`GraspChooser.blockers_of`, a what-if: nothing
moves): a freeing set is one neighbour whose removal alone frees a grasp, else (none gives a plan) a pair of the
first `PAIR_BLOCKERS`. Each neighbour of a freeing set must itself be picked up: as it stands, or once a freeing set of
its own neighbours is aside (one level deep: those neighbours must be pickable as they stand), and must have a free
table spot to go to that leaves open the whole path of the grasp its removal frees. The plan is the freeing set with
the fewest moves in all that fits the budget; its moves come in order, a neighbour's own hemmers before it."""
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
    """Set `name` aside, kept away from `keep_from` (the neighbour it hems in, picked up next), leaving open the grasp
    of `keep_open` that its removal frees (of that neighbour, or of the step's own object), its whole path."""
    name: str
    keep_from: frozenset[str] = frozenset()
    keep_open: tuple[BlockedGrasp, ...] = ()


def freeing_sets(c: ControlContext, obj: SceneObject, blockers: list[str],
                 pairs: bool | None = None) -> list[tuple[tuple[str, ...], BlockedGrasp]]:
    """The single neighbours of `blockers` whose removal frees a grasp of `obj` (`pairs` False), or the freeing pairs
    of the first PAIR_BLOCKERS in their order (True); None: the singles, else (none frees it) the pairs. Each with the
    grasp it frees: its whole checked joint path, by the what-if, which a neighbour set aside must keep clear of (a
    spot beside the posture a candidate was found blocked at may lie on the grasp's way down: dev 98102, bread set
    back beside the yellow bowl's grasp)."""
    def frees(names: tuple[str, ...]) -> BlockedGrasp | None:
        found = c.grasps.open_grasp(obj, set(names))
        return None if found is None else BlockedGrasp(found[0], found[1][-1], names, tuple(found[1]))

    singles = [] if pairs else [((b,), g) for b in blockers if (g := frees((b,))) is not None]
    if singles or pairs is False:
        return singles
    return [(p, g) for p in combinations(blockers[:PAIR_BLOCKERS], 2) if (g := frees(p)) is not None]


# has_spot(name, keep_open): whether `name` has a free table spot to be set aside on that leaves open the grasp of
# `keep_open` (any spot where that is empty).
SpotCheck = Callable[[str, tuple[BlockedGrasp, ...]], bool]


def clearing_moves(c: ControlContext, name: str, keep: set[str], has_spot: SpotCheck,
                   keep_open: tuple[BlockedGrasp, ...] = ()) -> list[Move] | None:
    """The moves that set `name` aside, leaving open the grasp of `keep_open` (the one its removal frees): itself
    when the hand can pick it up as it stands; else first the first freeing set of its own neighbours (not those in
    `keep`) that the hand can pick up as they stand, each leaving `name`'s freed grasp open; None when there is
    none, or when `has_spot` finds no such free table spot for `name` or a neighbour."""
    obj = c.resolver.resolve(name)
    if obj is None or not has_spot(name, keep_open):
        return None
    hemmed_by = c.grasps.blockers_of(obj)
    if hemmed_by is None:
        return [Move(name, keep_open=keep_open)]
    for hemmers, freed in freeing_sets(c, obj, [b for b in hemmed_by if b not in keep]):
        if all(has_spot(h, (freed,)) and pickable(c, h) for h in hemmers):
            return [Move(h, frozenset({name}), (freed,)) for h in hemmers] + [Move(name, keep_open=keep_open)]
    return None


def pickable(c: ControlContext, name: str) -> bool:
    """Whether the hand can pick `name` up as it stands (by the what-if)."""
    obj = c.resolver.resolve(name)
    return obj is not None and c.grasps.blockers_of(obj) is None


def room_plan(c: ControlContext, target: SceneObject, blockers: list[str], keep: set[str], budget: int,
              has_spot: SpotCheck) -> list[Move] | None:
    """The moves (at most `budget`) that free a grasp of `target` by the what-if, fewest first; None when no plan
    within the budget frees it. `keep`: objects never moved (the step's own, those moved already); `has_spot`:
    whether a neighbour has a free table spot to be set aside on that leaves a given grasp open. Each neighbour of
    the freeing set carries the grasp it frees (`Move.keep_open`)."""
    best: list[Move] | None = None
    candidates = [b for b in blockers if b not in keep]
    for pairs in (False, True):  # pairs only when no single neighbour's removal gives a plan
        for names, freed in freeing_sets(c, target, candidates, pairs):
            moves: list[Move] = []
            for name in names:
                more = clearing_moves(c, name, keep | set(names) | {m.name for m in moves}, has_spot, (freed,))
                if more is None:
                    break
                moves += more
            else:
                if len(moves) <= budget and (best is None or len(moves) < len(best)):
                    best = moves
                    if len(best) == len(names):
                        break  # no plan frees it in fewer moves than its freeing set has neighbours
        if best is not None:
            break
    log.debug("making room for %s: %s", target.name,
              " -> ".join(m.name for m in best) if best else f"no plan within {budget} moves")
    return best
