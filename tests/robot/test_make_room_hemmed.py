"""MakeRoom's order when the neighbour in the way is itself hemmed in: the neighbour that keeps the hand off it is
set aside first (kept away from it), then the first one again; both count against `clear_moves`. Logic only:
`clear_away` (the real pick and set-aside, covered on MuJoCo in tests/sim) is replaced by a table of outcomes."""
from types import SimpleNamespace

from memora_core.robot.control.failures import FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.control.recovery import MakeRoom, NotAside, StepAttempt
from memora_core.robot.primitives import Primitive, PrimitiveCall


class ScriptedRoom(MakeRoom):
    """`hems[name]`: what keeps the hand from picking `name` until those are aside (`named[name]`: what the failed
    pick names instead, when that differs); `stuck`: never movable."""

    def __init__(self, clear_moves: int, hems: dict[str, list[str]], stuck: set[str] = frozenset(),
                 named: dict[str, list[str]] | None = None) -> None:
        # No scene to plan a what-if grasp in (the resolver knows no object): the failure's own order stands.
        super().__init__(SimpleNamespace(cfg=SimpleNamespace(motion=SimpleNamespace(clear_moves=clear_moves)),
                                         resolver=SimpleNamespace(resolve=lambda query: None)))
        self.hems, self.stuck, self.named = hems, set(stuck), named or {}
        self.aside, self.calls = [], []

    def involved(self, call: PrimitiveCall) -> set[str]:
        return {call.object}

    def clear_away(self, blocker, call, keep_from=frozenset(), blocked_grasps=()):
        self.calls.append((blocker, set(keep_from)))
        if blocker in self.stuck:
            return NotAside()
        left = [h for h in self.hems.get(blocker, []) if h not in self.aside]
        if left:
            return NotAside(tuple(self.named.get(blocker, left)))
        self.aside.append(blocker)
        return None


PICK = PrimitiveCall(primitive=Primitive.PICK, object="tea box")


def blocked(*names: str) -> PrimitiveFailure:
    return PrimitiveFailure(FailureReason.COLLISION, "no grasp", names, cause=FailureCause.NO_GRASP)


def test_a_hemmed_in_blocker_is_freed_first_then_set_aside():
    room = ScriptedRoom(2, {"bowl": ["cup"]})
    attempt = StepAttempt()
    assert room.recover(blocked("bowl", "can"), PICK, attempt)
    assert room.aside == ["cup", "bowl"] and attempt.moved == ["cup", "bowl"]
    # The cup is kept away from the bowl it hemmed in; the bowl is tried before and after.
    assert room.calls == [("bowl", set()), ("cup", {"bowl"}), ("bowl", set())]


def test_without_budget_for_two_moves_the_next_blocker_is_tried_instead():
    room = ScriptedRoom(1, {"bowl": ["cup"]})
    attempt = StepAttempt()
    assert room.recover(blocked("bowl", "can"), PICK, attempt)
    assert room.aside == ["can"] and attempt.moved == ["can"]
    assert [b for b, _ in room.calls] == ["bowl", "can"]


def test_the_step_object_and_moved_ones_are_never_cleared_to_free_a_blocker():
    room = ScriptedRoom(3, {"bowl": ["cup"]}, stuck={"jug"}, named={"bowl": ["tea box", "jug", "cup"]})
    attempt = StepAttempt(moved=[])
    assert room.recover(blocked("bowl"), PICK, attempt)
    assert [b for b, _ in room.calls] == ["bowl", "jug", "cup", "bowl"]
    assert attempt.moved == ["cup", "bowl"]


def test_a_blocker_hemmed_in_by_two_has_both_set_aside_when_the_budget_allows():
    room = ScriptedRoom(3, {"bowl": ["cup", "jug"]})
    attempt = StepAttempt()
    assert room.recover(blocked("bowl"), PICK, attempt)
    assert attempt.moved == ["cup", "jug", "bowl"]
    assert room.calls == [("bowl", set()), ("cup", {"bowl"}), ("bowl", set()), ("jug", {"bowl"}), ("bowl", set())]


def test_when_nothing_frees_it_the_recovery_fails_and_counts_what_it_moved():
    room = ScriptedRoom(2, {"bowl": ["cup", "jug"]})
    attempt = StepAttempt()
    assert not room.recover(blocked("bowl"), PICK, attempt)
    # The cup went aside but the bowl stayed hemmed in by the jug, and the budget has no room for the jug and the
    # bowl: the move is spent, the step fails as it was.
    assert attempt.moved == ["cup"] and room.aside == ["cup"]
    assert not ScriptedRoom(3, {}, stuck={"bowl"}).recover(blocked("bowl"), PICK, StepAttempt())


def test_a_neighbour_set_aside_to_free_another_is_not_moved_again():
    # The cup hems in the bowl with the jug (never movable): the cup goes aside, the bowl stays; the cup, named in
    # the failure too, is not picked up again from where it was set aside; the can is moved instead.
    room = ScriptedRoom(3, {"bowl": ["cup", "jug"]}, stuck={"jug"})
    attempt = StepAttempt()
    assert room.recover(blocked("bowl", "cup", "can"), PICK, attempt)
    assert [b for b, _ in room.calls] == ["bowl", "cup", "bowl", "jug", "can"]
    assert attempt.moved == ["cup", "can"]
