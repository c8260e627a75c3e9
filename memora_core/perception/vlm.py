"""`vlm` perception: a vision-language model behind an OpenAI-compatible chat API (e.g. vLLM serving
Qwen2.5-VL-7B-Instruct). Frames go as base64 JPEG images plus the transcript; the reply must be JSON,
and is validated into `SegmentObservation`. Transport errors and invalid replies are retried a bounded
number of times with exponential backoff; an unreachable server raises `PerceptionError` naming the URL.
"""
from __future__ import annotations

import base64
import logging
import os
import time
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memora_core.perception.base import (
    PerceptionBackend,
    PerceptionConfig,
    PerceptionError,
    PerceptionInput,
    register_backend,
)
from memora_core.llm.parsing.jsontext import FAIL, first_json_value
from memora_core.llm.parsing.limits import ParseBudget, ParseFailure, ParseTimeout, ReplyParseError
from memora_core.schemas import ActionObservation, ObjectObservation, SegmentObservation

log = logging.getLogger(__name__)

SYSTEM_PROMPT = (
    "You watch frames from a head-mounted camera in a kitchen and report what is visible and done. "
    "Reply with ONE JSON object and nothing else, of the form "
    '{"summary": str, "objects": [{"name": str, "category": str|null, "colour": str|null, '
    '"material": str|null, "label": str|null, "location": str|null, "state": str|null, '
    '"confidence": number}], "actions": [{"verb": str, "nouns": [str], "start_s": number, '
    '"end_s": number, "text": str}]}. '
    "List every distinct object you can see once. Use null for any attribute you cannot see; never guess "
    "colours, materials or labels. Times are seconds within the video."
)


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _VlmObject(_Lenient):
    name: str
    category: str | None = None
    colour: str | None = None
    material: str | None = None
    label: str | None = None
    location: str | None = None
    state: str | None = None
    confidence: float | None = 1.0  # null (also what NaN/Infinity parse to) reads as the default


class _VlmAction(_Lenient):
    verb: str
    nouns: list[str] = Field(default_factory=list)
    start_s: float | None = None
    end_s: float | None = None
    text: str = ""


class _VlmReply(_Lenient):
    """The reply's shape; each object and action is validated on its own (an invalid one is skipped)."""

    summary: str = ""
    objects: list[Any] = Field(default_factory=list)
    actions: list[Any] = Field(default_factory=list)


def _valid(what: str, build: Any, *args: Any, **kwargs: Any) -> Any:
    """`build(*args, **kwargs)` or, when it fails validation, None (logged): one bad item does not cost
    the reply."""
    try:
        return build(*args, **kwargs)
    except ValidationError as exc:
        log.warning("VLM reply: skipped an invalid %s: %s", what, str(exc).splitlines()[0][:160])
        return None


def extract_json_object(text: Any, budget: ParseBudget | None = None) -> Any:
    """The first JSON value of a model reply (bare, fenced, or an object embedded in prose). Linear, depth-
    bounded and sanitised (memora_core.llm.parsing); raises ReplyParseError (a ValueError) with a typed
    `failure` when there is none, the JSON is too deep, or the parse ran past the budget's deadline."""
    budget = budget if budget is not None else ParseBudget()
    try:
        value = first_json_value(text, budget)
    except ParseTimeout:
        raise ReplyParseError(ParseFailure.TIMEOUT) from None
    if value is FAIL:
        failure = next((f for f in (ParseFailure.NOT_TEXT, ParseFailure.TOO_DEEP) if f in budget.failures),
                       ParseFailure.NO_JSON)
        raise ReplyParseError(failure, repr(text[:200]) if isinstance(text, str) else type(text).__name__)
    return value


