"""RGB-D frames and scene models as ROS messages, in the standard RealSense ROS 2 driver's layout: colour
(sensor_msgs/Image rgb8), depth aligned to colour (16UC1, millimetres), the colour stream's CameraInfo
(plumb_bob, no distortion) and the camera's pose (geometry_msgs/TransformStamped, world -> optical frame;
published on a topic: tf2 messages are not among the installed ROS wheels)."""
from __future__ import annotations

import math

import numpy as np
from geometry_msgs.msg import TransformStamped
from sensor_msgs.msg import CameraInfo, Image

from memora_core.perception.scene.types import CameraIntrinsics, RGBDFrame, SceneModel

# The realsense2_camera driver's default names (camera_namespace "camera", camera_name "camera").
COLOR_TOPIC = "/camera/camera/color/image_raw"
DEPTH_TOPIC = "/camera/camera/aligned_depth_to_color/image_raw"
INFO_TOPIC = "/camera/camera/color/camera_info"
OPTICAL_FRAME = "camera_color_optical_frame"


def _quat(r: np.ndarray) -> tuple[float, float, float, float]:
    """(x, y, z, w) of a rotation matrix."""
    w = math.sqrt(max(0.0, 1.0 + r[0, 0] + r[1, 1] + r[2, 2])) / 2
    x = math.copysign(math.sqrt(max(0.0, 1.0 + r[0, 0] - r[1, 1] - r[2, 2])) / 2, r[2, 1] - r[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1.0 - r[0, 0] + r[1, 1] - r[2, 2])) / 2, r[0, 2] - r[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1.0 - r[0, 0] - r[1, 1] + r[2, 2])) / 2, r[1, 0] - r[0, 1])
    return x, y, z, w


def _matrix(x: float, y: float, z: float, w: float) -> np.ndarray:
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def frame_to_msgs(frame: RGBDFrame, stamp, world_frame: str = "world", frame_id: str = OPTICAL_FRAME
                  ) -> tuple[Image, Image, CameraInfo, TransformStamped]:
    h, w = frame.depth.shape
    colour = Image(height=h, width=w, encoding="rgb8", is_bigendian=0, step=3 * w,
                   data=np.ascontiguousarray(frame.rgb, np.uint8).tobytes())
    depth = Image(height=h, width=w, encoding="16UC1", is_bigendian=0, step=2 * w,
                  data=np.ascontiguousarray(frame.depth, "<u2").tobytes())
    k = frame.intrinsics
    info = CameraInfo(height=h, width=w, distortion_model="plumb_bob", d=[0.0] * 5,
                      k=[k.fx, 0.0, k.cx, 0.0, k.fy, k.cy, 0.0, 0.0, 1.0],
                      r=[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                      p=[k.fx, 0.0, k.cx, 0.0, 0.0, k.fy, k.cy, 0.0, 0.0, 0.0, 1.0, 0.0])
    pose = TransformStamped()
    pose.header.frame_id, pose.child_frame_id = world_frame, frame_id
    t = frame.world_from_camera
    pose.transform.translation.x, pose.transform.translation.y, pose.transform.translation.z = (float(v) for v in t[:3, 3])
    q = pose.transform.rotation
    q.x, q.y, q.z, q.w = _quat(t[:3, :3])
    for msg in (colour, depth, info):
        msg.header.stamp, msg.header.frame_id = stamp, frame_id
    pose.header.stamp = stamp
    return colour, depth, info, pose


class FrameError(ValueError):
    """Messages that do not make one RGB-D frame (encodings, sizes)."""


def msgs_to_frame(colour: Image, depth: Image, info: CameraInfo, pose: TransformStamped) -> RGBDFrame:
    if colour.encoding != "rgb8" or depth.encoding != "16UC1":
        raise FrameError(f"want rgb8 + 16UC1, got {colour.encoding} + {depth.encoding}")
    if (colour.height, colour.width) != (depth.height, depth.width) != (info.height, info.width):
        raise FrameError("colour, aligned depth and camera info differ in size")
    h, w = depth.height, depth.width
    if len(colour.data) != colour.step * h or len(depth.data) != depth.step * h:
        raise FrameError("image data does not match its size")
    rgb = np.frombuffer(bytes(colour.data), np.uint8).reshape(h, colour.step)[:, :3 * w].reshape(h, w, 3)
    d = np.frombuffer(bytes(depth.data), ">u2" if depth.is_bigendian else "<u2").reshape(h, depth.step // 2)[:, :w]
    k = info.k
    t = np.eye(4)
    tr, q = pose.transform.translation, pose.transform.rotation
    t[:3, 3] = (tr.x, tr.y, tr.z)
    t[:3, :3] = _matrix(q.x, q.y, q.z, q.w)
    stamp = colour.header.stamp.sec + colour.header.stamp.nanosec * 1e-9
    return RGBDFrame(rgb=rgb, depth=d.astype(np.uint16), depth_unit_m=0.001,
                     intrinsics=CameraIntrinsics(width=w, height=h, fx=k[0], fy=k[4], cx=k[2], cy=k[5]),
                     world_from_camera=t, stamp_s=stamp)


def scene_to_msg(scene: SceneModel, stamp, world_frame: str = "world"):
    from memora_interfaces.msg import SceneModel as SceneModelMsg
    from memora_interfaces.msg import SceneObject

    msg = SceneModelMsg(table_z=float(scene.table_z))
    msg.header.stamp, msg.header.frame_id = stamp, world_frame
    for o in scene.objects:
        msg.objects.append(SceneObject(
            name=o.name or "", match_cost=float("nan") if o.match_cost is None else float(o.match_cost),
            x=o.position[0], y=o.position[1], z=o.position[2], has_yaw=o.yaw is not None,
            yaw=float(o.yaw or 0.0), length=o.size[0], width=o.size[1], height=o.size[2], shape=o.shape.value,
            colour=o.colour or "", truncated=o.truncated, occluded=o.occluded, pixels=int(o.pixels)))
    return msg


def _usable(o) -> bool:
    """An object the controller may act on: finite pose and size, a known shape (anything else is dropped)."""
    from memora_core.perception.scene.types import Shape

    numbers = (o.x, o.y, o.z, o.yaw, o.length, o.width, o.height)
    return all(math.isfinite(v) for v in numbers) and o.shape in {s.value for s in Shape}


def msg_to_scene(msg, stamp_s: float | None = None) -> SceneModel:
    """memora_interfaces/SceneModel -> the core's SceneModel (the inverse of scene_to_msg); `stamp_s` defaults
    to the header's stamp."""
    from memora_core.perception.scene.types import PerceivedObject, Shape

    if stamp_s is None:
        stamp_s = msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9
    objects = [PerceivedObject(position=(o.x, o.y, o.z), yaw=o.yaw if o.has_yaw else None,
                               size=(o.length, o.width, o.height), shape=Shape(o.shape), colour=o.colour or None,
                               pixels=int(o.pixels), truncated=o.truncated, occluded=o.occluded,
                               name=o.name or None, match_cost=None if math.isnan(o.match_cost) else o.match_cost)
               for o in msg.objects if _usable(o)]
    return SceneModel(table_z=msg.table_z, objects=objects, stamp_s=stamp_s)
