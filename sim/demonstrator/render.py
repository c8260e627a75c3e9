"""Render demonstrations: expand a routine for one session (seeded variation), perform it, and write
the mp4, the ground-truth event log, the state trace and the metadata.

    session = render_session("task_a_drink", seed=0, session=1, out_dir=Path("runs/demos"))

Variation between sessions of the same routine and seed: a different seeded layout (distractors in
other places), blocks marked `any_order` permuted, optional blocks included with their probability,
durations jittered, idle glances and head sway. The same (routine, seed, session) is rendered the same."""
from __future__ import annotations

import hashlib
import logging
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from memora_core.config import CONFIG_DIR
from sim.demonstrator.config import RenderConfig, RoutineConfig, Step, load_render_config, load_routine
from sim.demonstrator.performer import DemoError, Performer
from sim.demonstrator.trace import DemoMeta, DemoSession, EventLog, Utterance
from sim.scene import load_scene_config, sample_layout
from sim.scene.config import SceneConfig
from sim.scene.layout import Layout

log = logging.getLogger(__name__)


def session_rng(routine: str, seed: int, session: int) -> np.random.Generator:
    # crc32 rather than hash(): Python salts str hashes per process, which would break determinism
    return np.random.default_rng([seed, session, zlib.crc32(routine.encode())])


def video_id_for(routine: str, seed: int, session: int) -> str:
    return f"{routine}-seed{seed}-s{session:02d}"


def draw_layout(scene: SceneConfig, rng: np.random.Generator, attempts: int = 50) -> Layout:
    """A seeded layout; a seed whose random placement does not fit is followed by the next draw."""
    last: Exception | None = None
    for _ in range(attempts):
        try:
            return sample_layout(scene, int(rng.integers(2**31 - 1)))
        except ValueError as exc:  # sample_layout: no free slot for some object
            last = exc
    raise DemoError(f"no layout fits after {attempts} draws: {last}")


def expand_steps(routine: RoutineConfig, rng: np.random.Generator) -> list[Step]:
    """The steps of one session: optional blocks drawn, any-order blocks permuted."""
    steps: list[Step] = []
    for item in routine.sequence:
        if item.p < 1.0 and rng.random() >= item.p:
            continue
        steps.extend(item.steps)
        for i in rng.permutation(len(item.any_order)):
            steps.extend(item.any_order[int(i)])
    return steps


def check_steps(steps: list[Step], scene: SceneConfig) -> None:
    """One hand: pick needs it empty, put/pour need it holding that object; names must exist."""
    held: str | None = None
    names = {o.name for o in scene.objects}
    for s in steps:
        for n in (s.object, s.target if s.target != "table" else None):
            if n is not None and n not in names:
                raise DemoError(f"step {s.do}: unknown object {n!r} (scene {scene.name})")
        if s.do == "pick":
            if held is not None:
                raise DemoError(f"pick {s.object} while holding {held}")
            held = s.object
        elif s.do in ("put", "pour"):
            if held != s.object:
                raise DemoError(f"{s.do} {s.object} while holding {held}")
            if s.do == "put":
                held = None
    if held is not None:
        raise DemoError(f"the routine ends holding {held}")


def describe(step: Step) -> str:
    parts = [step.do, step.object or ""]
    if step.target:
        parts += ["into" if step.do == "pour" else ("on" if step.target == "table" else "in"), step.target]
    return " ".join(p for p in parts if p)


