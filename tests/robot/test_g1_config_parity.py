"""The G1 path plans with the settings the simulated Dex3 G1 is measured with: `unitree_g1` extends `sim_g1_dex3` and
differs only where hardware asks for it (DDS, gains, slower limits and speeds, a wait for the camera's first frames).
Before, it kept its own copy of the motion settings, which fell behind the simulated robot's (making room, where
things are set down, the arm's check against its own body), so the G1 demo failed a task the same planner did in sim."""
from memora_core.robot.config import load_robot_config

# What a real G1 may set differently from the simulated one, and why: nothing else may differ.
HARDWARE = {
    ("type",): "the backend",
    ("dds",): "the robot's network",
    ("gains",): "the motor drivers' servo gains",
    ("limits", "position_margin"): "further from the real joint stops",
    ("limits", "max_velocity"): "a real arm near people moves slower",
    ("motion", "speed"): "slower palm",
    ("motion", "min_segment_s"): "slower palm",
    ("motion", "settle_s"): "real objects settle slower",
    ("motion", "object_wait_s"): "the scene model fills over the camera's first frames",
}


def _differences(a: dict, b: dict, path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    out: set[tuple[str, ...]] = set()
    for key in set(a) | set(b):
        x, y = a.get(key), b.get(key)
        if isinstance(x, dict) and isinstance(y, dict):
            out |= _differences(x, y, (*path, key))
        elif x != y:
            out.add((*path, key))
    return out


def test_the_g1_differs_from_the_simulated_dex3_g1_only_where_hardware_asks():
    g1 = load_robot_config("unitree_g1").model_dump()
    sim = load_robot_config("sim_g1_dex3").model_dump()
    differ = _differences(g1, sim)
    assert differ <= set(HARDWARE), f"settings only the G1 path has: {sorted(differ - set(HARDWARE))}"
    # the manipulation settings that had drifted are now the simulated robot's
    for field in ("arm_self_check", "clear_moves", "aside_gap", "beside_reach", "table_zone", "pour_min_angle",
                  "grasp_poses"):
        assert g1["motion"][field] == sim["motion"][field], field
    assert g1["physics"]["velocity_feedforward"] is True
    assert g1["limits"]["max_velocity"] < sim["limits"]["max_velocity"]  # and the hardware ones stay its own


def test_the_check_catches_a_setting_that_drifts():
    g1 = load_robot_config("unitree_g1").model_dump()
    sim = load_robot_config("sim_g1_dex3").model_dump()
    g1["motion"]["clear_moves"] = sim["motion"]["clear_moves"] - 1
    assert ("motion", "clear_moves") in _differences(g1, sim) - set(HARDWARE)
