#!/usr/bin/env python
"""Fuzz benchmark: hostile model replies through every parser, the LLM editor decider and both ReAct agents.

Replies: every crafted case (the issue-17 reports: "answer" x 4000 and x 8000, a 1 MB whitespace run in a
numbered line, "[" x 5000, "{" x 1,000,000, a lone surrogate in a JSON plan; deep nesting, strings up to a
few MB, raw and escaped surrogates, NULs, unknown tools, wrong argument types, huge numbers,
Infinity/NaN), then seeded random ones (mutated good replies, random code points, long repetitions,
splices) up to `--n`. Each reply goes through parse_tool_calls (with and without an allow-list),
parse_api_tool_calls, parse_plan, parse_answer, parse_json_object, loads_lenient and extract_json_object,
then through the LLM decider (scripted chat) and, six at a time, through the ReAct planner and answerer
(scripted backend) on a real small store written into a temp dir from the shared EPIC narrations.

A call that raises (extract_json_object: anything but ReplyParseError) is a crash; one still running
after `--hang-s` is interrupted (SIGALRM) and counted as a hang. Prints crashes by type, hangs and
p50/p99/max latency per target. Targets (issue 17): 0 crashes, 0 hangs, p99 <= 50 ms per parse.

    .venv/bin/python bench/benchmarks/fuzz_bench.py [--n 10000] [--seed 17] [--hang-s 5] [--json]

Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import logging
import random
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from memora_core.agents.react import ReActAnswerer, ReActPlanner  # noqa: E402
from memora_core.cli.main import main as memora_main  # noqa: E402
from memora_core.conditions import build_condition  # noqa: E402
from memora_core.config import EmbeddingConfig, MemoraConfig, StoreConfig, VectorConfig, load_config  # noqa: E402
from memora_core.editing.config import EditorConfig, LlmDeciderConfig  # noqa: E402
from memora_core.editing.deciders import DecisionContext, make_decider  # noqa: E402
from memora_core.llm.base import LLMBackend, LLMReply, ToolCall  # noqa: E402
from memora_core.llm.parsing import (  # noqa: E402
    ReplyParseError,
    loads_lenient,
    parse_answer,
    parse_api_tool_calls,
    parse_json_object,
    parse_plan,
    parse_tool_calls,
)
from memora_core.perception.vlm import extract_json_object  # noqa: E402
from memora_core.schemas import ObjectObservation  # noqa: E402
from memora_core.store import MemoryStore  # noqa: E402

NARRATIONS = "epic100/EPIC_100_extension_narrations_P06_P28.csv"
PID = "P06"
CHOICES = {"A": "Boils leftover kettle water.", "B": "Opens and fills the kettle at the tap.",
           "C": "Fills a pan directly.", "D": "Carries water in a cup.", "E": "Not available."}
TOOLS = ["search", "search_objects", "get_object_history", "get_routine_skill", "get_preferences",
         "search_activities", "search_memory", "read_log", "nope", "", "rm -rf", "\ud800", "x" * 300]
GOOD = ['{"name": "search", "arguments": {"query": "kettle"}}',
        '<tool_call>{"name": "search_objects", "arguments": {"name": "bowl"}}</tool_call>',
        'Thought: look\nAction: get_routine_skill\nAction Input: {"goal_query": "wash bowl"}',
        "Plan:\n1. open kettle\n2. fill kettle\n3. turn on kettle", "- take cup\n- rinse cup",
        '{"plan": ["open fridge", {"action": "take", "object": "milk"}]}', "Answer: B", "(C)",
        '```json\n{"op": "add", "reason": "new"}\n```', '{"op": "noop", "target_entity_id": "P06:e00001"}',
        "{'name': 'search', 'arguments': {'query': 'cup',}}", '{"answer": "D"}']


class Hang(Exception):
    """A call still running after --hang-s."""


def _on_alarm(_sig: int, _frame: Any) -> None:
    raise Hang


def crafted() -> list[Any]:
    """The reported cases and the hostile shapes, each once."""
    mb = 1_000_000
    cases: list[Any] = [
        "answer" * 4000, "answer" * 8000, "1. open" + " " * mb + "kettle", "[" * 5000, "{" * mb,
        '{"plan": ["\\ud800 open kettle"]}', '{"plan": ["\ud800 open kettle"]}',
        "[" * 100 + "]" * 100, "[" * 5000 + "]" * 5000, '{"a":' * 100_000 + "1" + "}" * 100_000,
        "[{}," * 200_000, '{"name": "search", "arguments": {"query": "' + "k" * 3 * mb + '"}}',
        "Plan:\n" + "\n".join(f"{i}. step {i}" for i in range(200_000)), "x" * 2 * mb, "\ud800" * mb,
        "\x00" * mb, "Answer:\x00 B", '{"name": "search\\u0000", "arguments": {"query": "\\ud800\\udfff"}}',
        '{"name": "rm_rf", "arguments": {"path": "/"}}', '{"name": "search", "arguments": {"query": 5, "top_k": "x"}}',
        '{"name": "search", "arguments": {"query": "k", "top_k": 1e400}}',
        '{"name": "search", "arguments": {"query": "k", "top_k": ' + "9" * 5000 + "}}",
        '{"name": "search", "arguments": {"query": NaN, "top_k": Infinity}}', '{"answer": -Infinity}',
        '{"op": "add", "reason": "' + "\\ud800" * 10_000 + '"}', '{"op": ' + "[" * 40 + "]" * 40 + "}",
        '{"answer": ""}', '{"plan": [' + ", ".join(["1e999", "NaN", "null", "true", "[]", "{}"]) + "]}",
        "Action:" + " " * mb + "x", "```" + " " * mb + "x", "final" + " " * mb + "plan:", "- " + " " * mb + "x",
        '"\\"' * 300_000, "'\\'" * 300_000, "<tool_call>" * 100_000, "{}" * 500_000, "(A) " * 200_000,
        "answer is " * 100_000 + "B", "\\" * mb, '"' * mb, "True," * 200_000, "{'a': " * 30 + "'x" * 100_000,
        LLMReply(tool_calls=[ToolCall(name="\ud800", arguments={"q": "\ud800" * 10})]),
        LLMReply(tool_calls=[ToolCall(name="search", arguments={"query": {"deep": [[[[[]]]]]}, "top_k": 10 ** 30})]),
    ]
    return cases


def _random_reply(rng: random.Random) -> Any:
    kind = rng.randrange(8)
    base = rng.choice(GOOD)
    if kind == 0:  # truncated
        return base[: rng.randint(0, len(base))]
    if kind == 1:  # structural characters sprinkled in
        chars = list(base)
        for _ in range(rng.randint(1, 8)):
            chars.insert(rng.randint(0, len(chars)), rng.choice('{}[]"\'\\,:<>`\n \t'))
        return "".join(chars)
    if kind == 2:  # random code points, surrogates and controls included
        return "".join(chr(rng.choice([rng.randint(0, 0x7F), rng.randint(0, 0x2FFF), rng.randint(0xD800, 0xDFFF),
                                       rng.randint(0, 0x10FFFF)])) for _ in range(rng.randint(0, 200)))
    if kind == 3:  # a snippet repeated, up to about a megabyte
        snippet = rng.choice(GOOD + ["answer", " ", "[", "{", '"', "1. ", "\ud800", "Action: a", "'", ",", "\\"])
        return snippet * min(rng.choice([10, 100, 1000, 10_000, 50_000]), 1_000_000 // len(snippet))
    if kind == 4:  # wrong tools and argument types
        arg = rng.choice([5, None, [1, 2], {"a": 1}, "", -3.5, True, "x" * 300, 10 ** 20, "\ud800"])
        return json.dumps({"name": rng.choice(TOOLS), "arguments": {"query": arg, "name": arg, "top_k": arg,
                                                                   "entity_id": arg}}, ensure_ascii=rng.random() < .5)
    if kind == 5:  # native tool calls
        return LLMReply(text=rng.choice(["", base]), tool_calls=[ToolCall(
            name=rng.choice(TOOLS), arguments=rng.choice([{}, {"query": 3}, {"goal_query": "pan"}, {"q": [[1]]}]))])
    if kind == 6:  # splice of two replies
        a, b = rng.choice(GOOD), rng.choice(GOOD)
        return a[: rng.randint(0, len(a))] + b[rng.randint(0, len(b)):]
    depth = rng.choice([1, 10, 31, 32, 33, 100, 1000])  # nesting around the limit
    return rng.choice(["[", '{"a":']) * depth + rng.choice(["1", ""]) + rng.choice(["]", "}"]) * depth


def fuzz_replies(n: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    cases = crafted()
    return cases + [_random_reply(rng) for _ in range(max(0, n - len(cases)))]


def build_store(workdir: Path, rows: int = 300) -> MemoryStore:
    """A real small store: the first `rows` shared EPIC narrations written by the real writer, consolidated."""
    from memora_core.consolidation import consolidate

    src = load_config().data_path() / NARRATIONS
    csv_path = workdir / "narrations.csv"
    with open(src, encoding="utf-8") as f, open(csv_path, "w", encoding="utf-8") as out:
        out.writelines(itertools.islice(f, rows + 1))
    with contextlib.redirect_stdout(io.StringIO()):  # keep --json output clean
        rc = memora_main(["write", "--participant", PID, "--narrations", str(csv_path), "--store",
                          str(workdir / "s"), "--embedding", "hashing", "--vectors", "none", "--quiet"])
    if rc != 0:
        raise SystemExit(f"memora write failed ({rc})")
    cfg = MemoraConfig(data_dir=load_config().data_dir, store=StoreConfig(
        vectors=VectorConfig(backend="none"), embedding=EmbeddingConfig(backend="hashing")))
    store = MemoryStore.open(workdir / "s", cfg)
    consolidate(store, PID)
    return store


class ScriptedLLM(LLMBackend):
    """Returns the given replies in order, then empty text."""

    def __init__(self, replies: list[Any]) -> None:
        self.replies = list(replies)

    def chat(self, messages, tools=None, *, max_new_tokens=None):  # noqa: ANN001, ANN201
        r = self.replies.pop(0) if self.replies else ""
        return r if isinstance(r, LLMReply) else LLMReply(text=r)


class ScriptedChat:
    def __init__(self) -> None:
        self.next: Any = ""

    def complete(self, messages: list[dict[str, Any]]) -> Any:
        return self.next


class Recorder:
    """Latency, crashes by type and hangs per target; every call runs under a SIGALRM hang guard."""

    def __init__(self, hang_s: float) -> None:
        self.hang_s = hang_s
        self.ms: dict[str, list[float]] = {}
        self.crashes: dict[str, Counter] = {}
        self.hangs: Counter = Counter()
        self.examples: dict[str, str] = {}

    def run(self, target: str, fn: Callable[[], Any], expected: tuple[type[BaseException], ...] = ()) -> Any:
        self.ms.setdefault(target, [])
        self.crashes.setdefault(target, Counter())
        signal.setitimer(signal.ITIMER_REAL, self.hang_s)
        t0 = time.perf_counter()
        try:
            return fn()
        except Hang:
            self.hangs[target] += 1
        except expected:
            pass
        except Exception as exc:  # noqa: BLE001 - counting crashes is the point
            self.crashes[target][type(exc).__name__] += 1
            self.examples.setdefault(f"{target}:{type(exc).__name__}", repr(exc)[:200])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            self.ms[target].append(1000 * (time.perf_counter() - t0))
        return None

    def summary(self) -> dict[str, Any]:
        out = {}
        for target, ms in self.ms.items():
            s = sorted(ms)
            out[target] = {"calls": len(s), "crashes": sum(self.crashes[target].values()),
                           "crash_types": dict(self.crashes[target]), "hangs": self.hangs[target],
                           "p50_ms": round(statistics.median(s), 3),
                           "p99_ms": round(s[min(len(s) - 1, int(0.99 * len(s)))], 3), "max_ms": round(s[-1], 3)}
        return out


def _text(reply: Any) -> Any:
    return reply.text if isinstance(reply, LLMReply) else reply


def run(n: int = 10_000, seed: int = 17, hang_s: float = 5.0) -> dict[str, Any]:
    """The fuzz run (main thread only: the hang guard is SIGALRM); returns the figures."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        return _run(n, seed, hang_s)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _run(n: int, seed: int, hang_s: float) -> dict[str, Any]:
    replies = fuzz_replies(n, seed)
    rec = Recorder(hang_s)
    allowed = {"search", "search_objects", "get_routine_skill"}
    for reply in replies:
        t = _text(reply)
        rec.run("parse_tool_calls", lambda: parse_tool_calls(t))
        rec.run("parse_tool_calls_allowed", lambda: parse_tool_calls(t, allowed))
        api = [{"id": "c1", "function": {"name": "search", "arguments": t}},
               SimpleNamespace(id=t, function=SimpleNamespace(name=t, arguments=t))]
        rec.run("parse_api_tool_calls", lambda: parse_api_tool_calls(api))
        rec.run("parse_plan", lambda: parse_plan(t))
        rec.run("parse_answer", lambda: parse_answer(t, CHOICES))
        rec.run("parse_json_object", lambda: parse_json_object(t))
        rec.run("loads_lenient", lambda: loads_lenient(t))
        rec.run("extract_json_object", lambda: extract_json_object(t), expected=(ReplyParseError,))
    chat = ScriptedChat()
    decider = make_decider(EditorConfig(decider="llm", llm=LlmDeciderConfig(max_attempts=1)), chat=chat)
    obs, ctx = ObjectObservation(name="kettle"), DecisionContext(participant_id=PID, segment_id="P06_101:0000")
    for reply in replies:
        chat.next = _text(reply)
        rec.run("llm_decider", lambda: decider.decide(obs, [], ctx))
    with tempfile.TemporaryDirectory() as tmp:
        store = build_store(Path(tmp))
        try:
            memories = [build_condition(c, store, PID) for c in ("memora", "flat1d_raw", "graph2d_raw")]
            for k in range(0, len(replies), 6):
                chunk, memory = replies[k: k + 6], memories[(k // 6) % len(memories)]
                if (k // 6) % 2 == 0:
                    rec.run("react_planner", lambda: ReActPlanner(memory, ScriptedLLM(chunk)).plan(
                        "Help P06 boil water"))
                else:
                    rec.run("react_answerer", lambda: ReActAnswerer(memory, ScriptedLLM(chunk)).answer(
                        "How does P06 prepare hot water?", CHOICES))
        finally:
            store.close()
    summary = rec.summary()
    return {"replies": len(replies), "seed": seed, "crafted": len(crafted()),
            "crashes": sum(t["crashes"] for t in summary.values()),
            "hangs": sum(t["hangs"] for t in summary.values()), "targets": summary,
            "crash_examples": rec.examples}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000, help="replies (crafted ones included)")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--hang-s", type=float, default=5.0, help="a call running longer is a hang")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    logging.disable(logging.CRITICAL)  # the decider and agents log every bad reply
    t0 = time.perf_counter()
    try:
        result = run(args.n, args.seed, args.hang_s)
    finally:
        logging.disable(logging.NOTSET)
    result["wall_s"] = round(time.perf_counter() - t0, 1)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"fuzz: {result['replies']} replies ({result['crafted']} crafted), seed {result['seed']}, "
          f"{result['wall_s']} s: crashes {result['crashes']}, hangs {result['hangs']}")
    print(f"{'target':26s} {'calls':>6s} {'crashes':>7s} {'hangs':>5s} {'p50 ms':>8s} {'p99 ms':>8s} {'max ms':>9s}")
    for name, t in result["targets"].items():
        print(f"{name:26s} {t['calls']:6d} {t['crashes']:7d} {t['hangs']:5d} {t['p50_ms']:8.3f} {t['p99_ms']:8.3f} "
              f"{t['max_ms']:9.3f}  {t['crash_types'] or ''}")
    for key, example in result["crash_examples"].items():
        print(f"  {key}: {example}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
