"""Jinja2 rendering of the HTML reports. Every page extends templates/base.html, which inlines the one
stylesheet (templates/report.css), so a page is one self-contained file plus its images (no CDN, no
network). Other packages (MEMORA-Bench) pass their own template folder, searched before this one."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

TEMPLATES = Path(__file__).resolve().with_name("templates")
_NUMERIC = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?|-|x\d+(\.\d+)?")  # what tables right-align


def num(value: Any, digits: int = 3) -> str:
    """How the reports print a value: '-' for none, floats to `digits` decimals."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def brief(value: Any) -> str:
    """A record's field for people: 'k=v, k=v' for a mapping, 'a, b' for a list, else as `num` prints it."""
    if isinstance(value, dict):
        return ", ".join(f"{k}={brief(v)}" for k, v in sorted(value.items()))
    if isinstance(value, (list, tuple)):
        return ", ".join(brief(v) for v in value)
    return num(value)


def environment(*template_dirs: Path) -> Environment:
    env = Environment(loader=FileSystemLoader([*map(str, template_dirs), str(TEMPLATES)]),
                      autoescape=select_autoescape(("html",), default_for_string=True),
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = num
    env.filters["brief"] = brief
    env.tests["numeric"] = lambda value: bool(_NUMERIC.fullmatch(str(value).strip()))
    return env


def render_page(env: Environment, template: str, path: Path, **context: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(env.get_template(template).render(**context), encoding="utf-8")
    tmp.replace(path)  # a reader never sees half a page
    return path
