"""`sim` perception of a rendered demonstration: its actions match the demonstrator's ground-truth log,
objects are listed densely with the scene's names and attributes, visibility really comes from the
segmentation render, and the memory writer forms separate entities for look-alikes."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memora_core.config import load_config
from memora_core.perception import PerceptionConfig, PerceptionInput, make_perception
from memora_core.schemas import SegmentObservation
from sim.demonstrator import DemoSession
from sim.demonstrator.geometry import look_at_quat
from sim.perception import SimPerception, demo_inputs, demo_segments
from sim.scene import load_scene_config
from tests.sim.test_demonstrator import short_demo  # noqa: F401  (session fixture: one render per run)

KEY_TOL_S = 0.25    # a weld switch is seen between two frames (0.1 s at 10 fps)
SPAN_TOL_S = 0.5    # start/end of an action


@pytest.fixture(scope="module")
def observed(short_demo: DemoSession) -> list[SegmentObservation]:  # noqa: F811
    perception = SimPerception()
    out = [perception.observe(item) for item in demo_inputs(short_demo, "demo_p")]
    perception.close()
    return out


def test_backend_is_registered_through_the_plugin_registry() -> None:
    backend = make_perception(PerceptionConfig(backend="sim"))
    assert isinstance(backend, SimPerception) and backend.name == "sim"


def test_every_ground_truth_event_is_recovered(short_demo: DemoSession, observed: list[SegmentObservation]) -> None:  # noqa: F811
    verbs = SimPerception().cfg.verbs
    segment_s = load_config().segmenting.segment_s
    found = [(obs.segment, a) for obs in observed for a in obs.actions]
    truth = short_demo.events().events
    assert len(found) == len(truth)  # nothing missed, nothing invented
    for event, (segment, action) in zip(truth, found):
        assert action.verb == verbs[event.kind]
        assert action.nouns == [event.object] + ([event.target] if event.target else [])
        key = float(action.source_id.split("@")[1])
        assert abs(key - event.key_s) <= KEY_TOL_S, (event, action)
        assert abs(action.start_s - event.start_s) <= SPAN_TOL_S, (event, action)
        assert abs(action.end_s - event.end_s) <= SPAN_TOL_S, (event, action)
        # reported in the segment that holds the moment it happened
        assert segment.start_s <= key < segment.end_s + 1e-9
        assert segment.index == min(int(key // segment_s), len(observed) - 1)


def test_objects_are_dense_canonical_and_attributed(observed: list[SegmentObservation]) -> None:
    scene = load_scene_config()
    for obs in observed:
        names = [o.name for o in obs.objects]
        assert len(names) == len(set(names))
        assert len(names) >= 8  # the head looks at a table of 12 objects: most are in view
        for o in obs.objects:
            if o.name == "table":  # a surface, not a scene object: only its kind is reported
                assert o.category == "furniture" and o.colour is None
                continue
            spec = scene.object(o.name)
            assert (o.category, o.colour, o.material) == (spec.category, spec.colour, spec.material)
            assert o.label == (spec.label.lower() if spec.label else None)
    seen = {o.name: o for obs in observed for o in obs.objects}
    # look-alikes stay apart with telling attributes
    assert seen["coca-cola bottle"].label != seen["fanta can"].label
    assert seen["yellow spoon"].material != seen["metal spoon"].material


def test_locations_follow_the_puts(short_demo: DemoSession, observed: list[SegmentObservation]) -> None:  # noqa: F811
    last = {o.name: o for o in observed[-1].objects}
    assert last["cinnamon tea box"].location == "yellow bowl"
    assert last["coca-cola bottle"].location == "table"
    held = [o for obs in observed for o in obs.objects if o.state == "held"]
    assert held and all(o.location is None for o in held)


def test_visibility_comes_from_the_render(short_demo: DemoSession) -> None:  # noqa: F811
    """Turn the head to the ceiling and nothing is seen; look at the table and the objects are."""
    view = SimPerception().view(short_demo)
    k = 0
    assert len(view.visible(k)) >= 8
    eye = view.trace.head_pos[k].copy()
    view.trace.head_quat[k] = look_at_quat(eye, eye + np.array([0.3, 0.0, 1.0]))
    assert view.visible(k) == {}


def test_a_segment_can_be_observed_again_later(short_demo: DemoSession, observed: list[SegmentObservation]) -> None:  # noqa: F811
    """A fresh backend given only the session's files and one segment reproduces that segment."""
    seg = demo_segments(short_demo, "demo_p")[1]
    again = make_perception(PerceptionConfig(backend="sim")).observe(
        PerceptionInput(segment=seg, payload=str(short_demo.meta_path)))
    assert again == observed[1]
    by_root = make_perception(PerceptionConfig(backend="sim", options={"demo_root": str(short_demo.directory)}))
    assert by_root.observe(PerceptionInput(segment=seg)) == observed[1]


