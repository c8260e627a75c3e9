"""Robot backends that live with the robot package (the real Unitree G1 over DDS). The MuJoCo backend stays
with the simulator (`sim.robot_backend`). Backends are found through `memora_core.robot.robot`'s registry
(`register_robot` / `make_robot`) by dotted path, so importing this package imports no backend."""
