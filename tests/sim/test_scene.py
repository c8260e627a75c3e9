"""The kitchen builds with the fixed-base G1, layouts are seeded and overlap-free, labels render."""
import mujoco
import numpy as np
import pytest

from sim.g1 import BODY_JOINTS_29, load_g1_model
from sim.scene import load_scene_config, sample_layout
from sim.scene.builder import build_scene

pytestmark = pytest.mark.sim


def test_g1_is_fixed_base_with_29_body_joints():
    model = load_g1_model()
    assert model.nq == model.nv  # no free joint left: the pelvis is welded to the world
    for name in BODY_JOINTS_29:
        assert model.actuator(name).trnid[0] == model.joint(name).id
    data = mujoco.MjData(model)
    for _ in range(200):
        mujoco.mj_step(model, data)
    assert abs(data.body("pelvis").xpos[2] - 0.793) < 1e-6  # held in place, does not fall


def test_layout_is_deterministic_and_overlap_free():
    scene = load_scene_config()
    a, b, c = sample_layout(scene, 7), sample_layout(scene, 7), sample_layout(scene, 8)
    assert a == b and a != c
    names = list(a.poses)
    for i, n1 in enumerate(names):
        for n2 in names[i + 1:]:
            d = np.hypot(a.poses[n1][0] - a.poses[n2][0], a.poses[n1][1] - a.poses[n2][1])
            assert d >= scene.object(n1).footprint_radius + scene.object(n2).footprint_radius


def test_scene_builds_objects_rest_on_table_and_head_camera_renders():
    from memora_core.robot import make_robot

    robot = make_robot("sim_g1", seed=3)  # home pose: arms tucked, clear of the table
    scene, model, data = robot.scene, robot.model, robot.data
    robot.settle(1.0)
    for obj in scene.objects:
        z = data.body(obj.body_name).xpos[2]
        assert abs(z - (scene.table.height + obj.half_height)) < 0.01, obj.name
    renderer = mujoco.Renderer(model, 240, 320)
    renderer.update_scene(data, camera="head_cam")
    img = renderer.render()
    assert img.shape == (240, 320, 3) and img.std() > 10
    renderer.close()
    robot.close()
