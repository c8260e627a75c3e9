"""An instruction that asks for nothing concrete ("I'm parched", "snack time?") matched to the person's
routines by meaning: MiniLM cosine between what was said and each routine's goal, name and summary (the
spoken cue a routine was learned under is part of its name). No word list says which need goes with which
routine; the routine's own words do."""
from __future__ import annotations

import numpy as np

from memora_core.agents.answering.embeddings import embed_texts


def routine_text(r: dict) -> str:
    return " ".join(dict.fromkeys(str(r.get(k) or "") for k in ("goal", "name", "summary"))).strip()


def match_need(said: str, routines: list[dict], backend: str, min_sim: float) -> tuple[dict | None, float]:
    """(best routine, its cosine) when the cosine reaches `min_sim`, else (None, best cosine). Without an
    embedder (backend 'none' or not installed) nothing is matched."""
    texts = [routine_text(r) for r in routines]
    if not said.strip() or not texts:
        return None, 0.0
    vecs = embed_texts([said, *texts], backend)
    if said not in vecs:
        return None, 0.0
    q = vecs[said]
    best, best_sim = None, -1.0
    for r, t in zip(routines, texts):
        if t in vecs:
            sim = float(np.dot(q, vecs[t]))
            if sim > best_sim:
                best, best_sim = r, sim
    return (best, best_sim) if best is not None and best_sim >= min_sim else (None, max(best_sim, 0.0))
