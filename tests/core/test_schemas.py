import pytest
from pydantic import ValidationError

from memora_core.schemas import (
    ActionObservation,
    EditDecision,
    EditOp,
    Evidence,
    ObjectObservation,
    Preference,
    RoutineSkill,
    Segment,
    SegmentObservation,
)


def seg(**kw):
    base = dict(participant_id="P06", video_id="P06_101", index=0, start_s=0.0, end_s=10.0)
    base.update(kw)
    return Segment(**base)


def test_segment_id_is_deterministic():
    assert seg(index=3).segment_id == "P06/P06_101/00003"


@pytest.mark.parametrize("bad, field", [
    (dict(end_s=0.0), "end_s"),
    (dict(participant_id="P 06"), "participant_id"),
    (dict(index=-1), "index"),
    (dict(frame_refs=[f"f{i}" for i in range(25)]), "frame_refs"),
])
def test_invalid_segment_names_the_field(bad, field):
    with pytest.raises(ValidationError) as err:
        seg(**bad)
    assert field in str(err.value)


def test_object_names_are_normalised_and_unknown_attributes_stay_none():
    obj = ObjectObservation(name="  Yellow   Bowl ")
    assert obj.name == "yellow bowl"
    assert obj.colour is None and obj.attributes() == {}
    with pytest.raises(ValidationError, match="confidence"):
        ObjectObservation(name="cup", confidence=1.5)
    with pytest.raises(ValidationError, match="name"):
        ObjectObservation(name="   ")


def test_unknown_fields_are_refused():
    with pytest.raises(ValidationError, match="flavour"):
        ObjectObservation(name="cup", flavour="sweet")


def test_observation_json_round_trip():
    obs = SegmentObservation(
        segment=seg(), backend="narration", summary="take cup",
        objects=[ObjectObservation(name="cup", colour="orange")],
        actions=[ActionObservation(verb="take", nouns=["cup"], start_s=1.0, end_s=2.0)],
    )
    assert SegmentObservation.model_validate_json(obs.model_dump_json()) == obs


def test_edit_decision_target_rules():
    EditDecision(op=EditOp.ADD, observed_name="cup", reason="new")
    for op in (EditOp.UPDATE, EditOp.DELETE, EditOp.NOOP):
        with pytest.raises(ValidationError, match="target_entity_id"):
            EditDecision(op=op, observed_name="cup", reason="x")


def test_knowledge_requires_evidence():
    ev = Evidence(video_id="P06_101", start_s=1, end_s=5)
    with pytest.raises(ValidationError, match="episodes"):
        Preference(pref_id="p1", participant_id="P06", statement="uses the blue sponge", keywords=["sponge"],
                   subject="sponge", attribute="variant", choice="blue", choice_text="use blue sponge", occasions=2,
                   confidence=0.8, support=2, episodes=[])
    with pytest.raises(ValidationError, match="end_s"):
        Evidence(video_id="v", start_s=5, end_s=1)
    r = RoutineSkill(routine_id="r1", participant_id="P06", goal="wash bowl", steps=["take bowl", "wash bowl"],
                     episodes=[ev], frequency=2)
    assert "P06_101@1.0-5.0s" in r.describe()
