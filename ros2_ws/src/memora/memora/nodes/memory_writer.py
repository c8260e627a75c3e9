"""Memory writer node: the camera's image stream + episode events -> segments -> perception -> online editor
-> one store transaction per segment -> a MemoryEvent per segment. The ONLY process that writes the store.

Segmentation follows memora_core.ingest.segments (the grid every ingest source shares): a segment is closed
once the stream is past its end by `min_tail_s` (so a short tail can never fold into a segment already
written), and the rest of an episode is closed at its end event. Work runs on one worker thread, so the
executor stays free for incoming images and for QueryMemory, which reads the same store.

Shutdown (SIGINT/SIGTERM) is quick: the worker stops at the next segment boundary instead of draining its
queue, waits at most `stop_wait_s` for a segment in flight to commit (one transaction: it is committed, or the
next run redoes it, as after a crash), and the process leaves without Python's own teardown, which spends
seconds garbage-collecting torch and sentence-transformers.
"""
from __future__ import annotations

import json
import logging
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import Image

from memora.common import declare_params, exit_without_teardown, run_node, shutdown_log, stamp_diff
from memora_interfaces.msg import EditDecision as EditDecisionMsg
from memora_interfaces.msg import EpisodeEvent, MemoryEvent, NodeStatus
from memora_interfaces.srv import Consolidate, QueryMemory


class WriterParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    store_dir: str = Field(default="runs/demo/memory", description="memory store directory (created)")
    perception_backend: str = Field(default="", description="perception backend; empty = perception.yaml")
    perception_plugin: str = Field(default="", description="module imported first (it may register a backend)")
    perception_options_json: str = Field(default="", description="JSON merged into PerceptionConfig.options")
    decider: str = Field(default="", description="editor decider; empty = editor.yaml")
    vectors: str = Field(default="", description="vector index backend override (e.g. none); empty = memora.yaml")
    image_topic: str = "/memora/camera/image"
    episode_topic: str = "/memora/camera/episode"
    event_topic: str = "/memora/memory_event"
    query_service: str = "/memora/query_memory"
    written_topic: str = Field(default="/memora/memory/episode", description="EpisodeEvent 'end' once an episode is in the store")
    consolidate_service: str = Field(default="/memora/memory_writer/consolidate",
                                     description="runs consolidation here, so the store keeps one writer")
    status_topic: str = "/memora/status"
    max_buffered_frames: int = Field(default=2000, ge=10, description="frames kept per open episode")
    end_grace_s: float = Field(default=0.5, ge=0, description="wait for late images after an episode's end")
    max_orphan_frames: int = Field(default=60, ge=0, description="frames kept while their episode start is due")
    stop_wait_s: float = Field(default=1.0, ge=0, description="on shutdown, wait this long for a segment in flight "
                               "to commit; past it the process exits without it and the next run redoes it")


@dataclass
class _Episode:
    participant_id: str
    video_id: str
    origin: Any  # builtin_interfaces/Time
    frames: list[tuple[float, np.ndarray]] = field(default_factory=list)
    next_index: int = 0  # first segment index not yet written
    ended: bool = False
    duration_s: float = 0.0
    end_wall: float = 0.0  # monotonic time the end event arrived


