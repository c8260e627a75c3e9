"""What the tracker (tracker.py) keeps: a frame's sightings of object regions, the tracks that follow objects
across frames, and the events (pick, put, pour) read from where the tracks rest."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Sighting:
    t: float
    centre: np.ndarray
    box: tuple[int, int, int, int]
    colour: str | None
    category: np.ndarray   # class probabilities
    material: np.ndarray
    touches_hand: bool
    label: np.ndarray | None = None  # label class probabilities (None: not read)
    name_colour: str | None = None   # the colour word to name the object by (the colour forest's); None: `colour`


@dataclass
class Event:
    kind: str            # pick | put | pour
    track: int
    key_s: float
    start_s: float
    end_s: float
    target: int | None = None   # container track (put in / pour into)
    beside: int | None = None   # put next to this track
    over: int | None = None     # put down still in the hand, over (or against) this container track: if taken up
                                # again within the pour window, it was poured there
    taken_s: float | None = None  # when the tracker saw the object leave its place (the hold it belongs to, hold_object.py)


@dataclass
class Track:
    id: int
    pos: np.ndarray
    first_seen: float
    state: str = "candidate"          # candidate | resting | gone
    seen: int = 0                     # consecutive sightings (candidates), sightings in all (resting)
    last_seen: float = 0.0
    last_rest: float = 0.0
    missing_since: float | None = None
    hand_at_miss: bool = False        # the hand was at its place when it went missing
    colours: Counter = field(default_factory=Counter)       # hue-rule colour words seen: what looks alike
    name_colours: Counter = field(default_factory=Counter)  # the words it is named by (Sighting.name_colour)
    category: np.ndarray | None = None
    material: np.ndarray | None = None
    label: np.ndarray | None = None
    box: tuple[int, int, int, int] = (0, 0, 0, 0)  # in the latest frame's pixels (moved with the view while unseen)
    box_drift: np.ndarray = field(default_factory=lambda: np.zeros(2))  # the box's move not yet in whole pixels
    inside: int | None = None         # the container track it rests in
    handled: bool = False
    pending: list = field(default_factory=list)
    pending_until: float = 0.0
    in_hand: bool = False             # its latest sighting touches the hand (still held, perhaps)
    hand_at_start: bool = False       # the hand was at its place when it was first seen there
    pour_at: float | None = None      # taken up again then, soon after resting in / held still over a container
    held_still: bool = False          # since it came to rest, every sighting touched the hand (held, not let go)
    carried: list = field(default_factory=list)  # (t, position) where it was seen in the hand since taken
    hand_near_t: float | None = None  # the last time the hand was at its place
    hand_left_t: float | None = None  # the last time the hand was at its place a moment after it went missing

    def vote(self, s: Sighting) -> None:
        if s.colour:
            self.colours[s.colour] += 1
        if s.name_colour or s.colour:
            self.name_colours[s.name_colour or s.colour] += 1
        self.category = s.category.copy() if self.category is None else self.category + s.category
        self.material = s.material.copy() if self.material is None else self.material + s.material
        if s.label is not None:
            self.label = s.label.copy() if self.label is None else self.label + s.label
        self.box, self.box_drift = s.box, np.zeros(2)

    def pool(self, other: "Track") -> None:
        """Take `other`'s look evidence (colour votes, category, material and label sums) as its own."""
        self.colours.update(other.colours)
        self.name_colours.update(other.name_colours)
        for a in ("category", "material", "label"):
            x, y = getattr(self, a), getattr(other, a)
            setattr(self, a, y if x is None else x if y is None else x + y)

    def absorb(self, other: "Track") -> None:
        """`other` was this object seen again: its evidence pools into this track, and its box is the latest."""
        self.pool(other)
        self.box, self.box_drift = other.box, other.box_drift.copy()

    def move_to(self, pos: np.ndarray) -> None:
        """Its place carried to `pos` (the view moved, or a hidden place was corrected by its neighbours), and its
        box with it, in whole pixels (the fraction left over carries to the next move)."""
        d = pos - self.pos + self.box_drift
        if not np.all(np.isfinite(d)):  # no move to carry (a degenerate view transform): the box stays
            self.pos = pos
            return
        step = np.round(d)
        self.box_drift = d - step
        self.box = (self.box[0] + int(step[0]), self.box[1] + int(step[1]), self.box[2], self.box[3])
        self.pos = pos

    def found_at(self, pos: np.ndarray, t: float) -> None:
        """Missing, found again at rest at `pos`: it never left (no pick, no put, no pour)."""
        self.pos, self.missing_since, self.last_rest, self.last_seen, self.pour_at = pos.copy(), None, t, t, None

    def pour_confirmed(self) -> None:
        """Taken up again at `pour_at` soon after it rested in (or was held still over) a container, and seen to be
        gone from there (moved on, or not found at that place again): its put there was a pour."""
        if self.pour_at is None or not self.pending or self.pending[-1].kind != "put":
            self.pour_at = None
            return
        put = self.pending[-1]
        self.pending[-1] = Event("pour", self.id, (put.key_s + self.last_rest) / 2, put.key_s, self.pour_at,
                                 target=put.target if put.target is not None else put.over, taken_s=put.taken_s)
        self.inside, self.pour_at = None, None

    def pick_time(self) -> float:
        """When the hand took it: the hand that comes to take an object hides it before it grasps it, so when the
        hand was at its place as it went missing, the grasp is while the hand stayed there (the middle of its
        stay, up to a moment after); else between its last frame at rest and the first it was missing."""
        if self.hand_left_t is not None and self.hand_left_t >= self.missing_since:
            return (self.missing_since + self.hand_left_t) / 2
        return (self.last_rest + self.missing_since) / 2

    @property
    def colour(self) -> str | None:
        return self.colours.most_common(1)[0][0] if self.colours else None

    @property
    def alive(self) -> bool:
        return self.state != "gone"


def overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int], margin: int = 1) -> bool:
    """Two boxes (x, y, w, h) overlap or touch (within `margin` px)."""
    return (a[0] - margin < b[0] + b[2] and b[0] - margin < a[0] + a[2]
            and a[1] - margin < b[1] + b[3] and b[1] - margin < a[1] + a[3])
