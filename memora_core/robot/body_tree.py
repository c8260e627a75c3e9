"""The MuJoCo body tree, asked one question both robot backends need: does a body belong to the robot?"""
from __future__ import annotations

from typing import Any


def hangs_from(model: Any, body: int, root: int) -> bool:
    """Whether `body` is `root` or hangs from it through its parents (a robot link, not furniture)."""
    while body > 0:
        if body == root:
            return True
        body = int(model.body_parentid[body])
    return False
