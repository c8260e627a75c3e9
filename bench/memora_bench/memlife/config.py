"""MemLife configuration: robot_configs/memlife.yaml validated by these models (the one place for defaults)."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memora_core.config import CONFIG_DIR, EmbeddingConfig, SegmentingConfig, load_yaml
from memora_core.llm.base import LLMConfig

MEMLIFE_CONFIG = CONFIG_DIR / "memlife.yaml"


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WriterConfig(_Cfg):
    kind: Literal["template", "llm", "vlm"] = Field(
        default="template", description="template: deterministic first-person text from the perception JSON "
        "(CPU, CI); llm: perception JSON + transcript through the text LLM of robot_configs/llm.yaml; vlm: "
        "frames + transcript through an OpenAI-compatible server")
    prompt_version: str = Field(default="v1", description="memlife/prompts/writer_<version>.md")
    max_new_tokens: int = Field(default=512, ge=1, le=512, description="greedy decoding budget per entry")
    max_entry_chars: int = Field(default=4000, ge=64, description="an entry longer than this is cut")
    max_prompt_json_chars: int = Field(default=6000, ge=256,
                                       description="perception JSON longer than this is cut in the prompt")


class ReaderConfig(_Cfg):
    kind: Literal["deterministic", "llm"] = Field(default="deterministic", description="reader policy")
    prompt_version: str = Field(default="v1", description="memlife/prompts/reader_<version>.md")
    max_rounds: int = Field(default=10, ge=1, le=10, description="tool calls + final answer, at most")
    search_k: int = Field(default=32, ge=1, le=32, description="entries a SearchMemory returns, at most")
    fetch_k: int = Field(default=64, ge=1, le=64, description="entries a FetchMemory returns, at most")
    video_frames: int = Field(default=50, ge=1, le=50, description="frames a FetchVideo returns, at most")
    max_new_tokens: int = Field(default=256, ge=1, description="LLM reader tokens per round")
    max_result_chars: int = Field(default=6000, ge=256, description="tool result text shown to the LLM reader")
    answer_min_score: float = Field(default=0.30, description="deterministic reader: below this best "
                                    "choice/entry similarity it answers E (not available)")


class MemLifeConfig(_Cfg):
    segmenting: SegmentingConfig = Field(default_factory=lambda: SegmentingConfig(segment_s=30.0, min_tail_s=1.0),
                                         description="MemLife's own segment grid (30 s; a tail < 1 s folds)")
    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig,
                                       description="entry embedder (MiniLM offline; hashing for tests)")
    writer: WriterConfig = Field(default_factory=WriterConfig)
    reader: ReaderConfig = Field(default_factory=ReaderConfig)
    llm: LLMConfig | None = Field(default=None, description="the LLM of the llm/vlm writer and the llm reader; "
                                  "None: robot_configs/llm.yaml")
    oracle_k: int = Field(default=64, ge=1, le=64, description="evidence-aligned entries handed to the "
                          "reader for oracle accuracy")


def load_memlife_config(path: Path | str | None = None) -> MemLifeConfig:
    """The given file (which must exist), else robot_configs/memlife.yaml, else the defaults."""
    if path is not None and not Path(path).is_file():
        raise FileNotFoundError(f"{path}: no such MemLife config")
    path = Path(path) if path else MEMLIFE_CONFIG
    return MemLifeConfig.model_validate(load_yaml(path)) if path.exists() else MemLifeConfig()
