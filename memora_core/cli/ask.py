"""`memora ask`: answer a multiple-choice question from a participant's memory (one letter A-E)."""
from __future__ import annotations

import argparse
import json

from memora_core.cli._agents_common import add_semantic_arg, add_store_args, make_llm_from, open_store

OPTION_E = "The information is not available based on the given context"


def parse_choices(raw: list[str]) -> dict[str, str]:
    """'A=text' / 'A: text' / plain texts (lettered A, B, ... in order); E is added when absent."""
    out: dict[str, str] = {}
    for i, item in enumerate(raw):
        head = item[:2]
        if len(item) > 2 and head[0].upper() in "ABCDE" and head[1] in "=:)":
            out[head[0].upper()] = item[2:].strip()
        else:
            out["ABCDE"[i] if i < 5 else str(i)] = item.strip()
    out.setdefault("E", OPTION_E)
    return out


def _run(args: argparse.Namespace) -> int:
    from memora_core.agents import make_answerer, store_shares
    from memora_core.agents.config import load_agents_config
    from memora_core.conditions import build_condition

    choices = parse_choices(args.choices)
    store = open_store(args)
    memory = build_condition(args.condition, store, args.participant)
    llm = make_llm_from(args) if args.answerer == "react" else None
    if args.answerer == "react" and llm is None:
        raise ValueError("--answerer react needs an LLM backend in robot_configs/llm.yaml (backend: none)")
    res = make_answerer(args.answerer, memory, llm, load_agents_config(args.agents_config)).answer(args.question, choices)
    if args.json:
        print(json.dumps({"letter": res.letter, "raw": res.raw, "tool_calls": res.tool_calls,
                          "store_shares": store_shares(res.tool_calls),
                          "evidence": [e.model_dump(mode="json") for e in res.retrieved_evidence]}, indent=1))
    else:
        print(res.letter or "?")
        print(f"  {res.raw[:300]}")
        print(f"  evidence: {', '.join(e.cite() for e in res.retrieved_evidence[:5]) or '-'}")
    return 0 if res.letter else 1


def register(sub: argparse._SubParsersAction) -> None:
    from memora_core.conditions import CONDITION_IDS

    p = sub.add_parser("ask", help="answer a multiple-choice question from memory")
    add_store_args(p)
    add_semantic_arg(p)
    p.add_argument("--question", required=True)
    p.add_argument("--choices", required=True, nargs="+", help="'A=...' 'B=...' ... (E = not available, added)")
    p.add_argument("--answerer", choices=["structured", "react"], default="structured")
    p.add_argument("--condition", choices=CONDITION_IDS, default="memora")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_run)
