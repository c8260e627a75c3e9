"""The printed products one kitchen has shown the camera: each label a track read clearly, with the look evidence
(category, material, colour votes) of the tracks that read it, kept across the videos one backend sees.

A label is printed on one product, so what one view showed of it counts in the next:
- a track whose strongest label class is "no label" (a box seen side on, its print hidden or too small) reads a
  product the kitchen is known to have when that label's evidence is at least `label_prior_ratio` of the no-label
  evidence: a known product is a likelier explanation than a new unlabelled object of the same look;
- a labelled track is named with the evidence of every track that read the same label, in this video and in the
  videos before it (one product, one name, whichever view of it was poorest).
A label is known once a track has read it in `min_seen` sightings or more. Nothing here names a product: the
labels are the label forest's classes, the evidence is what the tracks saw."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from memora_core.perception.camera.tracks import Track


@dataclass
class ProductLook:
    """Summed look evidence (category and material class sums, colour-word votes) of some tracks."""
    category: np.ndarray
    material: np.ndarray
    colours: Counter = field(default_factory=Counter)

    @classmethod
    def of(cls, tracks: list[Track]) -> "ProductLook":
        """The evidence of `tracks` (at least one; each with category and material sums)."""
        return cls(sum((t.category for t in tracks), np.zeros_like(tracks[0].category)),
                   sum((t.material for t in tracks), np.zeros_like(tracks[0].material)),
                   sum((t.name_colours for t in tracks), Counter()))

    def merged(self, other: "ProductLook") -> "ProductLook":
        return ProductLook(self.category + other.category, self.material + other.material,
                           self.colours + other.colours)


def looks(tracks: Iterable[Track], label_of: Callable[[Track], str], min_seen: int) -> dict[str, ProductLook]:
    """The labels clearly read among `tracks` (each by a track seen `min_seen` times or more), with the evidence of
    every track that read it."""
    by_label: dict[str, list[Track]] = {}
    clear = set()
    for tr in tracks:
        if tr.category is None or tr.material is None or tr.state == "candidate":
            continue
        label = label_of(tr)
        if label:
            by_label.setdefault(label, []).append(tr)
            if tr.seen >= min_seen:
                clear.add(label)
    return {k: ProductLook.of(v) for k, v in by_label.items() if k in clear}


class ProductBook:
    """Per video, the products its tracks read (`learn` after each segment replaces that video's entry)."""

    def __init__(self, min_seen: int, max_videos: int = 256) -> None:
        self.min_seen, self.max_videos = min_seen, max_videos
        self._by_video: dict[str, dict[str, ProductLook]] = {}

    def learn(self, video_id: str, tracks: Iterable[Track], label_of: Callable[[Track], str]) -> None:
        self._by_video.pop(video_id, None)
        self._by_video[video_id] = looks(tracks, label_of, self.min_seen)
        while len(self._by_video) > self.max_videos:  # the oldest video's products are forgotten first
            self._by_video.pop(next(iter(self._by_video)))

    def known(self, but: str | None = None) -> set[str]:
        """Labels read clearly in the videos seen (all but video `but`)."""
        return {k for v, products in self._by_video.items() if v != but for k in products}

    def look(self, label: str, but: str | None = None) -> ProductLook | None:
        """The evidence of `label` summed over the videos seen (all but video `but`); None if never read."""
        found = [p[label] for v, p in self._by_video.items() if v != but and label in p]
        if not found:
            return None
        out = found[0]
        for p in found[1:]:
            out = out.merged(p)
        return out

    def clear(self) -> None:
        self._by_video.clear()
