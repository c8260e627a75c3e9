"""Step-level recoveries, tried in order after a skill fails: the first whose `applies` holds runs; when it
succeeds the step is tried again, else the original failure stands. Each recovery has a budget per step.

1. `TuckAndRetry` — a move_to of an empty hand failed for a motion reason other than hitting something
   (chained IK can leave the arm wound up): tuck the arm and go again from a fresh posture, once.
2. `MakeRoom` — a pick/place/pour is blocked by neighbours the step is not about: set one aside on a free
   table spot away from the work (as a person clears a crowded counter), at most `motion.clear_moves`; the spot
   must leave open one of the grasps it blocked (checked on the arm postures the grasp search found blocked, before
   anything moves). A neighbour that cannot be picked because others hem it in has those set aside first, one at
   a time while the budget allows, then is tried again (all count against the budget). An object no grasp reached
   clear is first planned for (room_plan.py: the grasp planned again as if neighbours were gone, the fewest moves
   that free it); the rule order above is the fall-back where no plan fits the budget or its first move fails.
3. `PutDownHeld` — a pick finds the hand holding something else (an earlier step or task failed with it in the
   hand): put that back where it was picked from (or on the nearest free spot), once.
4. `PlaceAgain` — a place let go of its object, and it came to rest off the target (held off where it was believed
   to be in the hand, it landed on a bowl's rim): pick it up where it lies and place it again, once.

The skills' own fall-backs (next grasp, next free spot, hand-off to the other arm, bringing a cup nearer)
live with the skill they belong to."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import BlockedGrasp, FailureCause, PrimitiveFailure
from memora_core.robot.control.room_plan import Move, room_plan
from memora_core.robot.control.targets import place_target
from memora_core.robot.limits import LimitViolation
from memora_core.robot.primitives import Primitive, PrimitiveCall

log = logging.getLogger(__name__)

# Steps that may move a neighbour aside to get through (a move_to or a hand-over only passes over the table).
ROOM_MAKING = frozenset({Primitive.PICK, Primitive.PLACE, Primitive.POUR})
# Free spots of a blocked table put-down kept for it while room is made (the first tried, in order).
RESERVED_SPOTS = 3
# Motion failures a fresh arm posture may overcome (not: the arm hit something).
POSTURE_CAUSES = frozenset({FailureCause.IK_MISS, FailureCause.OUT_OF_WORKSPACE, FailureCause.PATH_BLOCKED,
                            FailureCause.STOPPED_SHORT})


@dataclass(frozen=True)
class NotAside:
    """Why a neighbour could not be set aside: `hemmed_by`, the neighbours that kept the hand from picking it up
    (empty when something else failed), and `blocked_grasps`, its grasp candidates they blocked
    (PrimitiveFailure.blocked_grasps)."""
    hemmed_by: tuple[str, ...] = ()
    blocked_grasps: tuple[BlockedGrasp, ...] = ()


@dataclass
class StepAttempt:
    """What recoveries did during one step."""
    moved: list[str] = field(default_factory=list)  # neighbours set aside
    used: list[str] = field(default_factory=list)   # recoveries run, in order


class Recovery(Protocol):
    name: str

    def applies(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> bool: ...

    def recover(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> bool: ...


class TuckAndRetry:
    name = "tuck_and_retry"

    def __init__(self, c: ControlContext) -> None:
        self.c = c

    def applies(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> bool:
        return (call.primitive is Primitive.MOVE_TO and f.cause in POSTURE_CAUSES
                and self.c.robot.held_object() is None and self.name not in attempt.used)

    def recover(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> bool:
        log.info("%s %s: %s; tucking the arm and trying again", call.primitive.value, call.target, f.detail)
        self.c.transit.stow(self.c.robot.arm)
        return True


class MakeRoom:
    name = "make_room"

    def __init__(self, c: ControlContext) -> None:
        self.c = c

    def _candidates(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> list[str]:
        involved = self.involved(call)
        return [b for b in f.blockers if b not in involved and b not in attempt.moved]

    def _plan(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> list[Move] | None:
        """For an object no grasp reached clear (the hand empty): the moves that free a grasp of it by the
        what-if (room_plan.py) within the budget left; None otherwise."""
        if f.cause is not FailureCause.NO_GRASP or not call.object:
            return None
        target = self.c.resolver.resolve(call.object)
        if target is None or self.c.robot.held_object() is not None:
            return None
        keep = self.involved(call) | set(attempt.moved)
        return room_plan(self.c, target, list(f.blockers), keep, self.c.cfg.motion.clear_moves - len(attempt.moved),
                         lambda name, keep_open: self.has_spot(name, call, keep_open))

    def has_spot(self, name: str, call: PrimitiveCall, keep_open: tuple[BlockedGrasp, ...] = ()) -> bool:
        """Whether some stage of `set_aside` has a free table spot for `name`, away from the step's work and objects
        as `clear_away` keeps it; with `keep_open`, one of the stages that leave that grasp open (the last stage
        takes any spot: a neighbour set down on the grasp it was moved to free was moved for nothing)."""
        obj = self.c.resolver.resolve(name)
        if obj is None:
            return False
        stages = self.c.putdown.aside_stage_spots(obj, self.aside_work(call, name), self.reserved_spots(call),
                                                  keep_open)
        return any(stages[:-1] if keep_open else stages)

    def aside_work(self, call: PrimitiveCall, blocker: str, keep_from: set[str] = frozenset()) -> list[np.ndarray]:
        """The points `blocker` set aside keeps away from: where the step works, the step's own objects (picked
        again by the retried step) and `keep_from`."""
        keep = (self.involved(call) | set(keep_from)) - {blocker}
        return [self.work_xy(call)] + [xy for n in keep if (xy := self.c.scene.xy(n)) is not None]

    def _run(self, plan: list[Move], call: PrimitiveCall, attempt: StepAttempt) -> int:
        """Carry out `plan` in order until a move fails; the number of moves made. Each neighbour set aside keeps away
        from those the plan moves after it, and leaves open the grasp the hand would take of the next (on dev layout
        98006 a blue cup set aside beside the Fanta can to be moved next hemmed it in) and the grasp its own removal
        frees (`Move.keep_open`), both whole paths."""
        done = 0
        for i, move in enumerate(plan):
            later = {m.name for m in plan[i + 1:]}  # picked up next: what is set aside now keeps away from them too
            # The grasp its removal frees and the one the hand takes of the next neighbour, both left open.
            keep_open = self.next_grasp_open(move, plan[i + 1:]) + move.keep_open
            if self.clear_away(move.name, call, keep_from=set(move.keep_from) | later,
                               blocked_grasps=keep_open) is not None:
                log.info("making room for %s: %s could not be set aside; the plan stops there", call.object,
                         move.name)
                break
            attempt.moved.append(move.name)
            done += 1
            log.info("moved %s aside (making room for %s: %s)", move.name, call.object,
                     " -> ".join(m.name for m in plan))
        return done

    def next_grasp_open(self, move: Move, later: list[Move]) -> tuple[BlockedGrasp, ...]:
        """For `move`, the grasp of the plan's next neighbour that the hand takes as it stands now (a what-if), as
        one `move`'s object must not block where it is set aside; empty when no move follows or none is clear."""
        nxt = self.c.resolver.resolve(later[0].name) if later else None
        found = self.c.grasps.open_grasp(nxt) if nxt is not None else None
        return () if found is None else (BlockedGrasp(found[0], found[1][-1], (move.name,), tuple(found[1])),)

    def applies(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> bool:
        return (call.primitive in ROOM_MAKING and len(attempt.moved) < self.c.cfg.motion.clear_moves
                and bool(self._candidates(f, call, attempt)))

    def recover(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> bool:
        plan = self._plan(f, call, attempt)
        if plan and self._run(plan, call, attempt):
            return True  # the step is tried again (and plans again, should it still find no grasp)
        budget = self.c.cfg.motion.clear_moves
        for blocker in self._candidates(f, call, attempt):
            if len(attempt.moved) >= budget:
                break
            if blocker in attempt.moved:
                continue  # set aside already, as a neighbour hemming in an earlier one
            not_aside = self.clear_away(blocker, call, blocked_grasps=f.blocked_grasps)
            if not_aside is not None and not_aside.hemmed_by and len(attempt.moved) + 2 <= budget:
                not_aside = self.clear_hemmed(blocker, not_aside, call, attempt, f.blocked_grasps)
            if not_aside is None:
                attempt.moved.append(blocker)
                log.info("moved %s aside (it blocked: %s); trying %s again", blocker, f.detail,
                         call.primitive.value)
                return True
        return False

    def clear_hemmed(self, blocker: str, hemmed: NotAside, call: PrimitiveCall, attempt: StepAttempt,
                     blocked_grasps: tuple[BlockedGrasp, ...] = ()) -> NotAside | None:
        """`blocker` could not be picked for the neighbours `hemmed.hemmed_by` around it: set the first of those that
        can be set aside (kept away from `blocker`, leaving open a grasp of it or of the step), then try
        `blocker` again; while it is still hemmed in and the budget leaves room for one more neighbour and
        `blocker` itself, the next. As `clear_away`."""
        involved = self.involved(call)
        budget = self.c.cfg.motion.clear_moves
        while hemmed is not None and hemmed.hemmed_by and len(attempt.moved) + 2 <= budget:
            inner = next((b for b in hemmed.hemmed_by if b != blocker and b not in involved and b not in attempt.moved
                          and self.clear_away(b, call, keep_from={blocker},
                                              blocked_grasps=blocked_grasps + hemmed.blocked_grasps) is None), None)
            if inner is None:
                return hemmed
            attempt.moved.append(inner)
            log.info("moved %s aside: it hemmed in %s", inner, blocker)
            hemmed = self.clear_away(blocker, call, blocked_grasps=blocked_grasps)
        return hemmed

    def involved(self, call: PrimitiveCall) -> set[str]:
        """The objects never moved aside for a step: those it is about (its object, its target, what already lies in
        the target, the held object), whatever lies in a container (an earlier step may have put it there, and
        setting it aside would undo that step: on the demo's default layout 47000 the bench picked what Task B had put
        into the bowl back out of it to make room for the bread), and a container with something in it (carried
        aside, what lies in it may spill, and its put-down found its own contents in the way: 47000 over ROS)."""
        held = self.c.robot.held_object()
        filled = self.c.scene.table_contents(held)
        names = set(filled).union(*filled.values())
        for query in (call.object, call.target):
            obj = self.c.resolver.resolve(query) if query else None
            if obj is not None:
                names.add(obj.name)
                names |= self.c.scene.inside(obj)
        return names | ({held} if held else set())

    def work_xy(self, call: PrimitiveCall) -> np.ndarray:
        """Where a step works on the table: its target's position, else its object's."""
        for query in (call.target, call.object):
            region = self.c.regions.get((query or "").lower())
            if region is not None:
                return region[:2].copy()
            obj = self.c.resolver.resolve(query) if query else None
            if obj is not None and self.c.scene.xy(obj.name) is not None:
                return self.c.scene.xy(obj.name).copy()
        return self.c.robot.hand_position()[:2].copy()

    def reserved_spots(self, call: PrimitiveCall) -> list[tuple[np.ndarray, float]]:
        """For a put-down onto the table (on it, next to something): the first free spots it would use, as
        footprints of the held object, so that what is set aside to make room does not take them."""
        held = self.c.robot.held_object()
        if call.primitive is not Primitive.PLACE or held is None:
            return []
        obj = self.c.resolver.require(held)
        try:
            target = place_target(self.c, call.target or "", call.relation, obj)
        except PrimitiveFailure:
            return []
        if target.receptacle is not None:
            return []
        return [(np.asarray(s[:2], float), obj.radius) for s in target.spots[:RESERVED_SPOTS]]

    def clear_away(self, blocker: str, call: PrimitiveCall, keep_from: set[str] = frozenset(),
                   blocked_grasps: tuple[BlockedGrasp, ...] = ()) -> NotAside | None:
        """Set `blocker` aside (away from the work, the step's objects and `keep_from`, leaving open a grasp of
        `blocked_grasps` where it can: PutDown.set_aside); a held object (a place that was blocked) is first put
        down on a free spot too, and is picked again by the retried step. None when it is aside; else why not."""
        c = self.c
        work = [self.work_xy(call)]
        reserved = self.reserved_spots(call)
        picking = False
        try:
            held = c.robot.held_object()
            if call.primitive is Primitive.PICK and held is not None and self.involved(call) & {held}:
                # A pick that got hold of its object but could not lift it: let go where it stands first.
                if not c.skills.pick.back_off(c.resolver.require(held)):
                    return NotAside()
                held = None
            if held is not None and held != blocker:
                c.putdown.park(c.resolver.require(held), work)
            work = self.aside_work(call, blocker, keep_from)
            picking = c.robot.held_object() is None
            c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=blocker))
            picking = False
            c.putdown.set_aside(c.resolver.require(blocker), work, reserved, blocked_grasps)
            return None
        except (PrimitiveFailure, LimitViolation) as f:
            log.info("could not move %s aside: %s", blocker, getattr(f, "detail", f))
            if c.robot.held_object() == blocker:
                c.putdown.put_back(c.resolver.require(blocker))
            hemmed = picking and isinstance(f, PrimitiveFailure) and c.robot.held_object() is None
            return NotAside(tuple(f.blockers), f.blocked_grasps) if hemmed else NotAside()


