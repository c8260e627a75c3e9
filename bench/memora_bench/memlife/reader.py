"""MemLife readers: the deterministic CPU policy and the LLM agent, one interface (`answer`), one log
(`ReaderTrace`), the same tools (memlife/tools.py).

LLM reader protocol, per round: exactly one tool call, or a final answer. A reply with several calls, an unknown
tool, invalid arguments, or neither a call nor a clear letter is a parse failure: the trace stops, the question
scores wrong. At most `max_rounds` rounds; running out is no answer (wrong).
"""
from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from memora_core.llm.base import LLMBackend, ToolCall
from memora_core.llm.parsing import ParseBudget, bounded_reply, parse_answer, parse_tool_calls

from memora_bench.data import LETTERS, QaItem
from memora_bench.memlife.config import ReaderConfig
from memora_bench.memlife.index import MemLifeIndex
from memora_bench.memlife.tools import ReaderTools, ToolResult, VideoSource, render
from memora_bench.memlife.types import REPLY_LOG_CHARS, Interval, MemoryEntry, ReaderAction, ReaderTrace, Timeline
from memora_bench.memlife.writer import fill, load_prompt

TOOLS = ("SearchMemory", "FetchMemory", "FetchVideo", "Rewrite", "Answer")
_PID = re.compile(r"\bP\d{2,3}\b")
_RECENT = re.compile(r"\b(most recent(ly)?|last time|latest|recently)\b", re.I)
_FIRST = re.compile(r"\b(first time|earliest|very first)\b", re.I)
_VIDEO = re.compile(r"\bP\d{2,3}_\d{2,3}\b")


def normalise_letters(raw: Any) -> str | None:
    """'B', 'a, c', ['A','C'] -> sorted distinct letters ('B', 'AC'); None when any part is not A-E."""
    parts = raw if isinstance(raw, list) else re.split(r"[\s,;/&+]+|\band\b", str(raw)[:64])
    out = set()
    for p in parts:
        p = str(p).strip().strip("().").upper()
        if not p:
            continue
        if len(p) != 1 or p not in LETTERS:
            return None
        out.add(p)
    return "".join(sorted(out)) or None


class _Span(BaseModel):
    model_config = {"extra": "forbid"}
    start: float | None = Field(default=None, allow_inf_nan=False)
    end: float | None = Field(default=None, allow_inf_nan=False)

    def interval(self, question_time: float) -> Interval | None:
        if self.start is None and self.end is None:
            return None
        return Interval(start=self.start if self.start is not None else 0.0,
                        end=self.end if self.end is not None else question_time)


class SearchArgs(_Span):
    query: str = Field(min_length=1, max_length=500)


class IntervalArgs(_Span):
    start: float = Field(allow_inf_nan=False)
    end: float = Field(allow_inf_nan=False)


class RewriteArgs(BaseModel):
    model_config = {"extra": "forbid"}
    query: str = Field(min_length=1, max_length=500)


class AnswerArgs(BaseModel):
    model_config = {"extra": "forbid"}
    answer: str | list[str]


def question_text(item: QaItem) -> str:
    return item.question.strip()


def anchor(item: QaItem, timeline: Timeline | None) -> Interval | None:
    """Time anchoring from the question text: a named video, 'most recently' (the last video), 'the first
    time' (the first video); None (the whole past) otherwise."""
    if timeline is None or not timeline.videos:
        return None
    q = item.question
    m = _VIDEO.search(q)
    if m and m.group(0) in timeline.offsets:
        return timeline.video_interval(m.group(0))
    if _RECENT.search(q):
        return timeline.video_interval(timeline.videos[-1])
    if _FIRST.search(q):
        return timeline.video_interval(timeline.videos[0])
    return None


