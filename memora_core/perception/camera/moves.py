"""How the camera tracker (tracker.py) reads an action from a track's move: an object taken from its place and
seen at rest somewhere else, or carried away and never seen again, makes a pick and a put (or a pour). Read from
where things rest, not from the object in the hand (the hand and forearm hide most of it):
- an object at rest that goes missing from its place while the hand is there (or was there a moment before: at
  2 FPS the hand that lifted it is often already away) has perhaps been taken; one seen again at its place was
  only hidden, as is one found again at its place never seen carried away, however long it was hidden (under the
  hand pouring over it); one resting in a container within its pour window is being handled, so when it goes it
  was taken; parts of one object (a bottle's label bands) taken together in one frame are one object;
- one that went missing with no hand there (hidden by the arm reaching past it) is taken when the hand comes to its
  place within `reach_window_s`, and its pick is timed by that visit;
- a new object coming to rest (seen still for `settle_frames` frames) that looks like an object taken
  earlier is that object, moved: a pick (in the middle of the hand's stay at its place as it went missing, else
  between its last frame at rest and the first frame it was missing) and a put (at the first frame of the new
  rest, or in the middle of the hand's stay there just before it): in a container when it rests inside one, else on the
  surface, next to an object handled before when close to one; back at its old place nothing happened, nor when
  it showed there sooner than a hand can lift, carry and set down a thing (`min_carry_s`: its region changed
  shape, or the view's motion was misread; the object is found again where it shows);
- an object that rests in a container only briefly (taken up again within `pour_window_s`) was poured into
  it, not put there (a pour holds the object still over the container, then carries it off); so was one held
  still against a container for `pour_min_s` or more, in the hand in every frame since it came to rest (tilted
  over the container, its centre is off it), then taken up again. Taken up again is decided when the object is
  seen to have left (moved on, or still away at the end): found again at its place, it was only hidden by the
  hand, and its put stays a put.
Events wait until they are certain (the put into a container for its window), then are reported; at the end of
the video what still waits is reported, also for an object taken up again and not seen at rest since."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from memora_core.perception.camera.tracks import Event, Track

if TYPE_CHECKING:
    from memora_core.perception.camera.tracker import VideoTracker


class MoveReader:
    """The events of tracks that moved, for one `VideoTracker` (whose tracks, tolerances and recent hands it reads)."""

    def __init__(self, tracker: "VideoTracker") -> None:
        self.tk = tracker

    def vanished(self, tr: Track) -> list[Event]:
        """An object seen carried (twice or more) that never came to rest in sight again: it was picked, and put
        into the container where the hand last held it (it vanished into it: the same colour as its contents,
        or below its rim), if one is there."""
        if len(tr.carried) < 2:
            return []
        last_t, last_pos = tr.carried[-1]
        origin_t = tr.pick_time()
        out = [Event("pick", tr.id, origin_t, tr.last_rest, origin_t, taken_s=origin_t)]
        near = [c for c in self.tk.tracks if c.id != tr.id and c.state == "resting" and c.missing_since is None
                and self.tk.is_container(c) and not self.tk.doubles(c, tr)
                and np.linalg.norm(c.pos - last_pos) < 2 * self.tk.tol]
        if near:
            c = min(near, key=lambda c: np.linalg.norm(c.pos - last_pos))
            key = last_t + self.tk.dt / 2
            out.append(Event("put", tr.id, key, last_t, key, target=c.id, taken_s=origin_t))
            tr.inside = c.id
        tr.carried, tr.handled = [], True
        return out

    def settle(self, new: Track) -> list[Event]:
        """Track `new` has come to rest: the same object seen twice, an object taken earlier found at its place or
        moved here (its pick and put wait, see `moved`), or a new object."""
        t = self.tk.t
        new.state, new.last_rest = "resting", t
        taken = [tr for tr in self.tk.tracks if tr.state == "resting" and tr.id != new.id
                 and tr.missing_since is not None
                 and tr.hand_at_miss and tr.missing_since <= new.first_seen + 1e-6
                 and self.tk.look_cost(tr, new.colour, new.category) < 0.8]
        same_place = [tr for tr in self.tk.tracks if tr.state == "resting" and tr.id != new.id
                      and tr.missing_since is None and np.linalg.norm(tr.pos - new.pos) < 0.5 * self.tk.tol
                      and self.tk.look_cost(tr, new.colour, new.category) < 0.8]
        if same_place:  # seen twice: one object
            same_place[0].absorb(new)
            new.state = "gone"
            return []
        if not taken:
            return []
        tr = min(taken, key=lambda c: (round(self.tk.look_cost(c, new.colour, new.category), 1), -c.missing_since))
        new.state = "gone"
        tr.absorb(new)
        tr.seen += new.seen
        d = float(np.linalg.norm(tr.pos - new.pos)) / self.tk.tol
        if not tr.pending and (d < 1 and (t - tr.missing_since < self.tk.moved_confirm_s or not tr.carried)
                               or d < 0.5 and len(tr.carried) < 2):
            # back where it was soon, or never seen carried away (once is not enough back within half the tolerance
            # of its place, where a thing at rest stays): hidden by the hand (and what it held over it, as over a
            # cup being poured into), or put back untouched
            tr.found_at(new.pos, t)
            return []
        arrived, by_hand = self.arrived(new, tr)
        if arrived - tr.missing_since < self.tk.min_carry_s - 1e-6:
            # it showed at the new place sooner than a hand can lift, carry and set down an object: the object never
            # left; its region changed shape (parts merged or split under the hand) or the view's motion was misread
            tr.found_at(new.pos, t)
            return []
        if not by_hand and not tr.carried:
            # it showed at the new place with no hand there and was never seen in the hand: things move only with
            # the hand, so this is the object itself, lost by the tracker (the view turned): found, not moved
            tr.found_at(new.pos, t)
            return []
        return self.moved(tr, new.pos.copy(), arrived)

    def arrived(self, new: Track, taken: Track) -> tuple[float, bool]:
        """When the moved object first showed at the place where it came to rest: going back from its first
        sighting there through the short-lived like-looking sightings at that place (still under the hand, or
        part hidden by it) while they follow one another frame by frame, not before it was taken, and back to the
        hand's stay there just before (see below); and whether the hand was there at any of them."""
        t, hand = new.first_seen, new.hand_at_start
        gap = 1.5 * self.tk.dt
        while True:
            prev = [c for c in self.tk.tracks if c.state == "gone" and c.id != new.id
                    and taken.missing_since <= c.first_seen < t and t - gap <= c.last_seen < t
                    and np.linalg.norm(c.pos - new.pos) < self.tk.tol
                    and self.tk.look_cost(c, new.colour, new.category) < self.tk.max_look]
            if not prev:
                # the hand that sets a thing down hides it until it lets go and draws back: when the hand was at the
                # new place a moment before the object first showed there, the release was under the hand, in the
                # middle of the hand's stay there and the first sighting
                stay = [ht for ht, hm in self.tk.hands if taken.missing_since <= ht < t
                        and t - ht <= self.tk.hand_recent_s + 1e-6 and self.tk._hand_near(hm, new.pos)]
                return ((min(stay) + t) / 2 if stay else t), hand or bool(stay)
            t, hand = min(c.first_seen for c in prev), hand or any(c.hand_at_start for c in prev)

    def moved(self, tr: Track, pos: np.ndarray, rest_s: float) -> list[Event]:
        """Track `tr`, taken from its place, came to rest at `pos` from time `rest_s`: its pick and put wait
        (a put into a container for its pour window)."""
        t = self.tk.t
        tr.pour_confirmed()
        origin_t = tr.pick_time()
        tr.pos, tr.missing_since, tr.last_rest, tr.last_seen = pos, None, t, t
        tr.carried = []
        inside = self.tk.container_at(tr.pos, tr.id)
        beside = None
        if inside is None:
            near = [o for o in self.tk.tracks if o.id != tr.id and o.handled and o.state == "resting"
                    and np.linalg.norm(o.pos - tr.pos) < self.tk.beside_tol]
            beside = min(near, key=lambda o: np.linalg.norm(o.pos - tr.pos)).id if near else None
        # held still over (or against) a container: every sighting since it came to rest touches the hand (step 1)
        over = self.tk.container_against(tr) if inside is None else None
        tr.held_still = True
        if not tr.pending or tr.pending[-1].kind == "put":
            tr.pending.append(Event("pick", tr.id, origin_t, tr.last_rest, origin_t, taken_s=origin_t))
        # the hand hides what it lets go of until it has drawn back: the release was before the thing first showed
        put_s = max(origin_t, rest_s - self.tk.put_lead_s)
        tr.pending.append(Event("put", tr.id, put_s, origin_t, put_s, taken_s=origin_t,
                                target=inside.id if inside else None, beside=beside,
                                over=over.id if over is not None else None))
        tr.inside, tr.handled = (inside.id if inside else None), True
        tr.pending_until = t + (self.tk.pour_window_s if inside is not None or over is not None else 0.0)
        return []
