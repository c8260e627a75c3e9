"""A controller node builds its robot on one thread and steps it on another: the head camera must render on
either (an EGL context is current on one thread only; the perceived-pose demo failed with EGL_BAD_ACCESS)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from memora_core.robot import make_robot
from sim.head_camera import HeadCameraSpec, HeadRGBD


def test_head_camera_renders_on_the_thread_that_made_it_and_on_another():
    robot = make_robot("sim_g1", seed=3)
    cam = HeadRGBD(robot.model, HeadCameraSpec(width=160, height=120), seed=0)
    try:
        here = cam.render(robot.data)
        with ThreadPoolExecutor(1) as pool:
            there = pool.submit(cam.render, robot.data).result()
        again = cam.render(robot.data)
        for frame in (here, there, again):
            assert frame.rgb.shape == (120, 160, 3) and frame.rgb.std() > 5  # a picture, not a blank buffer
        assert np.abs(here.rgb.astype(int) - there.rgb.astype(int)).mean() < 1.0  # the same view on both threads
    finally:
        cam.close()