class PutDownHeld:
    name = "put_down_held"

    def __init__(self, c: ControlContext) -> None:
        self.c = c

    def applies(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> bool:
        held = self.c.robot.held_object()
        return (f.cause is FailureCause.HAND_FULL and call.primitive is Primitive.PICK and held is not None
                and self.name not in attempt.used)

    def recover(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> bool:
        held = self.c.resolver.require(self.c.robot.held_object())
        log.info("%s %s: %s; putting %s back first", call.primitive.value, call.object, f.detail, held.name)
        self.c.putdown.put_back(held)
        return self.c.robot.held_object() is None


class PlaceAgain:
    name = "place_again"

    def __init__(self, c: ControlContext) -> None:
        self.c = c

    def applies(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> bool:
        return (call.primitive is Primitive.PLACE and f.cause is FailureCause.LANDED_OFF
                and self.c.robot.held_object() is None and self.name not in attempt.used)

    def recover(self, f: PrimitiveFailure, call: PrimitiveCall, attempt: StepAttempt) -> bool:
        # The retried place picks the object up where it lies (`PickSkill.ensure_held`): a new grasp, and a new
        # belief of where it is in the hand.
        log.info("place %s: %s; picking it up where it lies to place it again", call.object, f.detail)
        return True


def default_recoveries(c: ControlContext) -> list[Recovery]:
    """The step-level recoveries, in the order they are considered."""
    return [TuckAndRetry(c), MakeRoom(c), PutDownHeld(c), PlaceAgain(c)]