def encode_jpeg(frame: np.ndarray, max_side: int, quality: int) -> str:
    import cv2

    h, w = frame.shape[:2]
    if max(h, w) > max_side:
        scale = max_side / max(h, w)
        frame = cv2.resize(frame, (max(1, int(w * scale)), max(1, int(h * scale))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(frame, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise PerceptionError("JPEG encoding failed")
    return base64.b64encode(buf.tobytes()).decode("ascii")


class VlmPerception(PerceptionBackend):
    name = "vlm"

    def __init__(self, config: PerceptionConfig, client: Any | None = None) -> None:
        self.cfg = config.vlm
        if client is None:
            from openai import OpenAI

            # our own retry loop (below) owns backoff and the error message, so the client's is off
            client = OpenAI(base_url=self.cfg.base_url, api_key=os.environ.get(self.cfg.api_key_env, "EMPTY"),
                            timeout=self.cfg.timeout_s, max_retries=0)
        self.client = client

    def build_messages(self, item: PerceptionInput) -> list[dict[str, Any]]:
        seg = item.segment
        frames = item.frames
        times = list(seg.frame_times_s)
        if len(frames) > self.cfg.max_images:  # spread the image budget over the whole segment
            pick = [int(i * len(frames) / self.cfg.max_images) for i in range(self.cfg.max_images)]
            frames = [frames[i] for i in pick]
            times = [times[i] for i in pick] if len(times) == len(item.frames) else []
        text = (f"Video {seg.video_id}, segment {seg.index}, from {seg.start_s:.1f}s to {seg.end_s:.1f}s. "
                f"{len(frames)} frames follow in time order"
                + (f" at {', '.join(f'{t:.1f}s' for t in times)}" if times else "") + ". "
                + (f"Transcript: {seg.transcript}" if seg.transcript else "No speech transcript."))
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        for frame in frames:
            b64 = encode_jpeg(frame, self.cfg.image_max_side, self.cfg.jpeg_quality)
            content.append({"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{b64}"}})
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": content}]

    def observe(self, item: PerceptionInput) -> SegmentObservation:
        import openai

        messages = self.build_messages(item)
        delay = self.cfg.backoff_s
        last_error = ""
        for attempt in range(1, self.cfg.max_attempts + 1):
            try:
                resp = self.client.chat.completions.create(
                    model=self.cfg.model, messages=messages, temperature=self.cfg.temperature,
                    max_tokens=self.cfg.max_tokens, response_format={"type": "json_object"})
                text = resp.choices[0].message.content or ""
                return self._parse(item, text)
            except (openai.APIConnectionError, openai.APITimeoutError) as exc:
                last_error = f"server unreachable ({type(exc).__name__}: {exc})"
            except openai.APIStatusError as exc:
                if exc.status_code < 500 and exc.status_code != 429:
                    raise PerceptionError(f"VLM at {self.cfg.base_url} rejected the request "
                                          f"(HTTP {exc.status_code}): {exc.message}") from exc
                last_error = f"HTTP {exc.status_code}"
            except (ValueError, ValidationError) as exc:
                last_error = f"invalid reply: {exc}"
            log.warning("VLM %s attempt %d/%d failed: %s", self.cfg.base_url, attempt, self.cfg.max_attempts,
                        last_error)
            if attempt < self.cfg.max_attempts:
                time.sleep(delay)
                delay *= self.cfg.backoff_factor
        raise PerceptionError(f"VLM at {self.cfg.base_url} failed after {self.cfg.max_attempts} attempts: "
                              f"{last_error}")

    def _parse(self, item: PerceptionInput, text: str) -> SegmentObservation:
        raw = extract_json_object(text)  # sanitised JSON (strings cleaned and capped): see llm.parsing
        if not isinstance(raw, dict):
            raise ReplyParseError(ParseFailure.NOT_OBJECT, type(raw).__name__)
        reply = _VlmReply.model_validate(raw)
        seg = item.segment
        objects: dict[str, ObjectObservation] = {}
        for raw_obj in reply.objects:
            o = _valid("object", _VlmObject.model_validate, raw_obj)
            if o is None or not o.name.strip():
                continue
            obs = _valid(
                "object", ObjectObservation, name=o.name, category=_clean(o.category), colour=_clean(o.colour),
                material=_clean(o.material), label=_clean(o.label), location=_clean(o.location),
                state=_clean(o.state), confidence=1.0 if o.confidence is None else min(1.0, max(0.0, o.confidence)))
            if obs is not None:
                objects.setdefault(obs.name, obs)  # one observation per object name per segment
        actions = []
        for raw_act in reply.actions:
            a = _valid("action", _VlmAction.model_validate, raw_act)
            if a is None or not a.verb.strip():
                continue
            start = _clamp(a.start_s, seg.start_s, seg.end_s, seg.start_s)
            end = max(start, _clamp(a.end_s, seg.start_s, seg.end_s, seg.end_s))
            act = _valid("action", ActionObservation, verb=a.verb.strip().lower(),
                         nouns=[n for n in a.nouns if n.strip()], start_s=start, end_s=end, text=a.text)
            if act is not None:
                actions.append(act)
        return SegmentObservation(segment=seg, objects=list(objects.values()), actions=actions,
                                  summary=reply.summary.strip(), backend=self.name)


def _clean(value: str | None) -> str | None:
    if value is None:
        return None
    value = str(value).strip()
    return None if value.lower() in ("", "null", "none", "unknown", "n/a") else value.lower()


def _clamp(value: float | None, lo: float, hi: float, default: float) -> float:
    return default if value is None else min(hi, max(lo, float(value)))


register_backend("vlm", VlmPerception)
