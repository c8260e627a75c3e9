"""The scene model from the head RGB-D camera on rendered MuJoCo frames: poses against the simulator's ground
truth (which only scores), re-observation after an object moves, and look-alikes kept apart."""
import mujoco
import numpy as np
import pytest

from memora_core.perception.scene import SceneModeller, Shape
from memora_core.perception.scene.model import entity_from_object
from memora_core.robot import load_robot_config, make_robot
from sim.head_camera import HeadRGBD
from sim.scene import Layout

pytestmark = pytest.mark.sim


def _entities(robot, names=None):
    return [entity_from_object(o.name, o.category, o.colour, o.half_height, o.radius, o.extent, o.container, o.label)
            for o in robot.scene_objects() if names is None or o.name in names]


@pytest.fixture(scope="module")
def camera_robot():
    made = []

    def make(poses):
        robot = make_robot(load_robot_config("sim_g1"), layout=Layout(seed=0, poses=poses))
        cam = HeadRGBD(robot.model, seed=1)
        made.append((robot, cam))
        return robot, cam

    yield make
    for robot, cam in made:
        cam.close()
        robot.close()


POSES = {"coca-cola bottle": (0.42, -0.25, 0.0), "orange cup": (0.45, 0.05, 0.0),
         "cinnamon tea box": (0.36, -0.08, 0.7), "yellow bowl": (0.50, 0.22, 0.0), "yellow spoon": (0.52, -0.08, -0.4)}


def test_depth_to_pose_accuracy_on_a_rendered_frame(camera_robot):
    robot, cam = camera_robot(POSES)
    frame = cam.render(robot.data)
    assert frame.depth.dtype == np.uint16 and frame.depth.shape == frame.rgb.shape[:2]
    scene = SceneModeller(_entities(robot)).observe(frame)
    assert abs(scene.table_z - robot.scene.table.height) < 0.003
    assert len(scene.objects) == len(POSES)
    for o in robot.scene_objects():
        seen = scene.get(o.name)
        assert seen is not None, f"{o.name} not named: {[(p.name, p.colour, p.shape) for p in scene.objects]}"
        err = np.linalg.norm(np.array(seen.position) - np.array(o.position))
        assert err < 0.01, (o.name, err)
        assert abs(seen.size[2] - 2 * o.half_height) < 0.01
    assert scene.get("orange cup").shape is Shape.CONTAINER
    assert scene.get("coca-cola bottle").shape is Shape.CYLINDER
    box = scene.get("cinnamon tea box")
    # The box's long side is its own y axis: yaw 0.7 + pi/2, modulo pi.
    want = (0.7 + np.pi / 2 + np.pi / 2) % np.pi - np.pi / 2
    assert box.shape is Shape.BOX and abs((box.yaw - want + np.pi / 2) % np.pi - np.pi / 2) < 0.05


def test_perceived_objects_carry_catalogue_identity_at_the_seen_position_and_turn(camera_robot):
    from memora_core.perception.scene.objects import entities, perceived_objects

    robot, cam = camera_robot(POSES)
    truth = {o.name: o for o in robot.scene_objects()}
    catalogue = [o.model_copy(update={"position": None}) for o in truth.values()]  # identity only
    seen = perceived_objects(SceneModeller(entities(catalogue)).observe(cam.render(robot.data)), catalogue)
    assert sorted(o.name for o in seen) == sorted(truth)
    for o in seen:
        assert o.category == truth[o.name].category and o.half_height == truth[o.name].half_height
        assert np.linalg.norm(np.array(o.position) - np.array(truth[o.name].position)) < 0.01
        if o.extent is None:
            assert o.yaw is None  # round: no turn to give
            continue
        # a box stands turned as it was seen: its long own axis (the tea box's is y, the spoon's x) lies along
        # the long axis it really has (a box's long axis has no front: 180 degrees apart is the same)
        long_axis = int(np.argmax(o.extent))
        seen_dir, true_dir = o.standing_rotation()[:, long_axis], robot.object_pose(o.name)[1][:, long_axis]
        assert abs(float(seen_dir @ true_dir)) > np.cos(np.radians(3))


def test_reobservation_after_an_object_moves(camera_robot):
    robot, cam = camera_robot(POSES)
    modeller = SceneModeller(_entities(robot))
    before = modeller.observe(cam.render(robot.data)).get("coca-cola bottle")
    # Move the bottle 10 cm (its free joint), as a person would, and look again.
    m, d = robot.model, robot.data
    adr = m.joint(m.body(robot.scene.object("coca-cola bottle").body_name).jntadr[0]).qposadr[0]
    d.qpos[adr:adr + 2] += [0.0, -0.10]
    mujoco.mj_forward(m, d)
    after = modeller.observe(cam.render(robot.data))
    moved = after.get("coca-cola bottle")
    truth = robot.object_pose("coca-cola bottle")[0]
    assert np.linalg.norm(np.array(moved.position) - truth) < 0.01
    assert np.linalg.norm(np.array(moved.position) - np.array(before.position)) > 0.09
    assert len(after.objects) == len(POSES)  # nothing left behind where it stood


def test_a_look_alike_distractor_is_not_taken_for_the_target(camera_robot):
    # Only the look-alikes are on the table: the blue cup (the orange cup's), the Lipton box (the cinnamon
    # box's: same size and shape) and the metal spoon (the yellow spoon's).
    robot, cam = camera_robot({"blue cup": (0.42, -0.20, 0.0), "lipton tea box": (0.40, 0.05, 0.3),
                               "metal spoon": (0.50, -0.05, 0.2)})
    from sim.scene import load_scene_config
    from memora_core.perception.scene.model import entity_from_object as ent

    scene_cfg = load_scene_config(robot.config.scene_path())
    targets = []
    for name in ("orange cup", "cinnamon tea box", "yellow spoon"):
        s = scene_cfg.object(name)
        targets.append(ent(s.name, s.category, s.colour, s.half_height, s.footprint_radius,
                           (s.size[0], s.size[1]) if s.shape == "box" else None, s.container, s.label))
    frame = cam.render(robot.data)
    alone = SceneModeller(targets).observe(frame)
    assert len(alone.objects) == 3
    assert [o.name for o in alone.objects] == [None, None, None], [(o.name, o.colour, o.match_cost) for o in alone.objects]
    # With the distractors known too, each is named as itself.
    both = SceneModeller(targets + _entities(robot)).observe(frame)
    assert sorted(o.name for o in both.objects) == ["blue cup", "lipton tea box", "metal spoon"]
