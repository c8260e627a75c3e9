"""Plan step text: said as an English imperative, with the place memory grounded for its object."""
from memora_core.agents.step_text import spoken, with_place


def test_spoken_puts_articles_before_objects_and_places():
    assert spoken("put mug in cupboard", "put") == "put the mug in the cupboard"
    assert spoken("turn on tap", "turn on") == "turn on the tap"
    assert spoken("take lid out of pot", "take") == "take the lid out of the pot"
    assert spoken("put pot down", "put") == "put the pot down"


def test_spoken_leaves_determiners_numbers_and_bare_verbs():
    assert spoken("take 2 apples from my bag", "take") == "take 2 apples from my bag"
    assert spoken("stir", "stir") == "stir"
    assert spoken("wipe the counter", "wipe") == "wipe the counter"
    assert spoken("", "do") == ""


def test_with_place_adds_the_grounded_place_once():
    assert with_place("stir soup", "stir", "hob") == "stir soup at hob"
    assert with_place("put mug", "put", "cupboard") == "put mug in cupboard"
    assert with_place("rinse mug in sink", "rinse", "sink") == "rinse mug in sink"


def test_grounding_order_looks_up_objects_without_a_place_first():
    from memora_core.agents.step_text import grounding_order
    from memora_core.schemas import PlanStep

    steps = [PlanStep(index=0, action="pick up", object="ladle", target="hook", text="pick up ladle"),
             PlanStep(index=1, action="stir", object="stew", text="stir stew"),
             PlanStep(index=2, action="taste", object="spoon", text="taste spoon"),
             PlanStep(index=3, action="stir", object="stew", text="stir stew")]
    objects = ["ladle", "hook", "stew", "spoon"]
    assert grounding_order(steps, objects, {"ladle": "hook"}) == ["stew", "spoon", "ladle", "hook"]
