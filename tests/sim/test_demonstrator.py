"""Human demonstrations: real MuJoCo rendering of a short routine, the mp4 decodes with the right frame
count, the event log matches what was scripted, and the same seed renders the same demonstration."""
from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest

from sim.demonstrator import (
    DemoError,
    DemoSession,
    RoutineConfig,
    build_demo_model,
    load_render_config,
    load_routine,
    render_session,
)
from sim.demonstrator.render import check_steps, draw_layout, expand_steps, session_rng
from sim.scene import load_scene_config, sample_layout

# A short routine exercising all three event kinds; two sessions of it are rendered once per test run.
SHORT = RoutineConfig.model_validate({
    "name": "test_short", "idle_start_s": [0.5, 0.5], "idle_end_s": [0.5, 0.5],
    "sequence": [{"steps": [
        {"do": "pick", "object": "coca-cola bottle"},
        {"do": "pour", "object": "coca-cola bottle", "target": "orange cup"},
        {"do": "put", "object": "coca-cola bottle", "target": "table", "near": "origin"},
        {"do": "pick", "object": "cinnamon tea box"},
        {"do": "put", "object": "cinnamon tea box", "target": "yellow bowl"},
    ]}],
})
EXPECTED = [("pick", "coca-cola bottle", None), ("pour", "coca-cola bottle", "orange cup"),
            ("put", "coca-cola bottle", "table"), ("pick", "cinnamon tea box", None),
            ("put", "cinnamon tea box", "yellow bowl")]


def _cfg():
    cfg = load_render_config()
    cfg.video.fps = 10.0  # fewer frames keep the test fast; perception works at any rate
    return cfg


@pytest.fixture(scope="session")
def short_demo(tmp_path_factory: pytest.TempPathFactory) -> DemoSession:
    return render_session(SHORT, seed=3, session=0, out_dir=tmp_path_factory.mktemp("demo_a"), cfg=_cfg())


@pytest.fixture(scope="session")
def short_demo_again(tmp_path_factory: pytest.TempPathFactory) -> DemoSession:
    return render_session(SHORT, seed=3, session=0, out_dir=tmp_path_factory.mktemp("demo_b"), cfg=_cfg())


