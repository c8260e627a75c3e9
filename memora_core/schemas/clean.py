"""Sanitising untrusted text before it reaches a pydantic model.

Model output (and anything decoded from it) may hold lone UTF-16 surrogates, which pydantic-core
refuses wherever a string constraint applies, control characters, and strings of any size.
`clean_text` makes a string safe to validate, store and print: surrogates become U+FFFD, C0/C1 control
characters other than tab, newline and carriage return are dropped, and the result is cut to `max_chars`.
`CleanStr` applies it as a `BeforeValidator`. One linear pass each; never raises on a str.
"""
from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator

MAX_FIELD_CHARS = 4_000  # one string field of a model reply (a step, a reason, a tool argument)

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def clean_text(text: str, max_chars: int = MAX_FIELD_CHARS) -> str:
    """`text` cut to `max_chars`, lone surrogates replaced by U+FFFD and control characters dropped."""
    text = text[:max_chars]
    if text.isascii():
        return _CONTROL.sub("", text)
    return _CONTROL.sub("", _SURROGATE.sub("\ufffd", text))


def _clean_if_str(value: Any) -> Any:
    return clean_text(value) if isinstance(value, str) else value


CleanStr = Annotated[str, BeforeValidator(_clean_if_str)]
