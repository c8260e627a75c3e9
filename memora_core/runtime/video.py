"""The execution seen from a third-person camera: an observer of the simulated robot's physics steps that
renders the scene offscreen (MuJoCo) at a fixed simulated frame rate into an mp4 (PyAV), and saves key
frames (PNG) when asked (e.g. at the end of each plan step) for the HTML report.

Frames are taken by simulated time, not wall time, so the video plays the motion at its real speed however
slowly the CPU stepped it. No ROS here: the controller node and in-process runs share it.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger(__name__)


class CameraView(BaseModel):
    """A free camera looking at the table from the side/front (the robot and the objects in view)."""
    model_config = ConfigDict(extra="forbid")
    lookat: tuple[float, float, float] = (0.45, 0.0, 0.85)
    distance: float = Field(default=2.0, gt=0)
    azimuth: float = 210.0     # degrees; 180 looks along +x (from in front of the robot)
    elevation: float = -25.0   # degrees; negative looks down


class VideoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    # Software GL on a shared CPU costs ~0.1 s a frame at 320x240 (no shadows/reflections/multisampling):
    # the frame rate is what execution pays for the video.
    fps: float = Field(default=5.0, gt=0, description="frames per second of simulated time")
    width: int = Field(default=320, ge=16)
    height: int = Field(default=240, ge=16)
    crf: int = Field(default=28, ge=0, le=51, description="H.264 quality (higher = smaller file)")
    camera: CameraView = Field(default_factory=CameraView)


class ExecutionVideo:
    """Attach to a SimRobot (`robot.step_observers`); `close()` finishes the mp4. Not thread-safe by
    design: it runs on the thread that steps physics, which also owns the offscreen GL context."""

    def __init__(self, robot: Any, path: Path, cfg: VideoConfig | None = None, frames_dir: Path | None = None) -> None:
        import av
        import mujoco

        self.cfg = cfg or VideoConfig()
        self.robot = robot
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.frames_dir = Path(frames_dir) if frames_dir else None
        if self.frames_dir:
            self.frames_dir.mkdir(parents=True, exist_ok=True)
        self._mujoco = mujoco
        self._renderer: Any = None  # created lazily on the stepping thread (the GL context is per thread)
        self._cam = mujoco.MjvCamera()
        self._cam.type = mujoco.mjtCamera.mjCAMERA_FREE
        self._cam.lookat[:] = self.cfg.camera.lookat
        self._cam.distance, self._cam.azimuth, self._cam.elevation = (
            self.cfg.camera.distance, self.cfg.camera.azimuth, self.cfg.camera.elevation)
        self._container = av.open(str(self.path), "w")
        # even sizes: yuv420p needs them
        w, h = self.cfg.width // 2 * 2, self.cfg.height // 2 * 2
        self._stream = self._container.add_stream("libx264", rate=int(round(self.cfg.fps)))
        self._stream.width, self._stream.height, self._stream.pix_fmt = w, h, "yuv420p"
        self._stream.options = {"crf": str(self.cfg.crf), "preset": "veryfast"}
        self._av = av
        self._next_t = robot.sim_time_s
        self.frames = 0
        self.key_frames: list[Path] = []
        self._closed = False
        robot.step_observers.append(self)

    def render(self) -> np.ndarray:
        mj = self._mujoco
        if self._renderer is None:
            quality = self.robot.model.vis.quality
            samples, quality.offsamples = quality.offsamples, 0  # read at context creation; restored at once
            try:
                self._renderer = mj.Renderer(self.robot.model, self._stream.height, self._stream.width)
            finally:
                quality.offsamples = samples
        self._renderer.update_scene(self.robot.data, camera=self._cam)
        for flag in (mj.mjtRndFlag.mjRND_SHADOW, mj.mjtRndFlag.mjRND_REFLECTION, mj.mjtRndFlag.mjRND_SKYBOX):
            self._renderer.scene.flags[flag] = False  # 3x faster in software GL; not needed to see the task
        return self._renderer.render()

    def __call__(self, robot: Any) -> None:
        if self._closed or robot.sim_time_s < self._next_t:
            return
        self._next_t += 1.0 / self.cfg.fps
        self._write(self.render())

    def _write(self, img: np.ndarray) -> None:
        for packet in self._stream.encode(self._av.VideoFrame.from_ndarray(img, format="rgb24")):
            self._container.mux(packet)
        self.frames += 1

    def key_frame(self, name: str) -> Path | None:
        """Save the current view as <frames_dir>/<name>.png (and add it to the video, so a plan that needs
        no physics still shows)."""
        if self.frames_dir is None or self._closed:
            return None
        import cv2

        img = self.render()
        self._write(img)
        path = self.frames_dir / f"{name}.png"
        cv2.imwrite(str(path), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
        self.key_frames.append(path)
        return path

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self in self.robot.step_observers:
            self.robot.step_observers.remove(self)
        for packet in self._stream.encode():
            self._container.mux(packet)
        self._container.close()
        if self._renderer is not None:
            try:
                self._renderer.close()
            except Exception:  # noqa: BLE001 - a GL context freed off its thread; the file is already written
                log.debug("renderer close failed", exc_info=True)
        log.info("execution video %s: %d frames", self.path, self.frames)
