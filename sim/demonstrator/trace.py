"""What a rendered demonstration leaves on disk, next to its mp4:

- `<video_id>.events.json`: the ground-truth event log (pick/put/pour with objects, targets and times),
  written by the demonstrator from what it did — never derived from the trace, so perception can be
  checked against it;
- `<video_id>.trace.npz`: the per-frame simulator state (object poses, the object welded to the hand,
  hand and head poses), so any segment of the video can be perceived again later;
- `<video_id>.meta.json`: routine, seed, session, layout and video settings (enough to rebuild the scene).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from sim.scene.layout import Layout


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DemoEvent(_Model):
    index: int = Field(ge=0)
    kind: Literal["pick", "put", "pour"]
    object: str                      # canonical scene name of the object moved
    object_body: str
    target: str | None = None        # container name or 'table' (put), container (pour)
    start_s: float = Field(ge=0)
    end_s: float = Field(ge=0)
    key_s: float = Field(ge=0)       # grasp (pick), release (put), deepest tilt (pour)


class Utterance(_Model):
    """Something the person said while demonstrating (the audio a microphone would have picked up)."""

    text: str = Field(min_length=1)
    start_s: float = Field(ge=0)
    end_s: float = Field(ge=0)


class EventLog(_Model):
    video_id: str
    routine: str
    session: int
    seed: int
    duration_s: float
    events: list[DemoEvent] = Field(default_factory=list)


class DemoMeta(_Model):
    video_id: str
    routine: str
    scene: str
    session: int
    seed: int
    layout: Layout
    objects: list[str]               # trace column order
    fps: float
    width: int
    height: int
    fovy_deg: float
    frames: int
    duration_s: float
    frame_digest: str                # sha256 over the rendered RGB frames (determinism check)
    steps: list[str]                 # the session's expanded step list, e.g. 'pick coca-cola bottle'
    speech: list[Utterance] = Field(default_factory=list)  # what the person said, with times


@dataclass
class DemoTrace:
    """Per video frame k (time t[k]): poses of every object, the welded object (-1: none), hand, head."""

    t: np.ndarray            # (F,)
    obj_pos: np.ndarray      # (F, N, 3)
    obj_quat: np.ndarray     # (F, N, 4) wxyz
    attached: np.ndarray     # (F,) int, index into DemoMeta.objects or -1
    hand_pos: np.ndarray     # (F, 3)
    hand_quat: np.ndarray    # (F, 4)
    head_pos: np.ndarray     # (F, 3)
    head_quat: np.ndarray    # (F, 4)

    def save(self, path: Path) -> None:
        np.savez_compressed(path, **{k: getattr(self, k) for k in self.__dataclass_fields__})

    @classmethod
    def load(cls, path: Path) -> "DemoTrace":
        with np.load(path) as z:
            missing = [k for k in cls.__dataclass_fields__ if k not in z]
            if missing:
                raise ValueError(f"{path}: trace lacks {missing}")
            trace = cls(**{k: z[k] for k in cls.__dataclass_fields__})
        n = len(trace.t)
        if any(len(getattr(trace, k)) != n for k in cls.__dataclass_fields__):
            raise ValueError(f"{path}: trace arrays differ in length")
        return trace

    def index_at(self, t_s: float) -> int:
        """The frame nearest to time t (clamped to the trace)."""
        i = int(np.searchsorted(self.t, t_s))
        if i <= 0:
            return 0
        if i >= len(self.t):
            return len(self.t) - 1
        return i if abs(self.t[i] - t_s) < abs(self.t[i - 1] - t_s) else i - 1


@dataclass
class DemoSession:
    """The files of one rendered demonstration."""

    directory: Path
    video_id: str

    @property
    def video(self) -> Path:
        return self.directory / f"{self.video_id}.mp4"

    @property
    def events_path(self) -> Path:
        return self.directory / f"{self.video_id}.events.json"

    @property
    def trace_path(self) -> Path:
        return self.directory / f"{self.video_id}.trace.npz"

    @property
    def meta_path(self) -> Path:
        return self.directory / f"{self.video_id}.meta.json"

    def meta(self) -> DemoMeta:
        return DemoMeta.model_validate_json(self.meta_path.read_text())

    def events(self) -> EventLog:
        return EventLog.model_validate_json(self.events_path.read_text())

    def trace(self) -> DemoTrace:
        return DemoTrace.load(self.trace_path)

    def complete(self) -> bool:
        return all(p.exists() for p in (self.video, self.events_path, self.trace_path, self.meta_path))

    @classmethod
    def from_meta_path(cls, path: Path | str) -> "DemoSession":
        path = Path(path)
        return cls(path.parent, path.name[: -len(".meta.json")])


def find_sessions(root: Path | str) -> list[DemoSession]:
    """Every complete demonstration under `root` (recursively), in name order."""
    sessions = [DemoSession.from_meta_path(p) for p in sorted(Path(root).rglob("*.meta.json"))]
    return [s for s in sessions if s.complete()]
