"""Objects followed across the frames of one video, and the actions their movements show.

Each frame's regions (with their colour and attribute probabilities) are matched to tracks after the view's
own movement is taken out (motion.py). A track at rest stays at its place; one missing from its place while
a region that looks like it moves with the hand elsewhere was picked up (an object hidden by the hand and
seen again at its place was not); a held object that comes to rest away from the hand was put down (in a
container when it rests inside one, else on the surface, next to an object handled before when close to
one); a held object that stays over a container for a while and is carried off again was poured into it.
Times come from the frames: a pick between the last frame at rest and the first frame away, a put at the
first frame of the new rest, a pour in the middle of its time over the container."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from memora_core.perception.camera.motion import global_shift, refine_shift


@dataclass
class Sighting:
    t: float
    centre: np.ndarray
    box: tuple[int, int, int, int]
    colour: str | None
    category: np.ndarray   # class probabilities
    material: np.ndarray
    touches_hand: bool


@dataclass
class Event:
    kind: str            # pick | put | pour
    track: int
    key_s: float
    start_s: float
    end_s: float
    target: int | None = None   # container track (put in / pour into)
    beside: int | None = None   # put next to this track


@dataclass
class Track:
    id: int
    pos: np.ndarray
    state: str = "candidate"          # candidate | resting | held
    seen: int = 0
    last_seen: float = 0.0
    last_rest: float = 0.0
    missing_since: float | None = None
    colours: Counter = field(default_factory=Counter)
    category: np.ndarray | None = None
    material: np.ndarray | None = None
    box: tuple[int, int, int, int] = (0, 0, 0, 0)
    inside: int | None = None         # the container track it rests in
    handled: bool = False
    # while held
    run_start: float = 0.0
    run_pos: np.ndarray | None = None
    run_frames: int = 0
    over: int | None = None           # container it is over
    over_since: float = 0.0
    over_last: float = 0.0
    picked_at: float = 0.0
    merged: bool = False               # folded into an older track of the same object
    pending: list = field(default_factory=list)  # pick (and pours) waiting for the object to land elsewhere
    origin: np.ndarray | None = None
    was_inside: int | None = None

    def vote(self, s: Sighting) -> None:
        if s.colour:
            self.colours[s.colour] += 1
        self.category = s.category.copy() if self.category is None else self.category + s.category
        self.material = s.material.copy() if self.material is None else self.material + s.material
        self.box = s.box

    @property
    def colour(self) -> str | None:
        return self.colours.most_common(1)[0][0] if self.colours else None


class VideoTracker:
    def __init__(self, width: int, height: int, place_tol: float, rest_frames: int, moved_confirm_s: float,
                 pour_min_s: float, beside_tol: float, is_container) -> None:
        self.w, self.h = width, height
        self.tol = place_tol * width
        self.rest_frames, self.moved_confirm_s, self.pour_min_s = rest_frames, moved_confirm_s, pour_min_s
        self.beside_tol = beside_tol * width
        self.is_container = is_container  # Track -> bool (from its category)
        self.tracks: list[Track] = []
        self.events: list[Event] = []
        self.t = 0.0
        self._grey: np.ndarray | None = None

    # ------------------------------------------------------------------ helpers
    def _cost(self, tr: Track, s: Sighting) -> float:
        d = float(np.linalg.norm(tr.pos - s.centre)) / self.tol
        colour = 0.0 if tr.colour in (None, s.colour) else 0.7
        if tr.category is not None:
            p = tr.category / max(1e-9, tr.category.sum())
            colour += 1.0 - float(np.minimum(p, s.category).sum())
        return d + colour

    def _in_view(self, pos: np.ndarray) -> bool:
        m = 0.04 * self.w
        return m <= pos[0] <= self.w - m and m <= pos[1] <= self.h - m

    def _container_at(self, pos: np.ndarray, exclude: int) -> Track | None:
        best, best_d = None, float("inf")
        for c in self.tracks:
            if c.id == exclude or c.state != "resting" or not self.is_container(c):
                continue
            x, y, bw, bh = c.box
            inside = x - 0.15 * bw <= pos[0] <= x + 1.15 * bw and y - 0.25 * bh <= pos[1] <= y + 1.15 * bh
            d = float(np.linalg.norm(c.pos - pos))
            if inside and d < best_d:
                best, best_d = c, d
        return best

    # ------------------------------------------------------------------ per frame
    def step(self, t: float, sightings: list[Sighting], grey: np.ndarray | None = None) -> list[Event]:
        self.t = t
        new_events: list[Event] = []
        resting = [tr for tr in self.tracks if tr.state in ("resting", "candidate")]
        guess = global_shift(self._grey, grey) if grey is not None else np.zeros(2)
        self._grey = grey
        shift = refine_shift(guess, [(tr.pos, tr.colour) for tr in resting], [(s.centre, s.colour) for s in sightings],
                             self.tol)
        for tr in self.tracks:
            tr.pos = tr.pos + shift
            if tr.run_pos is not None:
                tr.run_pos = tr.run_pos + shift
        free = list(range(len(sightings)))
        # 1. tracks at rest keep their places
        pairs = sorted(((self._cost(tr, sightings[j]), i, j) for i, tr in enumerate(self.tracks)
                        if tr.state != "held" and not tr.merged for j in free
                        if np.linalg.norm(tr.pos - sightings[j].centre) < self.tol), key=lambda x: x[0])
        used_t, used_s = set(), set()
        for cost, i, j in pairs:
            if i in used_t or j in used_s or cost > 2.0:
                continue
            used_t.add(i)
            used_s.add(j)
            tr, s = self.tracks[i], sightings[j]
            tr.pos, tr.last_seen, tr.missing_since = s.centre.copy(), t, None
            tr.seen += 1
            tr.vote(s)
            if tr.state == "resting":
                tr.last_rest = t
            elif tr.seen >= self.rest_frames:
                tr.state, tr.last_rest = "resting", t
        free = [j for j in free if j not in used_s]
        for i, tr in enumerate(self.tracks):
            if i not in used_t and tr.state != "held":
                if tr.state == "candidate":
                    tr.seen = 0
                elif tr.missing_since is None and self._in_view(tr.pos):
                    tr.missing_since = t
        # 2. the held object
        held = next((tr for tr in self.tracks if tr.state == "held"), None)
        if held is not None:
            j = self._best(held, free, sightings)
            if j is not None:
                free.remove(j)
                new_events += self._follow(held, sightings[j])
            elif t - held.last_seen > self.moved_confirm_s:
                # lost for long: it was not taken after all (or is out of sight); back to where it was
                held.state, held.pending, held.inside = "resting", [], held.was_inside
                held.pos = held.origin if held.origin is not None else held.pos
                held.missing_since = t
        else:
            # 3. a region that looks like a missing object, away from every place, with the hand: picked up
            for j in list(free):
                s = sightings[j]
                if not s.touches_hand or any(np.linalg.norm(o.pos - s.centre) < self.tol for o in self.tracks
                                             if o.state == "resting" and not o.merged and o.missing_since is None):
                    continue
                cands = [tr for tr in self.tracks if tr.state == "resting" and tr.missing_since is not None
                         and not tr.merged]
                cands = [tr for tr in cands if self._cost(tr, s) - np.linalg.norm(tr.pos - s.centre) / self.tol < 0.8]
                if not cands:
                    continue
                tr = min(cands, key=lambda c: np.linalg.norm(c.pos - s.centre))
                key = (tr.last_rest + tr.missing_since) / 2
                tr.pending = [Event("pick", tr.id, key, tr.last_rest, t)]
                tr.origin, tr.was_inside = tr.pos.copy(), tr.inside
                tr.state, tr.picked_at, tr.inside = "held", key, None
                tr.pos, tr.run_pos, tr.run_start, tr.run_frames, tr.over = s.centre.copy(), s.centre.copy(), t, 1, None
                tr.vote(s)
                free.remove(j)
                break
        # 4. anything else seen is a candidate for a new resting object
        for j in free:
            s = sightings[j]
            if s.touches_hand:
                continue
            tr = Track(id=len(self.tracks), pos=s.centre.copy(), seen=1, last_seen=t)
            tr.vote(s)
            if self.rest_frames <= 1:
                tr.state, tr.last_rest = "resting", t
            self.tracks.append(tr)
        self._merge()
        self.events += new_events
        return new_events

    def _merge(self) -> None:
        """Two resting tracks of the same colour in one place are one object seen twice: the younger one
        goes (its sightings counted to the older)."""
        alive = [tr for tr in self.tracks if tr.state != "held" and not tr.merged]
        for i, a in enumerate(alive):
            for b in alive[i + 1:]:
                if b.merged or a.merged or a.colour != b.colour:
                    continue
                if np.linalg.norm(a.pos - b.pos) < 0.5 * self.tol:
                    b.merged = True
                    a.seen += b.seen
                    a.colours.update(b.colours)
                    if b.category is not None:
                        a.category = b.category if a.category is None else a.category + b.category
                        a.material = b.material if a.material is None else a.material + b.material

    def _best(self, tr: Track, free: list[int], sightings: list[Sighting]) -> int | None:
        """The free region most like the held object (appearance first; nearness and the hand break ties)."""
        best, best_c = None, 1.2
        for j in free:
            s = sightings[j]
            look = self._cost(tr, s) - float(np.linalg.norm(tr.pos - s.centre)) / self.tol
            c = look + 0.1 * min(3.0, float(np.linalg.norm(tr.pos - s.centre)) / self.tol) - (0.2 if s.touches_hand else 0.0)
            if look < 0.9 and c < best_c:
                best, best_c = j, c
        return best

    def _follow(self, tr: Track, s: Sighting) -> list[Event]:
        t, out = self.t, []
        tr.last_seen = t
        tr.vote(s)
        if tr.run_pos is not None and np.linalg.norm(s.centre - tr.run_pos) < 0.35 * self.tol:
            tr.run_frames += 1
        else:
            tr.run_pos, tr.run_start, tr.run_frames = s.centre.copy(), t, 1
        tr.pos = s.centre.copy()
        over = self._container_at(s.centre, tr.id)
        if over is not None and tr.over == over.id:
            tr.over_last = t
        elif over is not None:
            tr.over, tr.over_since, tr.over_last = over.id, t, t
        elif tr.over is not None:
            # carried off the container it hovered over: a pour when it stayed long enough
            if tr.over_last - tr.over_since >= self.pour_min_s - 1e-6:
                mid = (tr.over_since + tr.over_last) / 2
                tr.pending.append(Event("pour", tr.id, mid, tr.over_since, tr.over_last, target=tr.over))
            tr.over = None
        if tr.run_frames >= self.rest_frames and not s.touches_hand:
            inside = self._container_at(s.centre, tr.id)
            beside = None
            if inside is None:
                near = [o for o in self.tracks if o.id != tr.id and o.handled and o.state == "resting"
                        and np.linalg.norm(o.pos - s.centre) < self.beside_tol]
                beside = min(near, key=lambda o: np.linalg.norm(o.pos - s.centre)).id if near else None
            back = (tr.origin is not None and np.linalg.norm(s.centre - tr.origin) < self.tol
                    and len(tr.pending) == 1)
            tr.state, tr.last_rest, tr.missing_since, tr.over = "resting", t, None, None
            tr.seen = tr.run_frames
            if back:  # at rest where it was and nothing happened on the way: hidden, or never taken
                tr.inside, tr.pending = tr.was_inside, []
                return out
            tr.inside, tr.handled = (inside.id if inside else None), True
            out += tr.pending + [Event("put", tr.id, tr.run_start, tr.picked_at, tr.run_start,
                                       target=inside.id if inside else None, beside=beside)]
            tr.pending = []
        return out
