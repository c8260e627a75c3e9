"""Build the kitchen with MjSpec: floor, table, the scene's objects (free bodies with label textures), and
optionally the fixed-base G1 with one inactive weld per object (the grasp stand-in) or a kinematic
demonstrator hand and head (mocap bodies) for human demonstrations."""
from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from sim.scene.config import ObjectSpec, SceneConfig
from sim.scene.layout import Layout
from sim.scene.textures import label_texture

SCENE_GROUP = 0  # scene geoms; the robot's visual meshes stay in group 2 so a camera can hide them
HAND_BODY = {"right": "right_wrist_yaw_link", "left": "left_wrist_yaw_link"}
DEMO_HAND = "demo_hand"
DEMO_HEAD = "demo_head"
DEMO_CAMERA = "demo_cam"
WALLS = 10  # segments of a cup/bowl wall


@dataclass(frozen=True)
class BuiltScene:
    model: mujoco.MjModel
    scene: SceneConfig
    layout: Layout
    with_robot: bool


def weld_name(side: str, obj: ObjectSpec) -> str:
    return f"grasp_{side}_{obj.body_name}"


def _yaw_quat(yaw: float) -> list[float]:
    return [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]


def _add_label_material(spec: mujoco.MjSpec, obj: ObjectSpec) -> str:
    name = f"mat_{obj.body_name}"
    if obj.label:
        img = label_texture(obj.label, obj.rgba)
        tex = spec.add_texture(name=f"tex_{obj.body_name}", type=mujoco.mjtTexture.mjTEXTURE_2D,
                               width=img.shape[1], height=img.shape[0], nchannel=3)
        tex.data = np.flipud(img).tobytes()
        mat = spec.add_material(name=name, rgba=[1, 1, 1, 1])
        mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = tex.name
    else:
        spec.add_material(name=name, rgba=list(obj.rgba))
    return name


def _add_hollow(body: mujoco.MjsBody, obj: ObjectSpec, material: str) -> None:
    """A cup or bowl: a thin base disc and a ring of wall boxes, so things can be put *in* it."""
    radius, half_h = obj.size
    wall_t = 0.004
    body.add_geom(type=mujoco.mjtGeom.mjGEOM_CYLINDER, size=[radius, 0.003, 0], pos=[0, 0, -half_h + 0.003],
                  material=material, group=SCENE_GROUP, mass=obj.mass * 0.4)
    seg_half = radius * math.tan(math.pi / WALLS) + wall_t
    for k in range(WALLS):
        a = 2 * math.pi * k / WALLS
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[wall_t, seg_half, half_h],
                      pos=[radius * math.cos(a), radius * math.sin(a), 0], quat=_yaw_quat(a),
                      material=material, group=SCENE_GROUP, mass=obj.mass * 0.6 / WALLS)


def add_object(spec: mujoco.MjSpec, obj: ObjectSpec, pose: tuple[float, float, float], table_z: float) -> None:
    x, y, yaw = pose
    body = spec.worldbody.add_body(name=obj.body_name, pos=[x, y, table_z + obj.half_height + 0.001],
                                   quat=_yaw_quat(yaw))
    body.add_freejoint(name=f"{obj.body_name}_free")
    material = _add_label_material(spec, obj)
    common = dict(material=material, group=SCENE_GROUP, friction=[1.0, 0.01, 0.001], condim=4)
    if obj.shape == "cylinder":
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_CYLINDER, size=[obj.size[0], obj.size[1], 0], mass=obj.mass,
                      **common)
    elif obj.shape == "box":
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=list(obj.size), mass=obj.mass, **common)
    else:
        _add_hollow(body, obj, material)
    body.add_site(name=f"{obj.body_name}_top", pos=[0, 0, obj.half_height], group=5)


