"""The Dex3-1 geometry the finger grasps are derived from, measured on the MuJoCo hand: the thumb's sweep
(hand.RIGHT_THUMB_SWEEP), the palm's inner face and the thumb/finger pivots that the configured
finger_offset (along, across) sits between."""
import mujoco
import numpy as np
import pytest

from memora_core.robot import load_robot_config, make_robot
from memora_core.robot.hand import FINGER_JOINTS, HandPostures, joint_name, thumb_sweep
from sim.robot_backend import PALM_SITE
from sim.scene.builder import HAND_BODY

pytestmark = pytest.mark.sim


def _mesh_points(m, d, body: int, frame) -> np.ndarray:
    """The collision mesh vertices of `body`, in the palm frame `frame` = (position, rotation)."""
    p, r = frame
    out = []
    for g in range(m.ngeom):
        if m.geom_bodyid[g] != body or not m.geom_contype[g] or m.geom_type[g] != mujoco.mjtGeom.mjGEOM_MESH:
            continue
        mid = m.geom_dataid[g]
        v = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]]
        world = v @ d.geom_xmat[g].reshape(3, 3).T + d.geom_xpos[g]
        out.append((world - p) @ r)
    return np.concatenate(out) if out else np.empty((0, 3))


@pytest.fixture(scope="module")
def dex3():
    robot = make_robot(load_robot_config("sim_g1_dex3"))
    yield robot
    robot.close()


@pytest.mark.parametrize("arm", ["right", "left"])
def test_the_thumb_sweep_matches_the_mujoco_hand(dex3, arm):
    m, d = dex3.model, dex3.data
    qadr = [m.jnt_qposadr[m.joint(joint_name(arm, j)).id] for j in FINGER_JOINTS]
    opened, closed = np.array(HandPostures().open(arm)), np.array(HandPostures().closed(arm))
    pts = []
    for t in np.linspace(0.0, 1.0, 11):
        d.qpos[qadr] = opened + t * (closed - opened)
        mujoco.mj_kinematics(m, d)
        site = d.site(PALM_SITE[arm])
        frame = (site.xpos.copy(), site.xmat.reshape(3, 3).copy())
        for k in (0, 1, 2):
            pts.append(_mesh_points(m, d, m.body(f"{arm}_hand_thumb_{k}_link").id, frame))
    pts = np.concatenate(pts)
    lo, hi = thumb_sweep(arm)
    assert np.allclose(pts.min(0), lo, atol=0.002) and np.allclose(pts.max(0), hi, atol=0.002)


def test_the_configured_grip_sits_off_the_palm_between_thumb_and_fingers(dex3):
    m, d = dex3.model, dex3.data
    mujoco.mj_kinematics(m, d)
    site = d.site(PALM_SITE["right"])
    frame = (site.xpos.copy(), site.xmat.reshape(3, 3).copy())
    palm = _mesh_points(m, d, m.body(HAND_BODY["right"]).id, frame)
    face = float(palm[palm[:, 0] > -0.06][:, 1].max())          # the palm's inner face (not the wrist)

    def pivot(name):
        return (d.xpos[m.body(name).id] - frame[0]) @ frame[1]

    thumb, finger = pivot("right_hand_thumb_1_link"), pivot("right_hand_index_0_link")
    for pose in load_robot_config("sim_g1_dex3").motion.grasp_poses:
        along, across, _ = pose.finger_offset
        if pose.roll_deg:  # the sweep pinch is placed by the table (test_finger_picks picks a spoon with it)
            assert across == 0.0 and thumb[0] < along and along - finger[0] < 0.05
            continue
        assert face < across < face + 0.01                     # the palm stops just short of the object's face
        assert thumb[0] < along and along - finger[0] < 0.05  # beyond the thumb, within the fingers' curl


@pytest.mark.parametrize("arm", ["right", "left"])
def test_the_preshape_outlines_match_the_mujoco_hand(dex3, arm):
    """hand.RIGHT_THUMB_OUTLINES / RIGHT_FINGER_OUTLINES: each digit's extent at each pre-shape fraction is the
    MuJoCo hand's (2 mm; the left hand mirrored)."""
    from memora_core.robot.hand import RIGHT_FINGER_OUTLINES, RIGHT_THUMB_OUTLINES

    m, d = dex3.model, dex3.data
    qadr = [m.jnt_qposadr[m.joint(joint_name(arm, j)).id] for j in FINGER_JOINTS]
    mirror = np.array([1.0, 1.0 if arm == "right" else -1.0])
    for digits, outlines in ((("thumb",), RIGHT_THUMB_OUTLINES), (("index", "middle"), RIGHT_FINGER_OUTLINES)):
        for t, outline in outlines.items():
            d.qpos[qadr] = HandPostures().shaped(arm, t if digits == ("thumb",) else 0.0,
                                                 0.0 if digits == ("thumb",) else t)
            mujoco.mj_kinematics(m, d)
            site = d.site(PALM_SITE[arm])
            frame = (site.xpos.copy(), site.xmat.reshape(3, 3).copy())
            pts = np.concatenate([_mesh_points(m, d, m.body(f"{arm}_hand_{dg}_{k}_link").id, frame)
                                  for dg in digits for k in (0, 1, 2)
                                  if mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, f"{arm}_hand_{dg}_{k}_link") >= 0])
            xy = pts[:, :2] * mirror
            out = np.asarray(outline)
            assert np.allclose(xy.min(0), out.min(0), atol=0.002), (digits, t)
            assert np.allclose(xy.max(0), out.max(0), atol=0.002), (digits, t)