def test_mp4_decodes_with_the_right_frame_count(short_demo: DemoSession) -> None:
    meta = short_demo.meta()
    with av.open(str(short_demo.video)) as c:
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
    assert len(frames) == meta.frames == len(short_demo.trace().t)
    assert frames[0].shape == (meta.height, meta.width, 3)
    assert meta.duration_s == pytest.approx(meta.frames / meta.fps)
    # frames are real renders of a lit scene, not blank: the image varies
    assert float(np.std(frames[len(frames) // 2])) > 10.0


def test_event_log_is_what_was_scripted(short_demo: DemoSession) -> None:
    log = short_demo.events()
    assert [(e.kind, e.object, e.target) for e in log.events] == EXPECTED
    keys = [e.key_s for e in log.events]
    assert keys == sorted(keys)
    for e in log.events:
        assert e.start_s <= e.key_s <= e.end_s <= log.duration_s


def test_carried_objects_end_where_the_log_says(short_demo: DemoSession) -> None:
    """Physics after release: the tea box lies in the yellow bowl, the bottle stands on the table."""
    meta, tr = short_demo.meta(), short_demo.trace()
    scene = load_scene_config()
    tea = tr.obj_pos[-1, meta.objects.index("cinnamon tea box")]
    bowl = tr.obj_pos[-1, meta.objects.index("yellow bowl")]
    assert np.hypot(*(tea[:2] - bowl[:2])) < scene.object("yellow bowl").size[0]
    bottle_q = tr.obj_quat[-1, meta.objects.index("coca-cola bottle")]
    assert abs(bottle_q[0]) ** 2 + abs(bottle_q[3]) ** 2 > 0.98  # upright (only yawed)
    assert (tr.attached[-1]) == -1


def test_same_seed_renders_the_same_demonstration(short_demo: DemoSession, short_demo_again: DemoSession) -> None:
    a, b = short_demo.meta(), short_demo_again.meta()
    assert a.frame_digest == b.frame_digest
    assert a.layout == b.layout
    assert short_demo.events().events == short_demo_again.events().events
    ta, tb = short_demo.trace(), short_demo_again.trace()
    for key in ta.__dataclass_fields__:
        np.testing.assert_array_equal(getattr(ta, key), getattr(tb, key))


def test_sessions_vary_layout_and_order() -> None:
    routine = load_routine("task_b_breakfast")
    scene = load_scene_config()
    orders, layouts, variants = set(), set(), set()
    for session in range(12):
        rng = session_rng(routine.name, 0, session)
        layouts.add(tuple(draw_layout(scene, rng).poses["grey bowl"]))
        steps = expand_steps(routine, rng)
        check_steps(steps, scene)
        orders.add(tuple(s.object for s in steps if s.do == "pick"))
        variants.add(tuple((s.do, s.object) for s in steps))
    assert len(layouts) == 12
    # the hands-on order is fixed (bowl, tea, spoon, bread); the optional glance at the metal spoon varies
    assert orders == {("yellow bowl", "cinnamon tea box", "yellow spoon", "bread")}
    assert len(variants) == 2


def test_any_order_blocks_permute() -> None:
    routine = RoutineConfig.model_validate({"name": "t", "sequence": [{"any_order": [
        [{"do": "pick", "object": "cinnamon tea box"}, {"do": "put", "object": "cinnamon tea box", "target": "yellow bowl"}],
        [{"do": "pick", "object": "yellow spoon"}, {"do": "put", "object": "yellow spoon", "target": "yellow bowl"}]]}]})
    orders = {tuple(s.object for s in expand_steps(routine, session_rng("t", 0, k)) if s.do == "pick") for k in range(12)}
    assert len(orders) == 2


def test_routines_announce_themselves() -> None:
    for name, word in (("task_a_drink", "drink"), ("task_b_breakfast", "breakfast")):
        assert all(word in u.lower() for u in load_routine(name).announce)


def test_routines_are_valid_and_name_the_right_objects() -> None:
    scene = load_scene_config()
    for name in ("task_a_drink", "task_b_breakfast"):
        routine = load_routine(name)
        for session in range(6):
            check_steps(expand_steps(routine, session_rng(name, 1, session)), scene)
    picks_a = {s.object for s in load_routine("task_a_drink").all_steps() if s.do in ("pick", "pour")}
    assert "coca-cola bottle" in picks_a and "fanta can" not in picks_a
    picks_b = {s.object for s in load_routine("task_b_breakfast").all_steps() if s.do == "pick"}
    assert {"yellow bowl", "cinnamon tea box", "yellow spoon", "bread"} == picks_b


def test_impossible_routines_are_rejected() -> None:
    scene = load_scene_config()
    bad = RoutineConfig.model_validate({"name": "bad", "sequence": [{"steps": [
        {"do": "put", "object": "bread", "target": "yellow bowl"}]}]})
    with pytest.raises(DemoError, match="holding"):
        check_steps(expand_steps(bad, session_rng("bad", 0, 0)), scene)
    unknown = RoutineConfig.model_validate({"name": "bad", "sequence": [{"steps": [
        {"do": "pick", "object": "teapot"}, {"do": "put", "object": "teapot", "target": "table"}]}]})
    with pytest.raises(DemoError, match="unknown object"):
        check_steps(expand_steps(unknown, session_rng("bad", 0, 0)), scene)


def test_demo_scene_has_no_robot_and_a_weld_per_object() -> None:
    scene = load_scene_config()
    layout = sample_layout(scene, 0)
    model = build_demo_model(scene, layout, load_render_config())
    names = {model.body(i).name for i in range(model.nbody)}
    assert "pelvis" not in names and "demo_hand" in names and "demo_head" in names
    assert model.neq == len(layout.poses)
    assert float(model.vis.quality.offsamples) == load_render_config().video.offsamples


def test_cli_renders_and_skips_existing(tmp_path: Path) -> None:
    from memora_core.cli.main import main

    routine = tmp_path / "tiny.yaml"
    routine.write_text("name: tiny\nidle_start_s: [0.3, 0.3]\nidle_end_s: [0.3, 0.3]\nsequence:\n"
                       "  - steps:\n      - {do: look, object: bread, duration_s: 0.5}\n")
    args = ["render-demo", "--routine", str(routine), "--sessions", "1", "--out", str(tmp_path / "out"),
            "--width", "160", "--height", "120", "--fps", "8", "--json"]
    assert main(args) == 0
    session = DemoSession(tmp_path / "out" / "tiny", "tiny-seed0-s00")
    assert session.complete() and session.meta().width == 160
    mtime = session.video.stat().st_mtime_ns
    assert main(args) == 0
    assert session.video.stat().st_mtime_ns == mtime  # complete sessions are not rendered again
