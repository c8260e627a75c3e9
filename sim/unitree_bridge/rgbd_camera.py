"""The bridge's head RGB-D camera: bridge.HeadCamera's snapshot-and-render thread, rendering colour and
depth aligned to it (sim/head_camera.py's sensor model) instead of colour alone, so the simulator node can
publish what the G1's head RealSense driver publishes without holding up the 200 Hz LowState loop."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from memora_core.perception.scene.types import RGBDFrame
from sim.head_camera import HeadCameraSpec, intrinsics, optical_pose, render_pair, sensor_frame
from sim.unitree_bridge.bridge import HeadCamera


class RGBDCamera(HeadCamera):
    """`on_frame(frame: RGBDFrame, sim_time_s)` is called on the render thread for each rendered frame."""

    def __init__(self, model: Any, spec: HeadCameraSpec, on_frame: Callable[[RGBDFrame, float], None],
                 seed: int = 0) -> None:
        from sim.g1 import HEAD_CAMERA

        self._spec, self._rng = spec, np.random.default_rng(seed)
        self._intr = intrinsics(model, HEAD_CAMERA, spec.width, spec.height)
        self._stamp = 0.0
        super().__init__(model, spec.width, spec.height, on_frame, hide_robot=spec.hide_robot)

    def request(self, data: Any, sim_time_s: float) -> None:
        self._stamp = sim_time_s
        super().request(data, sim_time_s)

    def _render(self, renderer: Any, option: Any) -> RGBDFrame:
        from sim.g1 import HEAD_CAMERA

        rgb, z = render_pair(renderer, self._data, HEAD_CAMERA, option)
        return sensor_frame(rgb, z, self._spec, self._rng, self._intr, optical_pose(self._data, HEAD_CAMERA),
                            self._stamp)
