"""The tracker on an object hidden under the hand and back at rest by its place: seen in the hand once only, it
was hidden (no action); seen carried twice, it was picked and put back (sighting sequences built by hand)."""
from __future__ import annotations

import numpy as np

from .test_tracker import SCENE, _hand_at, _held, _run, _s, _tracker


def _back_at_its_place(carried: list[tuple[float, float, float]]) -> list:
    """The yellow spoon, at rest long enough to be trusted, is hidden under the hand from 3.5 s, a like region is
    in the hand away from its place at `carried`, and from 6.5 s (3 s on) it is at rest again a few pixels from its
    place (within half the place tolerance), the hand by it as it shows."""
    tr = _tracker()
    moved = lambda t: [s for s in SCENE(t) if s.colour != "yellow"]  # noqa: E731
    frames = [(t, SCENE(t), _hand_at(30, 30)) for t in np.arange(0.0, 3.5, 0.5)]
    frames += [(3.5, moved(3.5), _hand_at(260, 200))]
    held = {t: (x, y) for t, x, y in carried}
    for t in (4.0, 4.5, 5.0, 5.5, 6.0):
        x, y = held.get(t, (260, 200))
        frames += [(t, moved(t) + ([_held(_s(t, x, y, "yellow", "spoon"))] if t in held else []), _hand_at(x, y))]
    frames += [(t, moved(t) + [_s(t, 264, 203, "yellow", "spoon")], _hand_at(262, 214) if t == 6.5 else None)
               for t in (6.5, 7.0, 7.5, 8.0)]
    events = _run(tr, frames)
    return [(e.kind, tr.tracks[e.track].colour) for e in events]


def test_back_within_half_the_tolerance_of_its_place_seen_carried_once_is_no_action() -> None:
    """Seen in the hand once only (a like-looking region, not enough to say it was carried) and back at rest
    within half the place tolerance of where it was: it was hidden by the hand, not picked and put back."""
    assert _back_at_its_place([(4.5, 225, 140)]) == []


def test_back_at_its_place_seen_carried_twice_is_a_pick_and_a_put() -> None:
    assert _back_at_its_place([(4.5, 225, 140), (5.0, 205, 122)]) == [("pick", "yellow"), ("put", "yellow")]
