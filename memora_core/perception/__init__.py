"""Perception backends: one interface (`PerceptionBackend.observe`), selected by configuration.

`make_perception(config)` builds the configured backend; `register_backend(name, cls)` adds one
(the simulator registers `sim` from sim/ code).
"""
from memora_core.perception.base import (
    PerceptionBackend,
    PerceptionConfig,
    PerceptionError,
    PerceptionInput,
    load_perception_config,
    make_perception,
    register_backend,
    registered_backends,
)

__all__ = ["PerceptionBackend", "PerceptionConfig", "PerceptionError", "PerceptionInput",
           "load_perception_config", "make_perception", "register_backend", "registered_backends"]
