"""Plan agreement between a task's canonical phrasing and a paraphrase of it.

A paraphrase agrees when its plan has the same step texts as the canonical plan, or (where the task has
reference steps) when its task-level reference RGP is within `RGP_TOLERANCE` of the canonical plan's. A
task's reference RGP is the mean of the axes the reference rules define for it (OrderExec, KeyObj,
PrefAdh; memora_bench.metrics.reference), the per-task form of the condition-level RGP.
"""
from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

RGP_TOLERANCE = 0.02
MAX_PARAPHRASE_CHARS = 300


class SuiteError(ValueError):
    """A paraphrase file that is not a valid suite (message: file: field: problem)."""


class Suite(BaseModel):
    model_config = ConfigDict(extra="forbid")
    participant: str
    split: str
    tasks: dict[str, list[str]] = Field(min_length=1)


def load_suite(path: Path) -> Suite:
    try:
        suite = Suite.model_validate(yaml.safe_load(path.read_text()))
    except (OSError, yaml.YAMLError) as exc:
        raise SuiteError(f"{path}: {type(exc).__name__}: {exc}") from exc
    except ValidationError as exc:
        err = exc.errors()[0]
        raise SuiteError(f"{path}: {'.'.join(map(str, err['loc']))}: {err['msg']}") from exc
    for key, items in suite.tasks.items():
        for i, text in enumerate(items):
            if not text.strip() or len(text) > MAX_PARAPHRASE_CHARS:
                raise SuiteError(f"{path}: tasks.{key}.{i}: empty or over {MAX_PARAPHRASE_CHARS} characters")
    return suite


def task_rgp(order_exec: float | None, keyobj: float | None, prefadh: float | None) -> float | None:
    vals = [v for v in (order_exec, keyobj, prefadh) if v is not None]
    return sum(vals) / len(vals) if vals else None


def agrees(canonical: list[str], paraphrase: list[str], rgp_canonical: float | None = None,
           rgp_paraphrase: float | None = None, tol: float = RGP_TOLERANCE) -> bool:
    if [s.strip().lower() for s in canonical] == [s.strip().lower() for s in paraphrase]:
        return True
    if rgp_canonical is None or rgp_paraphrase is None:
        return False
    return abs(rgp_canonical - rgp_paraphrase) <= tol + 1e-9


def agreement(rows: list[bool]) -> float | None:
    return sum(rows) / len(rows) if rows else None
