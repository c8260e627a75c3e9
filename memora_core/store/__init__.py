"""Durable memory: SQLite system of record, Chroma vectors, embedders."""
from memora_core.store.errors import StoreLockedError, StorePathError
from memora_core.store.memory_store import MemoryStore
from memora_core.store.sqlite_store import SegmentWrite, SQLiteStore, StoreStats

__all__ = ["MemoryStore", "SQLiteStore", "SegmentWrite", "StoreLockedError", "StorePathError", "StoreStats"]
