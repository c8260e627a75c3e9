"""Egocentric camera node: video files (PyAV) or a USB camera (OpenCV) -> sensor_msgs/Image.

Sensor-data QoS (best effort, shallow queue) and a publish-rate limit, because an unlimited reliable image
publisher can stall DDS. Video episodes are bracketed by EpisodeEvent messages; image stamps are
`stamp_origin + video time`, so consumers recover the video time of each frame; an episode's origin is never
before the stamps of the one before (played faster than real time, those run ahead of the clock). In the simulator the
simulator node publishes the head camera on the same topic, and this node is not started.
"""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy, DurabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import Image

from memora.common import declare_params, run_node, stamp_add, stamp_diff
from memora_interfaces.msg import EpisodeEvent, NodeStatus


class CameraParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: Literal["video", "usb"] = "video"
    videos: list[str] = Field(default_factory=list, description="video files played in order (source=video)")
    participant_id: str = "P01"
    device: int = Field(default=0, ge=0, description="OpenCV device index (source=usb)")
    fps: float = Field(default=2.0, gt=0, le=60, description="publish-rate limit, frames per second")
    speed: float = Field(default=1.0, ge=0, description="video playback speed; 0 = as fast as the rate limit allows")
    max_side: int = Field(default=320, ge=16, description="frames are downscaled so the longer side is at most this")
    image_topic: str = "/memora/camera/image"
    episode_topic: str = "/memora/camera/episode"
    status_topic: str = "/memora/status"
    frame_id: str = "head_camera"
    loop: bool = False
    start_delay_s: float = Field(default=0.5, ge=0, description="lets subscribers discover the topic first")
    wait_for_node: str = Field(default="", description="play only once this node reports READY on the status topic "
                               "(the memory writer: frames sent while it loads are lost); empty = do not wait")
    wait_timeout_s: float = Field(default=300.0, gt=0, description="play anyway after waiting this long")


def _resize(rgb: np.ndarray, max_side: int) -> np.ndarray:
    import cv2

    h, w = rgb.shape[:2]
    scale = max_side / max(h, w)
    if scale >= 1.0:
        return rgb
    return cv2.resize(rgb, (max(1, int(w * scale)), max(1, int(h * scale))), interpolation=cv2.INTER_AREA)


