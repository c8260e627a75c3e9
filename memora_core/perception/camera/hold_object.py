"""One object per hold: the pick, pours and put that a grasp and its release timed (hand_timing.py) name the object
the hand took, since a hand holds one thing between taking hold and letting go.

The tracker reads each event from a track of its own, and they need not agree: a region that changes as the hand
lets go (a bowl that a box is put into) reads as that object moved; a stray piece of an object seen twice, or one
hidden by the arm as it reached, reads as taken. Of the tracks the hold's events were read on, the object held is:
- not a track another of its events puts or pours into, nor one that looks just like it (what received the object
  is not the object; an object followed as two tracks, in pieces, looks alike);
- else the one with the most events in the hold (seen taken and come to rest elsewhere, or poured, over one only
  seen to go missing);
- else the one the tracker saw leave its place nearest the moment the hand took hold (the events' `taken_s`; the
  pick's own track where no event knows).
The other events are renamed to it. A put read on a container that the hand did not take is where the held object
went: that container changed when the hand let go, so it becomes the put's target."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from memora_core.perception.camera.tracks import Event


def held_track(events: list[Event], grasp_s: float, alike: Callable[[int, int], bool]) -> int:
    """The track of the object the hand took at `grasp_s`, of the tracks `events` (one hold's) were read on;
    `alike(a, b)`: tracks a and b look like one object."""
    received = {e.target for e in events if e.kind in ("put", "pour") and e.target is not None}
    count = Counter(e.track for e in events)

    def rank(e: Event) -> tuple[bool, int, float, bool]:
        gap = abs(e.taken_s - grasp_s) if e.taken_s is not None else float("inf")
        into = any(e.track == r or alike(e.track, r) for r in received)
        return into, -count[e.track], gap, e.kind != "pick"
    return min(events, key=rank).track


def one_object(events: list[Event], grasp_s: float, is_container: Callable[[int], bool],
               alike: Callable[[int, int], bool]) -> list[Event]:
    """`events` (one hold's) all naming the object held (see the module's docstring)."""
    if len({e.track for e in events}) <= 1:
        return events
    held = held_track(events, grasp_s, alike)
    out = []
    for e in events:
        if e.track == held:
            out.append(e)
        elif e.kind == "put" and is_container(e.track):
            out.append(replace(e, track=held, target=e.track, beside=None))
        else:
            out.append(replace(e, track=held, target=None if e.target == held else e.target))
    return out
