"""The G1's head RGB-D camera in MuJoCo, delivered the way the head RealSense's ROS driver delivers it: a
colour image, a depth image aligned to the colour image (uint16 millimetres, 0 = no return), the pinhole
intrinsics of the colour stream and the camera's pose (optical frame: x right, y down, z forward).

The camera is the model's `head_cam` (sim.g1.HEAD_CAMERA, on the torso); its pose comes from the simulated
state at render time. Depth is MuJoCo's linear depth along the optical axis, limited to the sensor's range
and given an axial noise that grows with the square of the distance (stereo depth's error model), then
quantised to the driver's 1 mm depth unit. The robot's visual meshes can be hidden (`hide_robot`) the way a
real pipeline masks the robot's own body out of its depth (self-filtering from the robot model)."""
from __future__ import annotations

import sys
from dataclasses import dataclass

import mujoco
import numpy as np

from memora_core.perception.scene.types import CameraIntrinsics, RGBDFrame

DEPTH_UNIT_M = 0.001           # the RealSense driver's 16UC1 aligned depth unit
MIN_DEPTH_M, MAX_DEPTH_M = 0.1, 3.0  # outside this, the sensor reports 0 (no return)
# Axial noise sigma = DEPTH_NOISE * z^2 (m): ~0.5 mm at 0.6 m, the order of a D435's RMS error close up.
DEPTH_NOISE = 0.0015


@dataclass(frozen=True)
class HeadCameraSpec:
    width: int = 640
    height: int = 480
    depth_noise: float = DEPTH_NOISE  # sigma per metre squared of depth; 0 = exact depth
    hide_robot: bool = True


def intrinsics(model: mujoco.MjModel, camera: str, width: int, height: int) -> CameraIntrinsics:
    """Pinhole intrinsics of a MuJoCo camera: square pixels, principal point at the image centre."""
    fovy = np.radians(model.cam_fovy[model.camera(camera).id])
    f = 0.5 * height / np.tan(fovy / 2)
    return CameraIntrinsics(width=width, height=height, fx=float(f), fy=float(f),
                            cx=(width - 1) / 2, cy=(height - 1) / 2)


def optical_pose(data: mujoco.MjData, camera: str) -> np.ndarray:
    """4x4 world-from-optical transform. MuJoCo cameras look along -z with y up; the optical frame looks
    along +z with y down, so the y and z axes flip."""
    cam = data.camera(camera)
    T = np.eye(4)
    T[:3, :3] = cam.xmat.reshape(3, 3) @ np.diag([1.0, -1.0, -1.0])
    T[:3, 3] = cam.xpos
    return T


def sensor_frame(rgb: np.ndarray, z: np.ndarray, spec: HeadCameraSpec, rng: np.random.Generator,
                 intr: CameraIntrinsics, world_from_camera: np.ndarray, stamp_s: float) -> RGBDFrame:
    """A rendered colour image and linear depth (m) as the sensor delivers them: depth noise, range, 1 mm."""
    z = z.astype(np.float64)
    if spec.depth_noise > 0:
        z = z + rng.normal(0.0, 1.0, z.shape) * spec.depth_noise * z * z
    valid = (z >= MIN_DEPTH_M) & (z <= MAX_DEPTH_M)
    depth = np.where(valid, np.round(z / DEPTH_UNIT_M), 0).astype(np.uint16)
    return RGBDFrame(rgb=rgb, depth=depth, depth_unit_m=DEPTH_UNIT_M, intrinsics=intr,
                     world_from_camera=world_from_camera, stamp_s=stamp_s)


def render_pair(renderer: mujoco.Renderer, data: mujoco.MjData, camera: str,
                option: mujoco.MjvOption) -> tuple[np.ndarray, np.ndarray]:
    """Colour and linear depth (m) of one camera from one scene update."""
    renderer.update_scene(data, camera=camera, scene_option=option)
    renderer.disable_depth_rendering()
    rgb = renderer.render().copy()
    renderer.enable_depth_rendering()
    z = renderer.render().copy()
    renderer.disable_depth_rendering()
    return rgb, z


def release_gl_context() -> None:
    """Leave no GL context current on this thread (EGL; the other GL backends keep theirs), so the next frame may
    be rendered on another thread."""
    egl = sys.modules.get("mujoco.egl")
    if egl is not None and getattr(egl, "EGL_DISPLAY", None) is not None:
        egl.EGL.eglMakeCurrent(egl.EGL_DISPLAY, egl.EGL.EGL_NO_SURFACE, egl.EGL.EGL_NO_SURFACE, egl.EGL.EGL_NO_CONTEXT)


class HeadRGBD:
    """Renders RGB-D frames from the head camera of a model, on any thread, one at a time: a controller node builds
    the robot on one thread and steps it on another, and an EGL context current on one thread cannot be made
    current on another, so each frame lets go of the context when it is done (`release_gl_context`)."""

    def __init__(self, model: mujoco.MjModel, spec: HeadCameraSpec | None = None, seed: int = 0) -> None:
        from sim.g1 import HEAD_CAMERA

        self.model, self.spec, self.camera = model, spec or HeadCameraSpec(), HEAD_CAMERA
        s = self.spec
        self._renderer = mujoco.Renderer(model, s.height, s.width)
        release_gl_context()
        self._option = mujoco.MjvOption()
        self._option.geomgroup[2] = 0 if s.hide_robot else 1  # the robot's visual meshes are group 2
        self._rng = np.random.default_rng(seed)
        self.intrinsics = intrinsics(model, self.camera, s.width, s.height)

    def render(self, data: mujoco.MjData, stamp_s: float = 0.0) -> RGBDFrame:
        try:
            rgb, z = render_pair(self._renderer, data, self.camera, self._option)
        finally:
            release_gl_context()
        return sensor_frame(rgb, z, self.spec, self._rng, self.intrinsics, optical_pose(data, self.camera), stamp_s)

    def close(self) -> None:
        self._renderer.close()