class CameraNode(Node):
    def __init__(self) -> None:
        super().__init__("camera")
        self.p: CameraParams = declare_params(self, CameraParams)
        if self.p.source == "video":
            missing = [v for v in self.p.videos if not Path(v).is_file()]
            if missing:
                raise FileNotFoundError(f"camera: video files not found: {missing}")
            if not self.p.videos:
                self.get_logger().warning("camera: no videos given; nothing to publish")
        self.image_pub = self.create_publisher(Image, self.p.image_topic, qos_profile_sensor_data)
        latched = QoSProfile(depth=20, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.episode_pub = self.create_publisher(EpisodeEvent, self.p.episode_topic, latched)
        self.status_pub = self.create_publisher(NodeStatus, self.p.status_topic, latched)
        self.frames_sent = 0
        self._stamps_end: Any = None  # the stamp just after the last video episode's last frame
        self._ready_seen = threading.Event()
        if self.p.wait_for_node:
            self.create_subscription(NodeStatus, self.p.status_topic, self._on_status, latched)
        self._stop = threading.Event()
        self.failure: BaseException | None = None
        self._worker = threading.Thread(target=self._run, daemon=True)
        self._worker.start()
        self.create_timer(0.5, self._check_worker)

    def _on_status(self, msg: NodeStatus) -> None:
        if msg.node == self.p.wait_for_node and msg.state == NodeStatus.STATE_READY:
            self._ready_seen.set()

    def _check_worker(self) -> None:
        # A failure in the decode thread must end the node with an error, so the supervisor reports it.
        if self.failure is not None:
            raise RuntimeError(f"camera failed: {self.failure}") from self.failure

    def destroy_node(self) -> None:
        self._stop.set()
        self._worker.join(timeout=2.0)
        super().destroy_node()

    def _status(self, state: str, message: str) -> None:
        msg = NodeStatus(node=self.get_name(), state=state, message=message)
        msg.header.stamp = self.get_clock().now().to_msg()
        self.status_pub.publish(msg)

    def _run(self) -> None:
        try:
            time.sleep(self.p.start_delay_s)
            if self.p.wait_for_node and not self._ready_seen.wait(self.p.wait_timeout_s):
                self.get_logger().warning(f"camera: {self.p.wait_for_node} not ready after {self.p.wait_timeout_s} s; "
                                          "playing anyway")
            self._status(NodeStatus.STATE_READY, f"source={self.p.source}")
            while not self._stop.is_set():
                if self.p.source == "usb":
                    self._play_usb()
                else:
                    for video in self.p.videos:
                        if self._stop.is_set():
                            break
                        self._play_video(Path(video))
                if not self.p.loop:
                    break
            self._status(NodeStatus.STATE_DONE, f"published {self.frames_sent} frames")
            self.get_logger().info(f"camera done: {self.frames_sent} frames")
        except BaseException as exc:  # reported by _check_worker on the executor thread
            self.failure = exc

    def _image(self, rgb: np.ndarray, stamp: Any) -> Image:
        rgb = np.ascontiguousarray(_resize(rgb, self.p.max_side))
        msg = Image(height=rgb.shape[0], width=rgb.shape[1], encoding="rgb8", is_bigendian=0, step=rgb.shape[1] * 3)
        msg.header.stamp = stamp
        msg.header.frame_id = self.p.frame_id
        msg.data = rgb.tobytes()
        return msg

    def _episode(self, video_id: str, event: str, origin: Any, duration: float = 0.0, frames: int = 0) -> None:
        msg = EpisodeEvent(participant_id=self.p.participant_id, video_id=video_id, event=event,
                           stamp_origin=origin, duration_s=duration, frames=frames)
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.header.frame_id = self.p.frame_id
        self.episode_pub.publish(msg)

    def _play_video(self, path: Path) -> None:
        import av

        video_id = path.stem
        origin = self.get_clock().now().to_msg()
        if self._stamps_end is not None and stamp_diff(self._stamps_end, origin) > 0:
            # played faster than real time, the episode before stamped its frames past now: this one starts after
            # them, so no frame's stamp falls in two episodes (consumers place frames by stamp, and a late frame of
            # the one before would otherwise land in this one)
            origin = self._stamps_end
        wall0 = time.monotonic()
        self._episode(video_id, EpisodeEvent.EVENT_START, origin)
        period = 1.0 / self.p.fps
        next_t, sent, last_t = 0.0, 0, 0.0
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            for frame in container.decode(stream):
                if self._stop.is_set():
                    break
                if frame.time is None:
                    continue
                t = float(frame.time)
                last_t = t
                if t + 1e-6 < next_t:
                    continue  # rate limit: only frames on the publish grid are converted at all
                next_t = t + period
                if self.p.speed > 0:
                    lag = wall0 + t / self.p.speed - time.monotonic()
                    if lag > 0:
                        self._stop.wait(lag)
                else:
                    self._stop.wait(period)
                self.image_pub.publish(self._image(frame.to_ndarray(format="rgb24"), stamp_add(origin, t)))
                sent += 1
        self.frames_sent += sent
        self._stamps_end = stamp_add(origin, last_t + period)
        self._episode(video_id, EpisodeEvent.EVENT_END, origin, duration=last_t, frames=sent)
        self.get_logger().info(f"episode {video_id}: {sent} frames over {last_t:.1f} s of video")

    def _play_usb(self) -> None:
        import cv2

        cap = cv2.VideoCapture(self.p.device)
        if not cap.isOpened():
            raise RuntimeError(f"cannot open USB camera {self.p.device}")
        origin = self.get_clock().now().to_msg()
        video_id = f"usb{self.p.device}_{origin.sec}"
        self._episode(video_id, EpisodeEvent.EVENT_START, origin)
        t0, sent = time.monotonic(), 0
        try:
            while not self._stop.is_set():
                ok, bgr = cap.read()
                if not ok:
                    raise RuntimeError(f"USB camera {self.p.device} stopped delivering frames")
                t = time.monotonic() - t0
                self.image_pub.publish(self._image(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), stamp_add(origin, t)))
                sent += 1
                self._stop.wait(1.0 / self.p.fps)
        finally:
            cap.release()
            self.frames_sent += sent
            self._episode(video_id, EpisodeEvent.EVENT_END, origin, duration=time.monotonic() - t0, frames=sent)


def main(argv: list[str] | None = None) -> int:
    return run_node(CameraNode, argv)


if __name__ == "__main__":
    sys.exit(main())
