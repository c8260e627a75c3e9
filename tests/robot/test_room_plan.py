"""Making room planned before anything moves (`room_plan`): which neighbours to set aside, and in what order, to free
a grasp of a crowded object. Logic only: the grasp chooser's what-if (`blockers_of`, a full grasp search on MuJoCo
in tests/sim) is replaced by a table of which neighbours must be gone for each object to be graspable."""
from types import SimpleNamespace

from memora_core.robot.control.failures import BlockedGrasp, Blockers, FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.control.recovery import MakeRoom, NotAside, StepAttempt
from memora_core.robot.control.room_plan import Move, room_plan
from memora_core.robot.primitives import Primitive, PrimitiveCall


def world(needs: dict[str, list[set[str]]]) -> SimpleNamespace:
    """A context whose grasp chooser grasps `name` once one of `needs[name]` (sets of neighbours) is all gone, and
    otherwise names what is left of those sets as in the way; an object not in `needs` is graspable as it stands.
    Records every what-if asked."""
    asked = []

    def blockers_of(obj, without=frozenset()):
        asked.append((obj.name, frozenset(without)))
        options = needs.get(obj.name)
        if options is None or any(o <= set(without) for o in options):
            return None
        return Blockers(dict.fromkeys(b for o in options for b in sorted(o) if b not in without))

    def open_grasp(obj, without=frozenset()):
        if blockers_of(obj, without) is not None:
            return None
        # a path of two postures, named by the object and what was gone
        return "left", [{"above": float(len(obj.name))}, {"grasp": float(len(obj.name) + len(without))}]

    resolver = SimpleNamespace(resolve=lambda name: SimpleNamespace(name=name))
    return SimpleNamespace(grasps=SimpleNamespace(blockers_of=blockers_of, open_grasp=open_grasp), resolver=resolver,
                           asked=asked)


TEA = SimpleNamespace(name="tea box")


def plan(c, blockers, keep=frozenset({"tea box"}), budget=3, no_spot=()):
    moves = room_plan(c, TEA, blockers, set(keep), budget, lambda name, keep_open: name not in no_spot)
    return None if moves is None else [(m.name, set(m.keep_from)) for m in moves]


def test_the_one_neighbour_whose_removal_frees_the_grasp_is_the_plan():
    c = world({"tea box": [{"cup"}]})
    assert plan(c, ["bowl", "can", "cup"]) == [("cup", set())]


def test_a_hemmed_in_neighbour_has_its_own_hemmer_set_aside_first_kept_away_from_it():
    c = world({"tea box": [{"bowl"}], "bowl": [{"spoon"}]})
    assert plan(c, ["bowl", "can"]) == [("spoon", {"bowl"}), ("bowl", set())]


def test_a_hemmer_set_aside_keeps_open_the_grasp_of_the_neighbour_it_hemmed_in():
    c = world({"tea box": [{"bowl"}], "bowl": [{"spoon"}, {"jug", "cup"}]})
    moves = room_plan(c, TEA, ["bowl"], {"tea box"}, 3, lambda name, keep_open: True)
    assert [m.name for m in moves] == ["spoon", "bowl"]
    # the bowl's grasp that the spoon's removal frees, and the tea box's that the bowl's frees: whole paths
    assert [(g.arm, g.blockers, len(g.path)) for g in moves[0].keep_open] == [("left", ("spoon",), 2)]
    assert [(g.blockers, g.path[-1]) for g in moves[1].keep_open] == [(("bowl",), {"grasp": 8.0})]


def test_a_freeing_set_whose_neighbour_has_no_spot_leaving_the_freed_grasp_open_is_passed_over():
    c = world({"tea box": [{"bread"}, {"cup", "can"}]})
    # Every spot for the bread lies on the grasp its removal frees: the pair is set aside instead.
    blocked_spot = lambda name, keep_open: not (name == "bread" and keep_open)  # noqa: E731
    moves = room_plan(c, TEA, ["bread", "cup", "can"], {"tea box"}, 3, blocked_spot)
    assert [m.name for m in moves] == ["cup", "can"]
    assert all(m.keep_open and m.keep_open[0].blockers == ("cup", "can") for m in moves)
    # the control: with a spot for it, the bread alone is the plan
    assert [m.name for m in room_plan(c, TEA, ["bread", "cup", "can"], {"tea box"}, 3, lambda n, k: True)] == ["bread"]


def test_a_hemmer_that_is_itself_hemmed_in_is_no_plan():
    c = world({"tea box": [{"cup"}], "cup": [{"bowl"}], "bowl": [{"spoon"}]})
    assert plan(c, ["cup"]) is None
    c = world({"tea box": [{"cup"}], "cup": [{"bowl"}, {"jug"}], "bowl": [{"spoon"}]})
    assert plan(c, ["cup"]) == [("jug", {"cup"}), ("cup", set())]


def test_the_fewest_moves_win_over_the_order_the_failure_gave():
    c = world({"tea box": [{"bowl"}, {"cup"}], "bowl": [{"spoon"}]})
    assert plan(c, ["bowl", "cup", "can"]) == [("cup", set())]