def test_writer_forms_one_entity_per_object(short_demo: DemoSession, tmp_path: Path, sqlite_only_config) -> None:  # noqa: F811
    from memora_core.editing import MemoryWriter, load_editor_config, make_decider
    from memora_core.cli.stats import stats_dict
    from memora_core.store import MemoryStore

    ecfg = load_editor_config(candidates={"embedder": "none"})
    store = MemoryStore.open(tmp_path / "store", sqlite_only_config)
    writer = MemoryWriter(store, SimPerception(), make_decider(ecfg), config=ecfg)
    items = demo_inputs(short_demo, "demo_p")
    for item in items:
        writer.process(item)
    stats = stats_dict(store, "demo_p")
    names = {e.name for e in store.entities("demo_p")}
    store.close()
    perception = SimPerception()
    objects = [perception.observe(item).objects for item in items]
    assert names == {o.name for objs in objects for o in objs}  # look-alikes not merged, nothing duplicated
    assert stats["entity_observations"] == sum(len(objs) for objs in objects)
    assert stats["compression_ratio"] > 1.0


# ------------------------------------------------------------------ speech, surfaces, 'next to'
SPOKEN_ROUTINE = {
    "name": "spoken_breakfast", "announce": ["Time to make my breakfast."], "idle_start_s": [0.5, 0.6],
    "idle_end_s": [0.5, 0.6], "sequence": [{"steps": [
        {"do": "pick", "object": "yellow bowl"},
        {"do": "put", "object": "yellow bowl", "target": "table", "near": "table center"},
        {"do": "pick", "object": "bread"},
        {"do": "put", "object": "bread", "target": "table", "near": "yellow bowl"}]}]}


@pytest.fixture(scope="module")
def spoken(tmp_path_factory: pytest.TempPathFactory) -> tuple[DemoSession, list[SegmentObservation]]:
    from sim.demonstrator import RoutineConfig, load_render_config, render_session

    cfg = load_render_config()
    session = render_session(RoutineConfig.model_validate(SPOKEN_ROUTINE), seed=1, session=0,
                             out_dir=tmp_path_factory.mktemp("spoken"), cfg=cfg)
    backend = SimPerception(PerceptionConfig(backend="sim"))
    try:
        return session, [backend.observe(i) for i in demo_inputs(session, "P01")]
    finally:
        backend.close()


def test_speech_becomes_the_transcript_and_summary(spoken) -> None:
    session, obs = spoken
    meta = session.meta()
    assert [u.text for u in meta.speech] == ["Time to make my breakfast."]
    first = next(o for o in obs if o.segment.start_s <= meta.speech[0].start_s < o.segment.end_s)
    assert first.segment.transcript == "Time to make my breakfast."
    assert first.summary.startswith('says "Time to make my breakfast."')
    assert sum("says" in o.summary for o in obs) == 1


def test_table_is_seen_and_bread_is_put_next_to_the_bowl(spoken) -> None:
    _, obs = spoken
    assert any(o.name == "table" for ob in obs for o in ob.objects)
    puts = [a for ob in obs for a in ob.actions if a.verb == "put"]
    bread = next(a for a in puts if a.nouns[0] == "bread")
    assert bread.text == "put bread on table next to yellow bowl" and "yellow bowl" in bread.nouns
    bowl = next(a for a in puts if a.nouns[0] == "yellow bowl")
    assert "next to" not in bowl.text  # nothing was handled before the bowl


def test_consolidation_names_a_routine_from_speech() -> None:
    from memora_core.consolidation.speech import name_from_speech, spoken as say, utterances
    from memora_core.schemas import Activity, Evidence, RoutineSkill

    assert utterances(f'{say("Time to make my breakfast.")}; pick up bread') == ["Time to make my breakfast."]
    acts = [Activity(activity_id=f"a{v}", participant_id="P01", segment_id=f"P01/v{v}/00000", video_id=f"v{v}",
                     start_s=0.0, end_s=10.0, seq=0, summary=f'{say(u)}; pick up yellow bowl')
            for v, u in enumerate(["Time to make my breakfast.", "Now I'll make my breakfast.", "Let me make breakfast."])]
    r = RoutineSkill(routine_id="P01-R000", participant_id="P01", goal="pick up yellow bowl", name="pick up yellow bowl",
                     steps=["pick up yellow bowl", "put yellow bowl on table"], key_objects=["yellow bowl"],
                     episodes=[Evidence(video_id=f"v{v}", start_s=4.0, end_s=20.0) for v in range(3)], frequency=3)
    named = name_from_speech([r], acts)[0]
    assert named.goal == "time to make my breakfast" and named.steps == r.steps
    silent = name_from_speech([r], [a.model_copy(update={"summary": "pick up yellow bowl"}) for a in acts])[0]
    assert silent.goal == "pick up yellow bowl"