class Mp4Writer:
    """PyAV H.264 (or the configured codec) writer fed RGB frames."""

    def __init__(self, path: Path, width: int, height: int, fps: float, codec: str, crf: int, preset: str) -> None:
        import av
        from fractions import Fraction

        self._av = av
        self.container = av.open(str(path), mode="w")
        rate = Fraction(fps).limit_denominator(1000)
        self.stream = self.container.add_stream(codec, rate=rate)
        self.stream.width, self.stream.height = width, height
        self.stream.pix_fmt = "yuv420p"
        if codec in ("libx264", "h264"):
            # one thread: the bench measures one core. The bitstream still differed now and then for the same
            # frames (4 of 16 encodes in one trial here, 2026-12-02): byte-identical videos need crf 0 (lossless)
            self.stream.options = {"crf": str(crf), "preset": preset, "threads": "1"}
        self.frames = 0
        self._digest = hashlib.sha256()

    def __call__(self, frame: np.ndarray) -> None:
        self._digest.update(frame.tobytes())
        vf = self._av.VideoFrame.from_ndarray(frame, format="rgb24")
        for packet in self.stream.encode(vf):
            self.container.mux(packet)
        self.frames += 1

    @property
    def digest(self) -> str:
        return self._digest.hexdigest()

    def close(self) -> None:
        for packet in self.stream.encode():
            self.container.mux(packet)
        self.container.close()


def render_session(routine: str | RoutineConfig, seed: int, session: int, out_dir: Path,
                   cfg: RenderConfig | None = None, pad_to_s: float = 0.0,
                   progress: Callable[[float], None] | None = None) -> DemoSession:
    """Perform and film one session; returns the files written (the mp4 is complete when this returns)."""
    routine = routine if isinstance(routine, RoutineConfig) else load_routine(routine)
    cfg = cfg or load_render_config()
    scene = load_scene_config(CONFIG_DIR / "scenes" / f"{routine.scene}.yaml")
    rng = session_rng(routine.name, seed, session)
    layout = draw_layout(scene, rng)
    steps = expand_steps(routine, rng)
    check_steps(steps, scene)
    vid = video_id_for(routine.name, seed, session)
    out_dir.mkdir(parents=True, exist_ok=True)
    result = DemoSession(out_dir, vid)
    tmp_video = out_dir / f".{vid}.partial.mp4"
    v = cfg.video
    writer = Mp4Writer(tmp_video, v.width, v.height, v.fps, v.codec, v.crf, v.preset)
    perf = Performer(scene, layout, cfg, rng, sink=writer)
    try:
        perf.look_around(float(rng.uniform(*routine.idle_start_s)))
        speech = []
        if routine.announce:
            # the person says what they are about to do, then starts (the choice is by session, not the rng,
            # so layouts and step orders stay those of the silent routine)
            text = routine.announce[session % len(routine.announce)]
            start = perf.t
            perf.hold(len(text.split()) / routine.words_per_s)
            speech.append(Utterance(text=text, start_s=round(start, 4), end_s=round(perf.t, 4)))
        for i, step in enumerate(steps):
            perf.do(step)
            if step.do == "put":
                perf.rest()
            perf.pause()
            if progress:
                progress((i + 1) / max(1, len(steps)))
        perf.rest()
        perf.look_around(float(rng.uniform(*routine.idle_end_s)))
        if pad_to_s > perf.t:
            perf.look_around(pad_to_s - perf.t)
        trace = perf.trace()
    finally:
        perf.close()
        writer.close()
    trace.save(result.trace_path)
    duration = writer.frames / v.fps
    result.events_path.write_text(EventLog(video_id=vid, routine=routine.name, session=session, seed=seed,
                                           duration_s=duration, events=perf.events).model_dump_json(indent=1))
    meta = DemoMeta(video_id=vid, routine=routine.name, scene=routine.scene, session=session, seed=seed,
                    layout=layout, objects=perf.names, fps=v.fps, width=v.width, height=v.height,
                    fovy_deg=cfg.head.fovy_deg, frames=writer.frames, duration_s=duration,
                    frame_digest=writer.digest, steps=[describe(s) for s in steps], speech=speech)
    tmp_video.replace(result.video)
    # meta last: its presence marks a complete session (find_sessions, resume)
    result.meta_path.write_text(meta.model_dump_json(indent=1))
    log.info("rendered %s: %d frames, %.1fs, %d events", vid, writer.frames, duration, len(perf.events))
    return result