def _image_to_rgb(msg: Image) -> np.ndarray:
    if msg.encoding not in ("rgb8", "bgr8"):
        raise ValueError(f"unsupported image encoding {msg.encoding!r} (rgb8 / bgr8)")
    arr = np.frombuffer(bytes(msg.data), np.uint8).reshape(msg.height, msg.step // 3, 3)[:, : msg.width]
    return arr[..., ::-1].copy() if msg.encoding == "bgr8" else arr.copy()


def decision_to_msg(d: Any) -> EditDecisionMsg:
    dump = lambda v: json.dumps(v, default=str) if v else ""  # noqa: E731
    return EditDecisionMsg(op=d.op.value, observed_name=getattr(d, "observed_name", "") or "",
                           target_entity_id=d.target_entity_id or "", reason=d.reason or "",
                           before_json=dump(getattr(d, "before", None)), after_json=dump(getattr(d, "after", None)),
                           converted_from=d.converted_from.value if d.converted_from else "")


class MemoryWriterNode(Node):
    def __init__(self) -> None:
        super().__init__("memory_writer")
        self.p: WriterParams = declare_params(self, WriterParams)
        self.get_logger().info(f"memory writer loading: {self.p.store_dir} (perception, editor, embedder)")
        self.writer, self.store, self.segmenting = self._build()
        self.episodes: dict[str, _Episode] = {}
        self._orphans: list[tuple[Any, np.ndarray]] = []
        self._lock = threading.Lock()  # the open episodes and their frame buffers
        self._store_lock = threading.Lock()  # one store write at a time (segments, consolidation)
        self._work: queue.Queue = queue.Queue()
        self._stop = threading.Event()  # shutting down: no new segment is started
        self.failure: BaseException | None = None
        self.segments_written = 0
        group = ReentrantCallbackGroup()
        latched = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.event_pub = self.create_publisher(MemoryEvent, self.p.event_topic, latched)
        self.status_pub = self.create_publisher(NodeStatus, self.p.status_topic, latched)
        self.create_subscription(Image, self.p.image_topic, self._on_image,
                                 QoSProfile(depth=50, reliability=qos_profile_sensor_data.reliability),
                                 callback_group=group)
        self.create_subscription(EpisodeEvent, self.p.episode_topic, self._on_episode, latched, callback_group=group)
        self.written_pub = self.create_publisher(EpisodeEvent, self.p.written_topic, latched)
        self.create_service(QueryMemory, self.p.query_service, self._on_query, callback_group=group)
        self.create_service(Consolidate, self.p.consolidate_service, self._on_consolidate, callback_group=group)
        self._worker = threading.Thread(target=self._run, daemon=True)
        self._worker.start()
        self.create_timer(0.5, self._check_worker)
        self._status(NodeStatus.STATE_READY, f"store={self.p.store_dir} perception={self.writer.perception.name}")
        self.get_logger().info(f"memory writer ready: {self.p.store_dir} ({self.writer.perception.name})")

    # ------------------------------------------------------------------ setup
    def _build(self) -> tuple[Any, Any, Any]:
        from memora_core.config import load_config
        from memora_core.editing import MemoryWriter, load_editor_config, make_decider
        from memora_core.perception import load_perception_config, make_perception
        from memora_core.store import MemoryStore

        if self.p.perception_plugin:
            import importlib

            importlib.import_module(self.p.perception_plugin)
        core = load_config()
        if self.p.vectors:
            store_cfg = core.store.model_copy(update={"vectors": core.store.vectors.model_copy(
                update={"backend": self.p.vectors})})
            core = core.model_copy(update={"store": store_cfg})
        pcfg = load_perception_config(backend=self.p.perception_backend or None)
        if self.p.perception_options_json:
            pcfg = pcfg.model_copy(update={"options": {**pcfg.options, **json.loads(self.p.perception_options_json)}})
        ecfg = load_editor_config(decider=self.p.decider or None)
        if core.store.vectors.backend == "none" and ecfg.candidates.embedder == "store":
            # no vector index: the editor's name matcher need not load MiniLM either
            ecfg = ecfg.model_copy(update={"candidates": ecfg.candidates.model_copy(update={"embedder": "hashing"})})
        store = MemoryStore.open(self.p.store_dir, core)
        return MemoryWriter(store, make_perception(pcfg), make_decider(ecfg), config=ecfg), store, core.segmenting

    def destroy_node(self) -> None:
        self._stop.set()
        self._work.put(None)
        deadline = time.monotonic() + self.p.stop_wait_s
        self._worker.join(timeout=self.p.stop_wait_s)
        # A consolidation request still running on the executor holds the store lock too.
        idle = not self._worker.is_alive() and self._store_lock.acquire(timeout=max(0.0, deadline - time.monotonic()))
        if idle:
            try:
                self.writer.flush()
                self.store.close()
            finally:
                self._store_lock.release()
        else:
            shutdown_log(self, f"stopping with a store write in flight after {self.p.stop_wait_s} s: it is not "
                               "committed, and the next run redoes it", logging.WARNING)
        super().destroy_node()

    def _status(self, state: str, message: str) -> None:
        msg = NodeStatus(node=self.get_name(), state=state, message=message)
        msg.header.stamp = self.get_clock().now().to_msg()
        self.status_pub.publish(msg)

    def _check_worker(self) -> None:
        if self.failure is not None:
            raise RuntimeError(f"memory writer failed: {self.failure}") from self.failure

    # ------------------------------------------------------------------ stream
    def _on_episode(self, msg: EpisodeEvent) -> None:
        with self._lock:
            if msg.event == EpisodeEvent.EVENT_START:
                ep = _Episode(msg.participant_id, msg.video_id, msg.stamp_origin)
                self.episodes[msg.video_id] = ep
                # images and episode events travel on different topics: frames that overtook the start
                # event belong to this episode when they are stamped after its origin
                keep = []
                for stamp, rgb in self._orphans:
                    t = stamp_diff(stamp, ep.origin)
                    (ep.frames.append((t, rgb)) if t >= -1e-6 else keep.append((stamp, rgb)))
                self._orphans = keep
            elif msg.event == EpisodeEvent.EVENT_END:
                ep = self.episodes.get(msg.video_id)
                if ep is None:
                    self.get_logger().warning(f"end of unknown episode {msg.video_id}")
                    return
                ep.ended, ep.duration_s = True, float(msg.duration_s)
                ep.end_wall = time.monotonic()
        self._work.put(msg.video_id)

    def _episode_for(self, msg: Image) -> tuple[_Episode, float] | None:
        best = None
        for ep in self.episodes.values():
            t = stamp_diff(msg.header.stamp, ep.origin)
            if t >= -1e-6 and (best is None or t < best[1]):
                best = (ep, max(0.0, t))
        return best

    def _on_image(self, msg: Image) -> None:
        with self._lock:
            found = self._episode_for(msg)
            if found is None:
                # no episode yet: kept a while in case its start event is still on the way
                self._orphans = (self._orphans + [(msg.header.stamp, _image_to_rgb(msg))])[-self.p.max_orphan_frames:]
                return
            ep, t = found
            if len(ep.frames) >= self.p.max_buffered_frames:
                ep.frames.pop(0)
            ep.frames.append((t, _image_to_rgb(msg)))
        self._work.put(ep.video_id)

    # ------------------------------------------------------------------ work
    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                video_id = self._work.get()
                if video_id is None:
                    break
                self._advance(video_id)
            # GL contexts (sim perception renders) belong to this thread: release them here
            self.writer.perception.close()
        except BaseException as exc:  # surfaced by _check_worker on the executor
            self.failure = exc

    def _advance(self, video_id: str) -> None:
        from memora_core.ingest.segments import plan_segments

        cfg = self.segmenting
        with self._lock:
            ep = self.episodes.get(video_id)
            wait = ep.end_wall + self.p.end_grace_s - time.monotonic() if ep is not None and ep.ended else 0.0
        if wait > 0 and self._stop.wait(wait):  # the last images may still be in flight on their own topic
            return
        with self._lock:
            ep = self.episodes.get(video_id)
            if ep is None or not ep.frames and not ep.ended:
                return
            latest = ep.frames[-1][0] if ep.frames else 0.0
            if ep.ended:
                duration = max(ep.duration_s, latest + 1.0 / cfg.fps)
                bounds = plan_segments(duration, cfg)[ep.next_index:]
            else:
                # closed: the stream is past the end by min_tail_s, so the tail rule cannot touch it
                n_closed = int((latest - cfg.min_tail_s) // cfg.segment_s) if latest > cfg.min_tail_s else 0
                bounds = [(i * cfg.segment_s, (i + 1) * cfg.segment_s) for i in range(ep.next_index, n_closed)]
            jobs = []
            for k, (t0, t1) in enumerate(bounds):
                index = ep.next_index + k
                frames = [(t, f) for t, f in ep.frames if t0 - 1e-6 <= t < t1 + (1e-6 if t1 < latest else 1e9)]
                jobs.append((index, t0, t1, frames))
            ep.next_index += len(bounds)
            if bounds:
                ep.frames = [(t, f) for t, f in ep.frames if t >= bounds[-1][1] - 1e-6]
            pid, done, origin, duration = ep.participant_id, ep.ended, ep.origin, ep.duration_s
        for index, t0, t1, frames in jobs:
            if self._stop.is_set():
                return  # not started, not committed: the next run writes it
            self._write_segment(pid, video_id, index, t0, t1, frames)
        if done:
            with self._lock:
                self.episodes.pop(video_id, None)
            with self._store_lock:
                self.writer.flush()
            msg = EpisodeEvent(participant_id=pid, video_id=video_id, event=EpisodeEvent.EVENT_END,
                               stamp_origin=origin, duration_s=duration, frames=0)
            msg.header.stamp = self.get_clock().now().to_msg()
            self.written_pub.publish(msg)
            self._status(NodeStatus.STATE_DONE, f"episode {video_id} written ({self.segments_written} segments in all)")

    def _write_segment(self, pid: str, video_id: str, index: int, t0: float, t1: float,
                       frames: list[tuple[float, np.ndarray]]) -> None:
        from memora_core.ingest.segments import sample_times
        from memora_core.perception import PerceptionInput
        from memora_core.schemas import Segment

        picked: list[tuple[float, np.ndarray]] = []
        for ts in sample_times(t0, t1, self.segmenting):
            if frames:
                near = min(frames, key=lambda f: abs(f[0] - ts))
                if not picked or picked[-1][0] != near[0]:
                    picked.append(near)
        seg = Segment(participant_id=pid, video_id=video_id, index=index, start_s=t0, end_s=t1,
                      frame_times_s=[round(t, 3) for t, _ in picked])
        if seg.segment_id in self.store.committed_segment_ids(pid):
            return  # written before (a replayed episode): memory is not doubled
        self._status(NodeStatus.STATE_BUSY, f"segment {seg.segment_id}")
        with self._store_lock:
            write = self.writer.process(PerceptionInput(segment=seg, frames=[f for _, f in picked]))
        self.segments_written += 1
        obs = write.observation
        msg = MemoryEvent(participant_id=pid, segment_id=seg.segment_id, video_id=video_id, start_s=t0, end_s=t1,
                          decisions=[decision_to_msg(d) for d in write.decisions], summary=write.activity.summary,
                          entity_ids=[e.entity_id for e in write.entities])
        msg.header.stamp = self.get_clock().now().to_msg()
        self.event_pub.publish(msg)
        self.get_logger().info(f"segment {seg.segment_id}: {len(obs.objects)} objects, "
                               f"{len(write.decisions)} decisions, {write.activity.summary[:80]!r}")

    def _on_consolidate(self, req: Consolidate.Request, resp: Consolidate.Response) -> Consolidate.Response:
        from memora_core.consolidation import consolidate

        try:
            with self._store_lock:  # never between a segment's plan and its commit
                self.writer.flush()
                routines, prefs = consolidate(self.store, req.participant_id)
        except Exception as exc:  # reported to the caller; the store is unchanged (one transaction)
            resp.ok, resp.message = False, f"consolidation failed: {exc}"
            return resp
        resp.ok = True
        resp.message = f"{len(routines)} routines, {len(prefs)} preferences"
        resp.report_json = json.dumps({"participant_id": req.participant_id,
                                       "routines": [r.model_dump(mode="json") for r in routines],
                                       "preferences": [p.model_dump(mode="json") for p in prefs]})
        return resp

    # ------------------------------------------------------------------ reads
    def _on_query(self, req: QueryMemory.Request, resp: QueryMemory.Response) -> QueryMemory.Response:
        from memora_core.tools.text import overlap

        pid = req.participant_id
        kinds = {QueryMemory.Request.KIND_OBJECTS: lambda: self.store.entities(pid),
                 QueryMemory.Request.KIND_ACTIVITIES: lambda: self.store.activities(pid),
                 QueryMemory.Request.KIND_ROUTINES: lambda: self.store.routines(pid),
                 QueryMemory.Request.KIND_PREFERENCES: lambda: self.store.preferences(pid)}
        if req.kind not in kinds:
            resp.ok, resp.message = False, f"unknown kind {req.kind!r}; expected one of {sorted(kinds)}"
            return resp
        records = kinds[req.kind]()
        if req.query.strip():
            scored = [(overlap(req.query, r.model_dump_json()), r) for r in records]
            records = [r for s, r in sorted(scored, key=lambda x: -x[0]) if s > 0]
        if req.top_k:
            records = records[: req.top_k]
        resp.ok, resp.message = True, f"{len(records)} {req.kind}"
        resp.results_json = json.dumps([r.model_dump(mode="json") for r in records])
        return resp


def main(argv: list[str] | None = None) -> int:
    # The store is closed by then (or left as a crash leaves it, see destroy_node): skip the seconds of teardown.
    exit_without_teardown(run_node(MemoryWriterNode, argv, threads=3))


if __name__ == "__main__":
    sys.exit(main())
