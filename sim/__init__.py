"""MuJoCo simulation of the memora kitchen: scene, G1, demonstrator, perception, robot backend, DDS bridge."""
import os

# Headless by default: Mesa's software EGL (set MUJOCO_GL=osmesa to use libosmesa6 instead).
os.environ.setdefault("MUJOCO_GL", "egl")