def test_where_no_single_neighbour_frees_it_a_pair_does():
    c = world({"tea box": [{"can", "cup"}]})
    assert plan(c, ["bowl", "can", "cup"]) == [("can", set()), ("cup", set())]


def test_no_plan_beyond_the_budget_nor_through_kept_or_spotless_neighbours():
    c = world({"tea box": [{"bowl"}], "bowl": [{"spoon", "jug"}]})
    assert plan(c, ["bowl"], budget=3) == [("jug", {"bowl"}), ("spoon", {"bowl"}), ("bowl", set())]
    assert plan(c, ["bowl"], budget=2) is None
    assert plan(c, ["bowl"], keep={"tea box", "jug"}) is None  # the jug was moved already: not again
    assert plan(c, ["bowl"], no_spot={"spoon"}) is None
    assert plan(world({"tea box": [{"cup"}]}), ["cup"], no_spot={"cup"}) is None


def test_only_the_first_neighbours_are_paired():
    c = world({"tea box": [{"a", "f"}]})
    assert plan(c, ["a", "b", "c", "d", "e", "f"]) is None
    pairs = [w for n, w in c.asked if n == "tea box" and len(w) == 2]
    assert len(pairs) == 10 and all("f" not in w for w in pairs)


class Room(MakeRoom):
    """MakeRoom on a scripted world: `clear_away` sets aside what the test allows and records the order."""

    def __init__(self, c, stuck=()):
        super().__init__(c)
        self.tried, self.stuck, self.grasps = [], set(stuck), []

    def involved(self, call):
        return {call.object}

    def has_spot(self, name, call, keep_open=()):
        return True

    def clear_away(self, blocker, call, keep_from=frozenset(), blocked_grasps=()):
        self.tried.append(blocker)
        self.grasps.append(blocked_grasps)
        return NotAside() if blocker in self.stuck else None


def scripted(needs, held=None):
    c = world(needs)
    c.cfg = SimpleNamespace(motion=SimpleNamespace(clear_moves=3))
    c.robot = SimpleNamespace(held_object=lambda: held)
    return c


PICK = PrimitiveCall(primitive=Primitive.PICK, object="tea box")


def no_grasp(*names, grasps=()):
    return PrimitiveFailure(FailureReason.COLLISION, "no grasp", names, cause=FailureCause.NO_GRASP,
                            blocked_grasps=tuple(grasps))


def test_make_room_carries_out_the_plan_for_a_pick_no_grasp_reached():
    room = Room(scripted({"tea box": [{"cup"}]}))
    attempt = StepAttempt()
    assert room.recover(no_grasp("bowl", "cup"), PICK, attempt)
    assert room.tried == ["cup"] and attempt.moved == ["cup"]


def test_what_the_plan_sets_aside_keeps_open_the_whole_grasp_its_removal_frees():
    by_cup = BlockedGrasp("right", {"q": 0.1}, ("cup",))
    room = Room(scripted({"tea box": [{"cup"}]}))
    assert room.recover(no_grasp("bowl", "cup", grasps=[by_cup]), PICK, StepAttempt())
    # not only the posture the failure found blocked: the what-if's path with the cup gone, every posture of it
    assert room.tried == ["cup"]
    assert [(g.blockers, g.path) for g in room.grasps[0]] == [(("cup",), ({"above": 7.0}, {"grasp": 8.0}))]


def test_what_is_set_aside_first_keeps_away_from_the_next_and_leaves_its_grasp_open():
    room = Room(scripted({"tea box": [{"can", "cup"}]}))
    seen = []
    room.clear_away = lambda blocker, call, keep_from=frozenset(), blocked_grasps=(): seen.append(
        (blocker, set(keep_from), blocked_grasps))
    assert room.recover(no_grasp("can", "cup"), PICK, StepAttempt())
    (first, keep1, open1), (second, keep2, _) = seen
    assert (first, second) == ("can", "cup") and keep1 == {"cup"} and keep2 == set()
    # the can must not stand where the hand takes the cup from, as the cup stands now, nor on the tea box's grasp
    # that moving both frees
    assert [(g.arm, g.posture, g.blockers) for g in open1] == [("left", {"grasp": 3.0}, ("can",)),
                                                              ("left", {"grasp": 9.0}, ("can", "cup"))]


def test_a_plan_whose_first_move_fails_falls_back_to_the_failure_order():
    room = Room(scripted({"tea box": [{"cup"}]}), stuck={"cup"})
    attempt = StepAttempt()
    assert room.recover(no_grasp("cup", "bowl"), PICK, attempt)
    assert room.tried == ["cup", "cup", "bowl"] and attempt.moved == ["bowl"]


def test_other_failures_keep_the_failure_order():
    room = Room(scripted({"tea box": [{"cup"}]}, held="tea box"))
    blocked = PrimitiveFailure(FailureReason.COLLISION, "blocked", ["bowl", "cup"], cause=FailureCause.PATH_BLOCKED)
    assert room.recover(blocked, PICK.model_copy(update={"primitive": Primitive.PLACE}), StepAttempt())
    assert room.tried == ["bowl"]


def test_a_move_is_a_name_and_what_it_keeps_away_from():
    assert Move("cup") == Move("cup", frozenset())
