"""MEMORA-Bench on memora_core: EAM-QA and Planning evaluation, and the construction pipelines."""
__version__ = "0.1.0"
