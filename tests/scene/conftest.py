import os

# Headless rendering: Mesa's software EGL unless the caller chose otherwise.
os.environ.setdefault("MUJOCO_GL", "egl")
