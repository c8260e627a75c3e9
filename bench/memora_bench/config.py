"""Typed settings of the benchmark, read from robot_configs/bench.yaml (every threshold lives there)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memora_core.config import CONFIG_DIR, load_config, load_yaml

DEFAULT_BENCH_CONFIG = CONFIG_DIR / "bench.yaml"


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MetricsConfig(_Cfg):
    prefadh_relevance_jaccard: float = Field(default=0.05, ge=0, le=1)
    replay_routine_jaccard: float = Field(default=0.10, ge=0, le=1)  # the reference's routine matching (reported only)
    noun_aliases: dict[str, str] = Field(default_factory=dict)


class EamQaRunConfig(_Cfg):
    answerer: str = "structured"
    include_controls: bool = True


class PlanningRunConfig(_Cfg):
    planner: str = "structured"


class RunConfig(_Cfg):
    participants: list[str] = Field(default_factory=lambda: ["P06", "P28"])
    conditions: list[str] | Literal["all"] = "all"
    out_dir: str = "bench_out"
    vectors_backend: Literal["chroma", "none"] = "none"  # CPU default: SQLite reads only, no embedding model
    eam_qa: EamQaRunConfig = Field(default_factory=EamQaRunConfig)
    planning: PlanningRunConfig = Field(default_factory=PlanningRunConfig)


class LlmConfig(_Cfg):
    base_url: str | None = None  # OpenAI-compatible endpoint; None: no LLM (template / CPU paths)
    api_key_env: str = "OPENAI_API_KEY"
    generator_model: str = "generator"
    verifier_model: str = "verifier"
    temperature: float = 0.2
    timeout_s: float = 120.0
    max_retries: int = 2


class EamQaGenConfig(_Cfg):
    min_trigger_count: int = Field(default=3, ge=1)
    min_videos_cross: int = Field(default=2, ge=1)
    dedup_cosine: float = Field(default=0.95, gt=0, le=1)
    control_ratio: float = Field(default=0.20, ge=0, lt=1)
    per_type_cap: int = Field(default=50, ge=1)
    hops: list[int] = Field(default_factory=lambda: [1, 2, 3])
    digest_max_actions: int = Field(default=40, ge=1)
    seed: int = 0


class PlanningGenConfig(_Cfg):
    hard_gap_s: float = 30.0
    soft_gap_s: float = 10.0
    min_steps: int = 3
    max_steps: int = 15
    per_participant: int = 12
    per_type: int = 4
    duplicate_threshold: float = 0.70
    filler_verbs: list[str] = Field(default_factory=lambda: [
        "walk", "look", "check", "hold", "continue", "search", "wait", "stand", "turn", "adjust", "touch"])


class BenchConfig(_Cfg):
    metrics: MetricsConfig = Field(default_factory=MetricsConfig)
    run: RunConfig = Field(default_factory=RunConfig)
    llm: LlmConfig = Field(default_factory=LlmConfig)
    eam_qa_gen: EamQaGenConfig = Field(default_factory=EamQaGenConfig)
    planning_gen: PlanningGenConfig = Field(default_factory=PlanningGenConfig)


def load_bench_config(path: Path | str | None = None) -> BenchConfig:
    path = Path(path) if path else Path(os.environ.get("MEMORA_BENCH_CONFIG", DEFAULT_BENCH_CONFIG))
    return BenchConfig.model_validate(load_yaml(path)) if path.exists() else BenchConfig()


def data_root(override: str | Path | None = None) -> Path:
    """--data wins, then $MEMORA_DATA / the core config's data_dir."""
    return Path(override).resolve() if override else load_config().data_path()
