"""Offline consolidation: routines and preferences mined from episodes (see run.consolidate)."""
from memora_core.consolidation.run import consolidate, mine

__all__ = ["consolidate", "mine"]