class DeterministicReader:
    """Search with the question (time-anchored), then once per choice; answer the choice with the best retrieved
    entry by mean similarity to the choice and to the question, or E below `answer_min_score`."""

    reader_id = "deterministic:v1"

    def __init__(self, cfg: ReaderConfig, timeline: Timeline | None = None, video: VideoSource | None = None) -> None:
        self.cfg, self.timeline, self.video = cfg, timeline, video

    def _tools(self, index: MemLifeIndex, question_time: float) -> ReaderTools:
        return ReaderTools(index, question_time, search_k=self.cfg.search_k, fetch_k=self.cfg.fetch_k,
                           video_frames=self.cfg.video_frames, video=self.video)

    def answer(self, question: QaItem, index: MemLifeIndex, question_time: float,
               handed: list[MemoryEntry] | None = None) -> ReaderTrace:
        tools = self._tools(index, question_time)
        trace = ReaderTrace(question_id=question.qid, question_time=question_time, reader_id=self.reader_id)
        seen: dict[tuple, MemoryEntry] = {}

        def run(res: ToolResult) -> None:
            trace.actions.append(res.action)
            trace.rounds += 1
            seen.update({e.key: e for e in res.entries})

        if handed is not None:
            run(tools.handed(handed))
        else:
            span = anchor(question, self.timeline)
            first, *choices = self.queries(question)
            run(tools.search(first, span))
            for choice in choices[:self.cfg.max_rounds - 2]:  # the last round is the answer
                run(tools.search(choice, span, k=max(1, self.cfg.search_k // 4)))
        trace.answer = self._choose(question, index, list(seen.values()))
        trace.actions.append(ReaderAction(kind="answer", query=trace.answer))
        trace.rounds += 1
        return trace

    @staticmethod
    def queries(question: QaItem) -> list[str]:
        """The searches it makes: the question (the participant id read as 'I'), then each choice A-D."""
        return [_PID.sub("I", question_text(question)), *question.choices[:4]]

    def _choose(self, question: QaItem, index: MemLifeIndex, entries: list[MemoryEntry]) -> str:
        if not entries:
            return "E"
        ev = index.vectors([e.key for e in entries])
        qv = index.query_vectors(self.queries(question)[:1])[0]
        cv = index.query_vectors(list(question.choices[:4]))
        best = ((cv @ ev.T + (ev @ qv)[None, :]) / 2).max(axis=1)  # an entry that fits the choice and the question
        i = int(best.argmax())
        return LETTERS[i] if float(best[i]) >= self.cfg.answer_min_score else "E"


class LLMReader:
    """The agent: one tool call or a final answer per round, at most `max_rounds` rounds."""

    def __init__(self, llm: LLMBackend, cfg: ReaderConfig, *, model_name: str | None = None,
                 video: VideoSource | None = None) -> None:
        self.llm, self.cfg, self.video = llm, cfg, video
        self.system, self.user = load_prompt("reader", cfg.prompt_version)
        self.reader_id = f"llm:{model_name or getattr(llm, 'name', 'llm')}:reader_{cfg.prompt_version}"

    def messages(self, question: QaItem, question_time: float) -> list[dict[str, Any]]:
        sys = fill(self.system, {"question_time": f"{question_time:.0f}", "max_rounds": self.cfg.max_rounds})
        user = fill(self.user, {"question": question_text(question), **dict(zip(LETTERS, question.choices))})
        return [{"role": "system", "content": sys}, {"role": "user", "content": user}]

    def _one_call(self, text: str, api_calls: list[ToolCall]) -> ToolCall | str | None:
        """The round's single tool call, or a final letter string, or None (a parse failure)."""
        budget = ParseBudget()
        calls = api_calls or parse_tool_calls(text, budget=budget)
        if len(calls) > 1:
            return None
        if len(calls) == 1:
            return calls[0] if calls[0].name in TOOLS else None
        letter = parse_answer(bounded_reply(text, budget), budget=budget)
        return letter

    def _execute(self, call: ToolCall, tools: ReaderTools, qtime: float) -> ToolResult | str:
        """A ToolResult, or the final answer letters (Answer); ValidationError/ValueError on bad arguments."""
        a = call.arguments
        if call.name == "Answer":
            letters = normalise_letters(AnswerArgs.model_validate(a).answer)
            if letters is None:
                raise ValueError("answer is not letters A-E")
            return letters
        if call.name == "SearchMemory":
            s = SearchArgs.model_validate(a)
            return tools.search(s.query, s.interval(qtime))
        if call.name == "Rewrite":
            return tools.rewrite(RewriteArgs.model_validate(a).query)
        span = IntervalArgs.model_validate(a).interval(qtime)
        return tools.fetch_memory(span) if call.name == "FetchMemory" else tools.fetch_video(span)

    def _result_text(self, res: ToolResult) -> str:
        k = res.action.kind
        if k == "rewrite":
            return f"Rewritten query noted: {res.action.query}"
        if k == "fetch_video":
            if res.video is None:
                return "FetchVideo: unavailable (no source video for this interval)"
            return (f"FetchVideo: {len(res.video.frames)} frames (not shown to a text model); transcript: "
                    f"{res.video.transcript[:self.cfg.max_result_chars]}")
        return render(res.entries, self.cfg.max_result_chars)

    def answer(self, question: QaItem, index: MemLifeIndex, question_time: float,
               handed: list[MemoryEntry] | None = None) -> ReaderTrace:
        tools = ReaderTools(index, question_time, search_k=self.cfg.search_k, fetch_k=self.cfg.fetch_k,
                            video_frames=self.cfg.video_frames, video=self.video)
        trace = ReaderTrace(question_id=question.qid, question_time=question_time, reader_id=self.reader_id)
        msgs = self.messages(question, question_time)
        if handed is not None:
            res = tools.handed(handed)
            trace.actions.append(res.action)
            msgs.append({"role": "user", "content": "Memory entries for this question:\n"
                         + render(res.entries, self.cfg.max_result_chars)})
        while trace.rounds < self.cfg.max_rounds:
            reply = self.llm.chat(msgs, max_new_tokens=self.cfg.max_new_tokens)
            trace.rounds += 1
            text = bounded_reply(reply.text, ParseBudget())
            trace.replies.append(text[:REPLY_LOG_CHARS])
            got = self._one_call(text, reply.tool_calls)
            if got is None:
                trace.parse_failure = True
                return trace
            if isinstance(got, str):
                return self._final(trace, got)
            try:
                out = self._execute(got, tools, question_time)
            except (ValidationError, ValueError):
                trace.parse_failure = True
                return trace
            if isinstance(out, str):
                return self._final(trace, out)
            trace.actions.append(out.action)
            msgs += [{"role": "assistant", "content": text[:self.cfg.max_result_chars]},
                     {"role": "user", "content": f"Result of {got.name}:\n{self._result_text(out)}"}]
        return trace

    @staticmethod
    def _final(trace: ReaderTrace, letters: str) -> ReaderTrace:
        trace.answer = letters
        trace.actions.append(ReaderAction(kind="answer", query=letters))
        return trace


def make_reader(kind: str, cfg: ReaderConfig | None = None, *, llm: LLMBackend | None = None,
                timeline: Timeline | None = None, video: VideoSource | None = None,
                model_name: str | None = None) -> DeterministicReader | LLMReader:
    cfg = cfg or ReaderConfig()
    if kind == "deterministic":
        return DeterministicReader(cfg, timeline=timeline, video=video)
    if kind == "llm":
        if llm is None:
            raise ValueError("the llm reader needs an LLM backend (robot_configs/llm.yaml backend: ...)")
        return LLMReader(llm, cfg, model_name=model_name, video=video)
    raise ValueError(f"unknown reader {kind!r} (deterministic | llm)")