def _add_room(spec: mujoco.MjSpec, scene: SceneConfig) -> None:
    spec.visual.global_.offwidth = 1280
    spec.visual.global_.offheight = 960
    spec.add_texture(name="floor_tex", type=mujoco.mjtTexture.mjTEXTURE_2D,
                     builtin=mujoco.mjtBuiltin.mjBUILTIN_CHECKER, width=256, height=256,
                     rgb1=[0.82, 0.80, 0.76], rgb2=[0.70, 0.68, 0.64])
    floor_mat = spec.add_material(name="floor_mat", texrepeat=[8, 8])
    floor_mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "floor_tex"
    spec.worldbody.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[4, 4, 0.05],
                            material="floor_mat", group=SCENE_GROUP)
    spec.worldbody.add_light(name="key", pos=[0.6, -0.4, 2.6], dir=[-0.1, 0.1, -1], castshadow=False,
                             diffuse=[0.8, 0.8, 0.8])
    spec.worldbody.add_light(name="fill", pos=[-0.5, 0.8, 2.2], dir=[0.4, -0.3, -1], castshadow=False,
                             diffuse=[0.4, 0.4, 0.4])
    t = scene.table
    top_half = 0.02
    spec.worldbody.add_geom(name="table_top", type=mujoco.mjtGeom.mjGEOM_BOX,
                            size=[t.size[0] / 2, t.size[1] / 2, top_half],
                            pos=[t.center[0], t.center[1], t.height - top_half], rgba=list(t.rgba),
                            group=SCENE_GROUP, friction=[1.0, 0.01, 0.001])
    leg_h = (t.height - 2 * top_half) / 2
    for sx in (-1, 1):
        for sy in (-1, 1):
            spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.02, 0.02, leg_h],
                                    pos=[t.center[0] + sx * (t.size[0] / 2 - 0.03),
                                         t.center[1] + sy * (t.size[1] / 2 - 0.03), leg_h],
                                    rgba=list(t.rgba), group=SCENE_GROUP)


def _add_demonstrator(spec: mujoco.MjSpec) -> None:
    """A kinematic person: a mocap hand (skin-coloured) and a mocap head carrying the egocentric camera."""
    hand = spec.worldbody.add_body(name=DEMO_HAND, mocap=True, pos=[0.2, -0.3, 1.0])
    skin = [0.86, 0.67, 0.55, 1.0]
    hand.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.045, 0.035, 0.012], rgba=skin, group=1,
                  contype=0, conaffinity=0)
    hand.add_geom(type=mujoco.mjtGeom.mjGEOM_CAPSULE, size=[0.03, 0.12, 0], pos=[-0.15, 0, 0.03],
                  quat=[0.7071, 0, 0.7071, 0], rgba=[0.3, 0.4, 0.6, 1], group=1, contype=0, conaffinity=0)
    head = spec.worldbody.add_body(name=DEMO_HEAD, mocap=True, pos=[0.0, 0.0, 1.55])
    head.add_camera(name=DEMO_CAMERA, fovy=80.0)


def build_spec(scene: SceneConfig, layout: Layout, with_robot: bool = True) -> mujoco.MjSpec:
    if with_robot:
        from sim.g1 import load_g1_spec

        spec = load_g1_spec()
    else:
        spec = mujoco.MjSpec()
    spec.option.timestep = 0.005  # 200 Hz physics: stable for the fixed-base arm, fast enough for ≥5x real time
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    _add_room(spec, scene)
    for name, pose in layout.poses.items():
        add_object(spec, scene.object(name), pose, scene.table.height)
    if with_robot:
        for name in layout.poses:
            obj = scene.object(name)
            for side in ("right", "left"):
                eq = spec.add_equality(name=weld_name(side, obj), type=mujoco.mjtEq.mjEQ_WELD,
                                       name1=HAND_BODY[side], name2=obj.body_name,
                                       objtype=mujoco.mjtObj.mjOBJ_BODY, active=False)
                eq.solref = [0.01, 1.0]
    else:
        _add_demonstrator(spec)
    return spec


def build_scene(scene: SceneConfig, layout: Layout, with_robot: bool = True) -> BuiltScene:
    model = build_spec(scene, layout, with_robot).compile()
    return BuiltScene(model=model, scene=scene, layout=layout, with_robot=with_robot)
