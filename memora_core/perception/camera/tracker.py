"""Objects followed across the frames of one video.

Each frame's regions (with their colour and attribute probabilities) are matched to tracks after the view's
own movement is taken out (motion.py). Actions are read from changes of where things rest, not from the
object in the hand (the hand and forearm hide most of it): what went missing from its place, and with the hand,
is taken; what then comes to rest elsewhere, or vanishes, is read as pick, put or pour by moves.py."""
from __future__ import annotations

import numpy as np

from memora_core.perception.camera.motion import ViewMotion, apply
from memora_core.perception.camera.moves import MoveReader
from memora_core.perception.camera.tracks import Event, Sighting, Track, overlap

__all__ = ["Event", "Sighting", "Track", "VideoTracker"]


class VideoTracker:
    def __init__(self, width: int, height: int, place_tol: float, rest_frames: int, moved_confirm_s: float,
                 pour_min_s: float, beside_tol: float, is_container, pour_window_s: float = 3.0,
                 forget_s: float = 8.0, hand_recent_s: float = 1.0, min_carry_s: float = 0.0,
                 reach_window_s: float = 0.0, put_lead_s: float = 0.0) -> None:
        self.w, self.h = width, height
        self.tol = place_tol * width
        self.rest_frames = rest_frames
        self.stable_seen = 6  # sightings before a track is trusted to be an object (not a fragment)
        self.max_look = 0.9  # a region this unalike is not the track, however near
        self.double_look = 0.3  # two tracks less unalike than this may be one object seen twice (`doubles`)
        self.hidden_neighbours, self.hidden_reach = 3, 8.0  # a hidden place follows this many seen places this near
        self.carried_within_extent = True  # a region by the hand within the object's extent of its place: not carried
        self.settle_frames = rest_frames + 1
        self.moved_confirm_s, self.pour_min_s = moved_confirm_s, pour_min_s
        self.pour_window_s, self.forget_s = pour_window_s, forget_s
        self.hand_recent_s = hand_recent_s  # the hand was at a place this recently: it may have taken what was there
        self.min_carry_s = min_carry_s  # no object is taken, carried and set down elsewhere faster than this
        self.reach_window_s = reach_window_s  # hidden this recently, then the hand at its place: taken then
        self.put_lead_s = put_lead_s  # a put is timed this long before it was first seen at rest (not before the pick)
        self.beside_tol = beside_tol * width
        self.is_container = is_container  # Track -> bool (from its category)
        self.tracks: list[Track] = []
        self.events: list[Event] = []
        self.t = 0.0
        self.motion = ViewMotion()
        self._frames = 0
        self.dt = 0.5  # seconds between the last two frames
        self.hands: list[tuple[float, np.ndarray]] = []  # (t, hand mask) of the frames of the last `forget_s`
        self.moves = MoveReader(self)
        self.view: np.ndarray | None = None  # the view's transform from the frame before to the latest (None: unknown)

    # ------------------------------------------------------------------ helpers
    def look_cost(self, a: Track, colour: str | None, category: np.ndarray | None) -> float:
        """How unalike a track and a sighting (or another track) look: 0 alike, about 2 unalike."""
        c = 0.0 if a.colour in (None, colour) or colour is None else 0.7
        if a.category is not None and category is not None:
            p = a.category / max(1e-9, a.category.sum())
            q = category / max(1e-9, category.sum())
            c += 1.0 - float(np.minimum(p, q).sum())
        return c

    def _in_view(self, pos: np.ndarray) -> bool:
        m = 0.04 * self.w
        return m <= pos[0] <= self.w - m and m <= pos[1] <= self.h - m

    def _hand_near(self, hand: np.ndarray | None, pos: np.ndarray) -> bool:
        if hand is None:
            return True
        r = int(self.tol)
        x, y = int(pos[0]), int(pos[1])
        return bool(hand[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1].any())

    def doubles(self, a: Track, b: Track) -> bool:
        """Whether tracks `a` and `b` look so alike that they may be one object seen twice (or in pieces)."""
        return self.look_cost(a, b.colour, b.category) < self.double_look

    def _nearest_container(self, me: Track, pos: np.ndarray, fits) -> Track | None:
        """The resting container nearest `pos` that `fits` accepts: not `me`, nor `me`'s look-alike double (a thing
        is not inside the same object seen twice)."""
        found = [c for c in self.tracks if c.id != me.id and c.state == "resting" and self.is_container(c)
                 and not self.doubles(c, me) and fits(c)]
        return min(found, key=lambda c: float(np.linalg.norm(c.pos - pos)), default=None)

    def container_at(self, pos: np.ndarray, exclude: int) -> Track | None:
        """A container whose box (widened a little) holds `pos`: what track `exclude`, at rest there, is in."""
        def holds(c: Track) -> bool:
            x, y, bw, bh = c.box
            return x - 0.1 * bw <= pos[0] <= x + 1.1 * bw and y - 0.2 * bh <= pos[1] <= y + 1.1 * bh
        return self._nearest_container(self.tracks[exclude], pos, holds)

    def container_against(self, tr: Track) -> Track | None:
        """A container whose box touches `tr`'s box (within the place tolerance): what a thing held still beside
        or over it (tilted, so its centre is off the container) may be pouring into. Not its own look-alike."""
        m = int(self.tol)
        return self._nearest_container(tr, tr.pos, lambda c: c.missing_since is None
                                       and overlap(c.box, tr.box, margin=m))

    # ------------------------------------------------------------------ per frame
    def step(self, t: float, sightings: list[Sighting], grey: np.ndarray | None = None,
             hand: np.ndarray | None = None) -> list[Event]:
        if self._frames:
            self.dt = t - self.t
        self.t = t
        self._frames += 1
        if hand is not None:  # the hand of recent frames: where it was before an object came to rest
            self.hands = [(ht, hm) for ht, hm in self.hands if t - ht <= self.forget_s] + [(t, hand)]
        live = [tr for tr in self.tracks if tr.alive]
        if grey is not None:
            a = self.view = self.motion.update(grey, hand)
            for tr in live:
                tr.move_to(apply(a, tr.pos))
        # 1. every track keeps its place if a like region is there
        pairs = []
        for i, tr in enumerate(live):
            for j, s in enumerate(sightings):
                # a thing at rest stays within half the tolerance of its place (what moves further has moved)
                d = float(np.linalg.norm(tr.pos - s.centre)) / self.tol
                look = self.look_cost(tr, s.colour, s.category)
                if d < 0.5 and look < self.max_look:
                    pairs.append((d + look, i, j))
        used_t, used_s = set(), set()
        out: list[Event] = []
        seen_moves: list[tuple[np.ndarray, np.ndarray]] = []  # (place, its correction) of the places seen again
        for cost, i, j in sorted(pairs):
            if i in used_t or j in used_s:
                continue
            tr, s = live[i], sightings[j]
            taken_long = (tr.state == "resting" and tr.missing_since is not None and tr.hand_at_miss
                          and t - tr.missing_since >= self.moved_confirm_s and tr.seen >= self.stable_seen)
            if taken_long:
                # away with the hand for long: a like region near its place is the object in the hand, or the
                # object put back; only one that stays still (a candidate coming to rest, step 3) is put back
                continue
            used_t.add(i)
            used_s.add(j)
            # the place follows the sightings slowly (a candidate not at all): drifting is moving, not resting
            if tr.state == "resting":
                step_to = 0.8 * tr.pos + 0.2 * s.centre
                seen_moves.append((tr.pos.copy(), step_to - tr.pos))
                tr.pos = step_to
            tr.last_seen, tr.missing_since, tr.carried, tr.pour_at = t, None, [], None
            tr.seen += 1
            tr.in_hand = s.touches_hand
            tr.held_still = tr.held_still and s.touches_hand
            if tr.state == "resting" and (s.touches_hand or (hand is not None and self._hand_near(hand, tr.pos))):
                tr.hand_near_t = t
            tr.vote(s)
            if tr.state == "resting":
                tr.last_rest = t
        for i, tr in enumerate(live):
            if i in used_t:
                continue
            if tr.state == "candidate":
                tr.state = "gone"  # not still: something passing (a carried object, the hand's shadow)
            elif tr.missing_since is None and self._in_view(tr.pos):
                # the hand took it if it is there now or was there a moment ago (at 2 FPS the hand that lifted
                # an object is often already away from its place in the first frame it is missing)
                # (and one whose put waits for its pour window is being handled: the hand takes it up again)
                recent = tr.hand_near_t is not None and t - tr.hand_near_t <= self.hand_recent_s + 1e-6
                here = self._hand_near(hand, tr.pos)  # True without a hand mask (nothing says it was not there)
                tr.missing_since, tr.hand_at_miss = t, recent or bool(tr.pending) or here
                tr.hand_left_t = t if hand is not None and here else None
                put = tr.pending[-1] if tr.pending and tr.pending[-1].kind == "put" else None
                if put is not None and (put.target is not None or (
                        put.over is not None and tr.held_still and t - put.key_s >= self.pour_min_s - 1e-6)):
                    # taken up again soon after resting in a container, or after it was held still over one (in the
                    # hand all along, tilted: its centre off the container) for `pour_min_s`: it was poured there;
                    # decided once it is seen to have left (found again at its place, it was only hidden)
                    tr.pour_at = t
            elif tr.missing_since is not None and not tr.hand_at_miss and hand is not None \
                    and t - tr.missing_since < self.reach_window_s and self._in_view(tr.pos) \
                    and self._hand_near(hand, tr.pos):
                # it went missing with no hand there (hidden by the arm reaching, or by what it carried) and now the
                # hand is at its place: it was at rest, hidden, until now, and is taken now (the pick is timed by
                # this visit of the hand, not by when it was first hidden)
                tr.missing_since, tr.hand_at_miss, tr.last_rest = t, True, t - self.dt
                tr.hand_left_t = t
            elif tr.missing_since is not None and tr.hand_at_miss and hand is not None \
                    and t - tr.missing_since <= self.hand_recent_s + 1e-6 and self._hand_near(hand, tr.pos):
                tr.hand_left_t = t  # the hand still at its place a moment after it went missing: still taking it
        self._correct_hidden(live, used_t, seen_moves)
        self._join_parts_taken_together(live, t)
        # 2. what the hand holds away from a place is what it took; what is new starts as a candidate
        self._follow_held(sightings, used_s, t)
        for j, s in enumerate(sightings):
            if j not in used_s:
                tr = Track(id=len(self.tracks), pos=s.centre.copy(), first_seen=t, seen=1, last_seen=t,
                           in_hand=s.touches_hand, hand_at_start=s.touches_hand or self._hand_near(hand, s.centre))
                tr.vote(s)
                self.tracks.append(tr)
        # 3. candidates that stay still come to rest: a new object, or one taken earlier, moved here
        for tr in self.tracks:
            if tr.state == "candidate" and not tr.in_hand and (tr.seen >= self.settle_frames or
                                            (self._frames <= self.settle_frames and tr.seen >= self._frames)):
                out += self.moves.settle(tr)
        # 4. bookkeeping: the long gone are forgotten; waiting events whose time has come are reported
        for tr in self.tracks:
            if tr.state == "resting" and tr.missing_since is not None and t - tr.missing_since > self.forget_s \
                    and not tr.pending:
                out += self.moves.vanished(tr)
                tr.state = "gone"
            out += self._flush(tr, t)
        self.events += out
        return out

    def _correct_hidden(self, live: list[Track], used_t: set[int],
                        seen_moves: list[tuple[np.ndarray, np.ndarray]]) -> None:
        """The view's motion is a fit over the whole frame; its error differs from place to place and adds up over
        the frames an object is hidden. A place seen again is corrected by its sighting; a hidden place (under the
        hand, or left by what the hand took) gets the median correction of the nearest places seen this frame, so
        that it keeps where it lies among its neighbours rather than drifting away from them."""
        if not seen_moves:
            return
        places = np.array([p for p, _ in seen_moves])
        moves = np.array([m for _, m in seen_moves])
        for i, tr in enumerate(live):
            if i in used_t or tr.state != "resting" or tr.missing_since is None:
                continue
            d = np.linalg.norm(places - tr.pos, axis=1)
            near = np.argsort(d)[: self.hidden_neighbours]
            near = near[d[near] <= self.hidden_reach * self.tol]
            if len(near):
                tr.move_to(tr.pos + np.median(moves[near], axis=0))

    def _join_parts_taken_together(self, live: list[Track], t: float) -> None:
        """Parts of one object (a labelled bottle splits into bands that look different) are taken together: tracks
        that went missing in this frame with the hand there, whose boxes overlap, are one object. The one seen
        most keeps the evidence of the others (their looks pool into one name); the others are dropped."""
        went = [tr for tr in live if tr.state == "resting" and tr.missing_since == t and tr.hand_at_miss
                and not tr.pending and tr.seen >= self.stable_seen]
        for tr in sorted(went, key=lambda c: -c.seen):
            if tr.state != "resting":
                continue
            for o in went:
                if o is tr or o.state != "resting" or not overlap(tr.box, o.box):
                    continue
                tr.pool(o)
                tr.seen += o.seen
                o.state = "gone"

    def _follow_held(self, sightings: list[Sighting], used: set[int], t: float) -> None:
        """Held-object tracking: a region touching the hand, away from every resting place, that looks like an
        object the hand took (the one taken last among the like-looking) is that object, carried (lifted
        straight up, it may show just beside its place: anything beyond half the object's size from its place
        counts). Nearer, within the object's own extent, it is the part of the object the hand does not hide, still
        at its place: counted as carried, such pieces made a bowl or cup the hand reached over read as taken and
        moved."""
        taken = [tr for tr in self.tracks if tr.state == "resting" and tr.missing_since is not None
                 and tr.hand_at_miss]
        if not taken:
            return
        for j, s in enumerate(sightings):
            if j in used or not s.touches_hand:
                continue
            tr = min(taken, key=lambda c: (round(self.look_cost(c, s.colour, s.category), 1), -c.missing_since))
            reach = 0.5 * self.tol
            if self.carried_within_extent:  # a piece within the object's own extent is the object, partly hidden
                reach = max(reach, 0.5 * max(tr.box[2], tr.box[3]))
            if self.look_cost(tr, s.colour, s.category) < 0.5 and np.linalg.norm(tr.pos - s.centre) > reach:
                tr.carried.append((t, s.centre.copy()))

    def _flush(self, tr: Track, t: float) -> list[Event]:
        if tr.state != "resting" or tr.missing_since is not None or not tr.pending or t < tr.pending_until:
            return []
        out, tr.pending = tr.pending, []
        return out

    def flush_all(self) -> list[Event]:
        """At the end of the video: what is still waiting is reported."""
        out = []
        for tr in self.tracks:
            if tr.state == "resting" and tr.missing_since is None:
                tr.pending_until = 0.0
                out += self._flush(tr, self.t)
            elif tr.state == "resting" and tr.pending:
                tr.pour_confirmed()
                out += tr.pending  # taken up again and not seen to rest since: what it did before still happened
                tr.pending = []
            elif tr.state == "resting" and tr.hand_at_miss:
                out += self.moves.vanished(tr)
        self.events += out
        return out
