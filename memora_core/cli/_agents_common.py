"""Shared pieces of the agent commands (consolidate, plan, ask, build-condition)."""
from __future__ import annotations

import argparse
from pathlib import Path

from memora_core.config import MemoraConfig, load_config


def open_store(args: argparse.Namespace, *, readonly: bool = True):
    from memora_core.store import MemoryStore

    cfg: MemoraConfig = load_config(args.config)
    if getattr(args, "semantic", None) is False and not getattr(args, "vectors", None):
        from memora_core.agents.config import load_agents_config

        if not load_agents_config(getattr(args, "agents_config", None)).agents.semantic_retrieval:
            args.vectors = "none"  # lexical retrieval only: no embedding model to load for a one-shot command
    if getattr(args, "vectors", None) or getattr(args, "embedding", None):
        data = cfg.model_dump()
        if args.vectors:
            data["store"]["vectors"]["backend"] = args.vectors
        if args.embedding:
            data["store"]["embedding"]["backend"] = args.embedding
        cfg = MemoraConfig.model_validate(data)
    if not (Path(args.store) / "memory.sqlite").exists():
        raise FileNotFoundError(f"no memory store at {args.store} (run `memora write` first)")
    # readers never take the writer lock (they run while `memora write` does); writers hold it
    return MemoryStore.open_reader(args.store, cfg) if readonly else MemoryStore.open_writer(args.store, cfg)


def add_store_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", required=True, type=Path, help="store directory")
    p.add_argument("--participant", required=True, help="participant id, e.g. P06")
    p.add_argument("--vectors", choices=["chroma", "chroma_http", "none"], help="override store.vectors.backend")
    p.add_argument("--embedding", choices=["minilm", "hashing"], help="override store.embedding.backend")
    p.add_argument("--agents-config", type=Path, help="agents YAML (default robot_configs/agents.yaml)")
    p.add_argument("--llm-config", type=Path, help="LLM YAML (default robot_configs/llm.yaml)")


def add_semantic_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--semantic", action="store_true",
                   help="use the store's vector index too (loads the embedding model; default from agents.yaml)")


def make_llm_from(args: argparse.Namespace, backend: str | None = None):
    from memora_core.llm import load_llm_config, make_llm

    cfg = load_llm_config(args.llm_config)
    if backend:
        cfg = cfg.model_copy(update={"backend": backend})
    return make_llm(cfg)
