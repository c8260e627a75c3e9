"""A small real memory store (SQLite, written by the real MemoryWriter + consolidation) for node tests:
three demonstrations of pouring the Coca-Cola into the orange cup, with the Fanta can in view."""
from __future__ import annotations

from pathlib import Path

OBJECTS = {"coca-cola bottle": dict(category="bottle", colour="red", label="Coca-Cola"),
           "fanta can": dict(category="can", colour="yellow", label="Fanta"),
           "orange cup": dict(category="cup", colour="orange")}
STEPS = [("pick up", "coca-cola bottle", None), ("pour", "coca-cola bottle", "orange cup"),
         ("put down", "coca-cola bottle", None)]


def build_drink_store(root: Path, participant: str = "P01", sessions: int = 3) -> Path:
    from memora_core.consolidation import consolidate
    from memora_core.editing import MemoryWriter, load_editor_config, make_decider
    from memora_core.schemas import ObjectObservation, Segment, SegmentObservation
    from memora_core.schemas.observation import ActionObservation
    from memora_core.store.sqlite_store import SQLiteStore

    store = SQLiteStore(root)
    ecfg = load_editor_config()
    ecfg = ecfg.model_copy(update={"candidates": ecfg.candidates.model_copy(update={"embedder": "hashing"})})
    writer = MemoryWriter(store, None, make_decider(ecfg), config=ecfg)
    for v in range(sessions):
        for i, (verb, noun, target) in enumerate(STEPS):
            seg = Segment(participant_id=participant, video_id=f"{participant}_drink_{v}", index=i,
                          start_s=i * 10.0, end_s=i * 10.0 + 10.0)
            text = f"{verb} {noun}" + (f" into {target}" if target else "")
            writer.process(SegmentObservation(
                segment=seg, objects=[ObjectObservation(name=k, **a) for k, a in OBJECTS.items()],
                actions=[ActionObservation(verb=verb, nouns=[noun] + ([target] if target else []),
                                           start_s=i * 10 + 1.0, end_s=i * 10 + 5.0, text=text)],
                summary=text, backend="fixture"))
    consolidate(store, participant)
    store.close()
    return root
