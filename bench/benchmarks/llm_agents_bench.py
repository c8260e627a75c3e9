#!/usr/bin/env python
"""The ReAct answerer and planner with a real local model, end to end (issue 16 part 4).

For one participant (default P06, the development participant; P28 is test: run it separately with
--participant P28 and never tune on it) the memory is formed as `memora-bench` forms it, then the
ReAct answerer answers `--questions` EAM-QA questions (round-robin over question types) and the ReAct
planner plans `--tasks` planning tasks (alternating replay / generalize) in one memory condition, each
agent on its own model instance so each keeps its own prompt prefix. Items alternate (two questions,
one task) so a run cut by `--budget-s` still covers both; every finished item is saved to
OUT/items.jsonl and a rerun resumes.

Printed: the model's tokens/s on a short prompt first (to size the run), then per agent: model
replies, parse-failure rate (replies with neither a tool call nor an answer/plan where one was due,
and the agents' typed parse failures), valid tool-call rate (executed calls the tool accepted: known
tool, valid arguments, no error, over the replies that made a call), EAM-QA accuracy and RGP (the
`reference` family headline and `strict`, as `memora-bench` scores them), generated tokens/s and wall.

    nice -n 10 .venv/bin/python bench/benchmarks/llm_agents_bench.py --backend gpt4all \
        [--participant P06] [--questions 20] [--tasks 10] [--budget-s 3000] [--out /tmp/l16/run] [--json]

Prints figures; asserts nothing. The model's quality is what it is: nothing here is tuned on P28.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from itertools import zip_longest
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from memora_core.agents.config import load_agents_config  # noqa: E402
from memora_core.llm.base import LLMBackend, LLMConfig, LLMReply, load_llm_config, make_llm  # noqa: E402
from memora_core.llm.parsing import parse_answer, parse_plan, parse_tool_calls  # noqa: E402

PROBE = [{"role": "system", "content": "You are a kitchen robot."},
         {"role": "user", "content": "Name three things found in a kitchen drawer."}]


class RecordingLLM(LLMBackend):
    """The real backend, with every reply classified: a tool call, a final answer/plan, or unparsed."""

    def __init__(self, inner: LLMBackend, role: str) -> None:
        self.inner, self.role, self.name = inner, role, inner.name
        self.choices: dict[str, str] = {}
        self.outcomes: list[str] = []

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             *, max_new_tokens: int | None = None) -> LLMReply:
        reply = self.inner.chat(messages, tools, max_new_tokens=max_new_tokens)
        self.outcomes.append(self.classify(reply, bool(tools)))
        return reply

    def classify(self, reply: LLMReply, tools_offered: bool) -> str:
        if tools_offered and (reply.tool_calls or parse_tool_calls(reply.text)):
            return "tool_call"
        final = (parse_answer(reply.text, self.choices) is not None if self.role == "answerer"
                 else bool(parse_plan(reply.text)))
        return "final" if final else "unparsed"


def item_stats(llm: RecordingLLM, agent: Any, calls: list[dict], typed_before: int, tokens_before: int,
               t0: float) -> dict[str, Any]:
    outcomes = Counter(llm.outcomes)
    llm.outcomes.clear()
    gen = getattr(llm.inner, "stats", None)
    return {"replies": sum(outcomes.values()), "outcomes": dict(outcomes),
            "typed_parse_failures": sum(agent.parse_failures.values()) - typed_before,
            "tool_calls": len(calls), "valid_tool_calls": sum(1 for c in calls if c.get("ok")),
            "calls": [{"tool": c.get("tool"), "args": str(c.get("args"))[:200], "ok": c.get("ok"),
                       "error": str(c.get("error") or "")[:200]} for c in calls],
            "tokens": (gen.tokens - tokens_before) if gen else None, "wall_s": round(time.perf_counter() - t0, 1)}


def pick_questions(items: list[Any], n: int) -> list[Any]:
    """Round-robin over question types, in file order within a type (deterministic)."""
    by_type: dict[str, list[Any]] = defaultdict(list)
    for q in items:
        by_type[q.qa_type].append(q)
    mixed = [q for group in zip_longest(*by_type.values()) for q in group if q is not None]
    return mixed[:n]


def pick_tasks(suite: Any, n: int) -> list[Any]:
    mixed = [t for pair in zip_longest(suite.replay, suite.generalize) for t in pair if t is not None]
    return mixed[:n]


def schedule(questions: list[Any], tasks: list[Any]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    qi = ti = 0
    while qi < len(questions) or ti < len(tasks):
        for _ in range(2):
            if qi < len(questions):
                out.append(("q", questions[qi]))
                qi += 1
        if ti < len(tasks):
            out.append(("t", tasks[ti]))
            ti += 1
    return out


def llm_config(args: argparse.Namespace) -> LLMConfig:
    data = load_llm_config().model_dump()
    data["backend"] = args.backend
    block = data[args.backend]
    for key in ("model", "threads", "gguf_path"):
        if getattr(args, key, None) is not None and key in block:
            block[key] = getattr(args, key)
    if args.backend == "gpt4all":
        block["tools_in_template"] = args.tools_in_template
        block["prefill_first_tool_call"] = args.prefill_tool_call
    return LLMConfig.model_validate(data)


def probe(llm: LLMBackend, tokens: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    reply = llm.chat(PROBE, max_new_tokens=tokens)
    wall = time.perf_counter() - t0
    gen = getattr(llm, "stats", None)
    n = gen.tokens if gen else None
    return {"wall_s": round(wall, 2), "tokens": n, "tokens_per_s": round(n / wall, 2) if n else None,
            "text": reply.text[:200]}


def rate(num: float, den: float) -> float | None:
    return round(num / den, 4) if den else None


def agent_summary(rows: list[dict]) -> dict[str, Any]:
    st = [r["stats"] for r in rows]
    replies = sum(s["replies"] for s in st)
    unparsed = sum(s["outcomes"].get("unparsed", 0) for s in st)
    attempts = sum(s["outcomes"].get("tool_call", 0) for s in st)
    tokens = sum(s["tokens"] or 0 for s in st)
    wall = sum(s["wall_s"] for s in st)
    return {"items": len(rows), "replies": replies, "unparsed_replies": unparsed,
            "parse_failure_rate": rate(unparsed, replies),
            "typed_parse_failures": sum(s["typed_parse_failures"] for s in st),
            "tool_call_replies": attempts, "tool_calls_executed": sum(s["tool_calls"] for s in st),
            "valid_tool_calls": sum(s["valid_tool_calls"] for s in st),
            "valid_tool_call_rate": rate(sum(s["valid_tool_calls"] for s in st), attempts),
            "tokens": tokens, "tokens_per_s": rate(tokens, wall), "wall_s": round(wall, 1)}


class _Keep:
    """The agent, with the last result it returned kept (its tool-call log is in it)."""

    def __init__(self, agent: Any) -> None:
        self.agent, self.last = agent, None

    def answer(self, question: str, choices: dict[str, str]) -> Any:
        self.last = self.agent.answer(question, choices)
        return self.last

    def plan(self, instruction: str) -> Any:
        self.last = self.agent.plan(instruction)
        return self.last


def run(args: argparse.Namespace) -> dict[str, Any]:
    from memora_bench.config import data_root, load_bench_config
    from memora_bench.data import BenchData
    from memora_bench.metrics.eamqa import LETTERS, AnswerRecord
    from memora_bench.metrics.planning import TaskScore
    from memora_bench.metrics.reference.memory_view import memory_view
    from memora_bench.runners import eam_qa as qa_run
    from memora_bench.runners import planning as plan_run
    from memora_bench.runners.common import Checkpoint, RunSettings, prepare_memories
    from memora_core.agents.react import ReActAnswerer, ReActPlanner
    from memora_core.conditions import build_condition

    t_start = time.perf_counter()
    out = Path(args.out)
    bcfg = load_bench_config(None)
    data = BenchData(data_root(args.data))
    pid = args.participant
    acfg = load_agents_config()
    acfg = acfg.model_copy(update={"agents": acfg.agents.model_copy(update={
        "max_answer_searches": args.searches, "max_iterations": args.iterations})})
    cfg = llm_config(args)
    base = {"answerer": make_llm(cfg), "planner": make_llm(cfg)}
    report: dict[str, Any] = {"participant": pid, "condition": args.condition, "backend": cfg.backend,
                              "model": cfg.model_dump()[cfg.backend], "agents": {
                                  "max_answer_searches": args.searches, "max_iterations": args.iterations},
                              "max_new_tokens": {"answerer": args.answer_tokens, "planner": args.plan_tokens}}
    report["probe"] = probe(base["answerer"], args.probe_tokens)
    print(f"probe: {report['probe']['tokens']} tokens in {report['probe']['wall_s']} s "
          f"({report['probe']['tokens_per_s']} tokens/s, prompt reading included)", flush=True)
    settings = RunSettings(participants=[pid], conditions=[args.condition], out=out / "bench", agent="react",
                           progress=False)
    t_mem = time.perf_counter()
    memories = prepare_memories(data, settings, bcfg)
    report["memory_s"] = round(time.perf_counter() - t_mem, 1)
    mem = memories[pid]
    try:
        condition = build_condition(args.condition, mem.store, pid)
        llms = {role: RecordingLLM(_Budgeted(b, tokens), role)
                for (role, b), tokens in zip(base.items(), (args.answer_tokens, args.plan_tokens))}
        answerer = ReActAnswerer(condition, llms["answerer"], acfg)
        planner = ReActPlanner(condition, llms["planner"], acfg)
        taxonomy = plan_run.load_taxonomy(data, bcfg)
        view = memory_view(mem.store, pid)
        items = [q for q in data.eam_qa(pid).items if bcfg.run.eam_qa.include_controls or not q.unanswerable]
        plan = schedule(pick_questions(items, args.questions), pick_tasks(data.planning(pid), args.tasks))
        cp = Checkpoint(out / f"items_{pid}_{args.condition}.jsonl")
        done = cp.load()
        for kind, item in plan:
            key = f"q:{item.qid}" if kind == "q" else f"t:{item.split}:{item.task_id}"
            if key in done:
                continue
            if time.perf_counter() - t_start > args.budget_s:
                report["stopped_by_budget"] = True
                break
            t0 = time.perf_counter()
            if kind == "q":
                llm, agent = llms["answerer"], _Keep(answerer)
                llm.choices = dict(zip(LETTERS, item.choices))
                typed = sum(answerer.parse_failures.values())
                tok0 = getattr(llm.inner, "stats", None)
                tok0 = tok0.tokens if tok0 else 0
                rec = qa_run.answer_item(agent, item, "react")
                calls = list(getattr(agent.last, "tool_calls", None) or [])
                row = {"item_id": key, "kind": kind, "record": rec.model_dump(),
                       "stats": item_stats(llm, answerer, calls, typed, tok0, t0)}
            else:
                llm, agent = llms["planner"], _Keep(planner)
                typed = sum(planner.parse_failures.values())
                tok0 = getattr(llm.inner, "stats", None)
                tok0 = tok0.tokens if tok0 else 0
                score, plan_rec = plan_run.plan_task(agent, item, mem, taxonomy, bcfg)
                calls = list(getattr(agent.last, "tool_calls", None) or [])
                row = {"item_id": key, "kind": kind, "score": score.model_dump(), "plan": plan_rec,
                       "task": {"task_id": item.task_id, "split": item.split},
                       "stats": item_stats(llm, planner, calls, typed, tok0, t0)}
            cp.append(row)
            done[key] = row
            s = row["stats"]
            print(f"{key}: {s['outcomes']} calls {s['valid_tool_calls']}/{s['tool_calls']} valid, "
                  f"{s['tokens']} tokens, {s['wall_s']} s", flush=True)
        rows = [done[k] for k in done]
        qrows = [r for r in rows if r["kind"] == "q"]
        trows = [r for r in rows if r["kind"] == "t"]
        records = {args.condition: [AnswerRecord.model_validate(r["record"]) for r in qrows]}
        qa_sum = qa_run.summarize_run(records, settings) if qrows else None
        tasks = {(t.split, t.task_id): t for t in data.planning(pid).replay + data.planning(pid).generalize}
        scores = {args.condition: [TaskScore.model_validate(r["score"]) for r in trows]}
        refs = {args.condition: [plan_run.reference_score(tasks[(r["task"]["split"], r["task"]["task_id"])],
                                                          r["plan"]["text"], view) for r in trows]}
        plan_sum = plan_run.summarize_run(scores, settings, refs) if trows else None
    finally:
        mem.store.close()
        for b in base.values():
            getattr(b, "close", lambda: None)()
    c = args.condition
    report["answerer"] = agent_summary(qrows)
    if qa_sum:
        report["answerer"]["accuracy_reference"] = qa_sum["conditions"][c]["accuracy"]
        report["answerer"]["accuracy_strict"] = qa_sum["strict"][c]["all"]["accuracy"]
    report["planner"] = agent_summary(trows)
    if plan_sum:
        report["planner"]["rgp_reference"] = {s: plan_sum["conditions"][c][s]["rgp"] for s in plan_run.SPLITS}
        report["planner"]["rgp_strict"] = {s: plan_sum["strict"][c][s]["rgp"] for s in plan_run.SPLITS}
        report["planner"]["n_empty_plans"] = sum(1 for r in trows if not r["plan"]["text"])
    report["wall_s"] = round(time.perf_counter() - t_start, 1)
    return report


class _Budgeted(LLMBackend):
    """A backend whose replies are capped at `tokens` new tokens (the agents ask without a cap)."""

    def __init__(self, inner: LLMBackend, tokens: int) -> None:
        self.inner, self.tokens, self.name = inner, tokens, inner.name
        self.stats = getattr(inner, "stats", None)

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             *, max_new_tokens: int | None = None) -> LLMReply:
        return self.inner.chat(messages, tools, max_new_tokens=min(max_new_tokens or self.tokens, self.tokens))


def print_report(r: dict[str, Any]) -> None:
    print(f"participant {r['participant']}, condition {r['condition']}, backend {r['backend']} "
          f"({r['model'].get('model')}), memory {r['memory_s']} s, wall {r['wall_s']} s"
          + (" (stopped by --budget-s)" if r.get("stopped_by_budget") else ""))
    cols = ("items", "replies", "parse_failure_rate", "typed_parse_failures", "tool_call_replies",
            "valid_tool_call_rate", "tokens_per_s", "wall_s")
    print("agent".ljust(10) + "".join(c[:14].rjust(15) for c in cols))
    for role in ("answerer", "planner"):
        print(role.ljust(10) + "".join(str(r[role].get(c)).rjust(15) for c in cols))
    a, p = r["answerer"], r["planner"]
    print(f"EAM-QA accuracy: reference {a.get('accuracy_reference')}, strict {a.get('accuracy_strict')}")
    print(f"RGP reference {p.get('rgp_reference')}; strict {p.get('rgp_strict')}; "
          f"empty plans {p.get('n_empty_plans')}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", default="gpt4all", choices=["gpt4all", "transformers_local", "openai_http"])
    ap.add_argument("--model", default=None, help="the backend's `model` (default: robot_configs/llm.yaml)")
    ap.add_argument("--gguf-path", dest="gguf_path", default=None)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--tools-in-template", action=argparse.BooleanOptionalAction, default=False,
                    help="gpt4all: tool schemas also through the chat template (the system prompt lists them "
                         "either way; off keeps the system turn the same on the forced last turn)")
    ap.add_argument("--prefill-tool-call", action="store_true",
                    help="gpt4all: the first reply of each item starts as a tool call (the model picks tool and "
                         "arguments); measures whether its calls are valid when it is made to call")
    ap.add_argument("--participant", default="P06")
    ap.add_argument("--condition", default="memora")
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--tasks", type=int, default=10)
    ap.add_argument("--searches", type=int, default=2, help="answerer tool calls before the letter is demanded")
    ap.add_argument("--iterations", type=int, default=3, help="planner turns, the last one forced")
    ap.add_argument("--answer-tokens", type=int, default=48)
    ap.add_argument("--plan-tokens", type=int, default=128)
    ap.add_argument("--probe-tokens", type=int, default=16)
    ap.add_argument("--budget-s", type=float, default=float("inf"), help="start no new item after this wall time")
    ap.add_argument("--data", default=None)
    ap.add_argument("--out", default="/tmp/l16/run")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    report = run(args)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / f"report_{args.participant}.json").write_text(json.dumps(report, indent=1, default=str))
    print(json.dumps(report, indent=1, default=str) if args.json else "", end="")
    if not args.json:
        print_report(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
