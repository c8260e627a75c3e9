"""The tracker's actions timed by the hand: a pick at the moment the hand took hold, a put at the moment it let go.

The tracker (tracker.py, moves.py) knows what moved and where to; the hand reader (holding.py) knows when the hand
took hold and let go. Per video, each grasp and each release times at most one action:
- a pick is timed at the nearest grasp within `within_s` of when the tracker read it; a put at the nearest release
  within `within_s`, or else, when its object's pick was timed by a grasp, at the release that ended that hold (the
  tracker learns of a put only once the object shows at rest after the hand drew back, sometimes seconds later);
- a pick or put with no such moment is dropped when `drop_unmatched` (nothing was taken or let go then);
- an object whose pick was timed by a grasp and that the tracker has not seen put anywhere when that hold ended is
  put where the tracker last placed it (in its container, else on the surface) at the release: whatever the hand
  took, it let go of when it let go;
- a pour is timed in the middle of the hold's tilted frames (holding.py's second forest) when the reader saw any,
  else it keeps the tracker's time; a hold with tilted frames and no pour read pours into the container the hand was
  over most in those frames (no target when it was over none); with `pour_by_hand`, every pour goes into the
  container the hand was over most while it poured (its tilted frames, else the tracker's pour window), where the
  hand was over one;
- the events of one hold wait until its put is known (or `wait_s` after its release, then the hold ends in a put at
  the release), and come out naming the one object the hand held (hold_object.py);
- at the end of the video, a hold no action was timed by takes the object that went missing with the hand there
  around its grasp (`unread_holds`)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from memora_core.perception.camera.hold_object import one_object
from memora_core.perception.camera.holding import HoldReader
from memora_core.perception.camera.tracks import Event


@dataclass
class HandTiming:
    reader: HoldReader
    within_s: float
    drop_unmatched: bool
    wait_s: float  # a hold's events wait this long after its release for the tracker to read its put
    pour_by_hand: bool  # a pour goes into the container the hand lay on most as it poured (config pour_target)
    claimed: set[int] = field(default_factory=set)       # transitions that timed an action
    holds: dict[int, int] = field(default_factory=dict)  # track -> the grasp its latest pick was timed by
    over: list[tuple[float, int | None]] = field(default_factory=list)  # (t, the container at rest the hand is on)
    waiting: dict[int, list[Event]] = field(default_factory=dict)  # grasp -> the events of a hold not yet over

    def saw(self, t: float, hand, tracker) -> None:
        """A frame's hand mask (None: none found): the container at rest it lies on most, if any (seen, or hidden at
        its place: the hand pouring over a cup hides it)."""
        best, most = None, 0
        if hand is not None:
            for tr in tracker.tracks:
                if tr.state == "resting" and tracker.is_container(tr):
                    x, y, w, h = tr.box
                    n = int(hand[max(0, y):y + h, max(0, x):x + w].sum())
                    if n > most:
                        best, most = tr.id, n
        self.over.append((t, best))

    def _pour(self, track: int, release: int, read: list[Event]) -> list[Event]:
        """The pour of the hold that ended at transition `release`: the tracker's pours in it (`read`) retimed to
        the middle of its tilted frames, or one pour there when the tracker read none; none without tilted frames."""
        if release < 1:
            return []
        g, r = self.reader.transitions[release - 1][0], self.reader.transitions[release][0]
        tilted = [t for t in self.reader.tilted if g < t < r]
        if not tilted:
            return []
        mid = (min(tilted) + max(tilted)) / 2
        under = self._under_hand(min(tilted), max(tilted), track)
        if read:
            return [replace(e, key_s=mid, start_s=min(tilted), end_s=max(tilted),
                            target=under if self.pour_by_hand and under is not None else e.target) for e in read]
        return [Event("pour", track, mid, min(tilted), max(tilted), target=under)]

    def _under_hand(self, t0: float, t1: float, track: int) -> int | None:
        """The container (not `track`) the hand lay on in most frames from `t0` to `t1`, if any."""
        seen = [c for t, c in self.over if c is not None and c != track and t0 <= t <= t1]
        return max(set(seen), key=seen.count) if seen else None

    def _hold_at(self, t: float) -> int | None:
        """The grasp (transition index) of the hold going on at `t`, if the hand held something then."""
        tr = self.reader.transitions
        for g, (tg, kind) in enumerate(tr):
            if kind == "grasp" and tg <= t and (g + 1 >= len(tr) or t <= tr[g + 1][0]):
                return g
        return None

    def _tracker_pour(self, e: Event) -> tuple[Event, int | None]:
        """A pour the tracker read that no tilted frames timed: in the hold going on then (if any), and, with
        `pour_by_hand`, into the container the hand lay on most while it poured."""
        if self.pour_by_hand:
            under = self._under_hand(min(e.start_s, e.end_s), max(e.start_s, e.end_s), e.track)
            if under is not None:
                e = replace(e, target=under)
        return e, self._hold_at(e.key_s)

    def _release_after(self, grasp: int) -> int | None:
        """The release that ended the hold begun at transition `grasp` (unclaimed), if the reader has seen it."""
        nxt = grasp + 1
        tr = self.reader.transitions
        if nxt < len(tr) and tr[nxt][1] == "release" and nxt not in self.claimed:
            return nxt
        return None

    def timed(self, events: list[Event], tracker) -> list[Event]:
        """`events` (one batch, as the tracker reported them) timed by the hand; `tracker` gives a track's place.
        Events and moments are paired nearest first (a move read 0.3 s from a grasp gets it before one read
        0.8 s from it), one moment per event and one event per moment. The events of a hold wait until its put is
        known (or `wait_s` after its release), then come out naming one object (hold_object.py)."""
        return self._by_hold(self._time(events, tracker), tracker, final=False)

    def flush(self, tracker) -> list[Event]:
        """At the end of the video: the holds still waiting, each ending in its put."""
        return self._by_hold([], tracker, final=True)

    def _time(self, events: list[Event], tracker) -> list[tuple[Event, int | None]]:
        """The events timed, each with the grasp (transition index) of the hold that timed it (None: no hold)."""
        moments = self.reader.transitions
        want = {"pick": "grasp", "put": "release"}
        pairs = sorted((abs(t - e.key_s), j, i) for j, e in enumerate(events) if e.kind in want
                       for i, (t, k) in enumerate(moments)
                       if k == want[e.kind] and i not in self.claimed and abs(t - e.key_s) <= self.within_s)
        chosen: dict[int, int] = {}
        for _, j, i in pairs:
            if j not in chosen and i not in self.claimed:
                chosen[j] = i
                self.claimed.add(i)
        picked: dict[int, int] = {}  # track -> grasp, picks of this batch
        for j, e in enumerate(events):
            if e.kind == "pick" and j in chosen:
                self.holds[e.track] = picked[e.track] = chosen[j]
        out: list[tuple[Event, int | None]] = []
        ended: list[tuple[int, int]] = []  # (track, release) of the puts timed by a release
        pours = [e for e in events if e.kind == "pour"]
        for j, e in enumerate(events):
            if e.kind not in want:
                if e.kind != "pour":
                    out.append((e, None))
                continue
            i = chosen.get(j)
            if i is None and e.kind == "put" and e.track in self.holds:
                i = self._release_after(self.holds[e.track])  # read late: the release that ended its hold
                if i is not None:
                    self.claimed.add(i)
            if i is None:
                if not self.drop_unmatched:
                    out.append((e, None))
                continue
            out.append((self._retimed(e, i), i if e.kind == "pick" else i - 1))
            if e.kind == "put":
                ended.append((e.track, i))
        put_tracks = {e.track for e, _ in out if e.kind == "put"} | {e.track for e in pours}
        for track, grasp in picked.items():
            r = None if track in put_tracks else self._release_after(grasp)
            if r is not None:
                self.claimed.add(r)
                out.append((self._put_at(track, r, tracker), grasp))
                ended.append((track, r))
        for track, r in ended:
            mine = [e for e in pours if e.track == track and moments[r - 1][0] - self.within_s <= e.key_s
                    <= moments[r][0]]
            poured = self._pour(track, r, mine)
            out += [(e, r - 1) for e in poured]
            pours = [e for e in pours if e not in mine or not poured]
        out += [self._tracker_pour(e) for e in pours]  # the tracker's pours no hold with tilted frames timed
        return out

    def _retimed(self, e: Event, moment: int) -> Event:
        """`e` timed by transition `moment`, at that moment alone: a pick at the grasp, a put at the release. Memory
        orders a video's actions by their start, so a put keeping the tracker's start (where it saw the object
        leave, often before the grasp) came before its own pick, and one spanning its hold came before the pour in
        it."""
        t = self.reader.transitions[moment][0]
        return replace(e, key_s=t, start_s=t, end_s=t)

    def _put_at(self, track: int, release: int, tracker) -> Event:
        """A put of `track` at the release `release` (the hold's own, the tracker having read none): where the
        tracker last placed it."""
        t = self.reader.transitions[release][0]
        return Event("put", track, t, t, t, target=tracker.tracks[track].inside)

    def _by_hold(self, timed: list[tuple[Event, int | None]], tracker, final: bool) -> list[Event]:
        """The events with no hold, and those of each hold that is over: its put known, or its release `wait_s`
        ago, or the video ended (a hold with no put read ends in one at its release)."""
        ready = [e for e, h in timed if h is None]
        for e, h in timed:
            if h is not None:
                self.waiting.setdefault(h, []).append(e)
        moments = self.reader.transitions
        for g in sorted(self.waiting):
            evs = self.waiting[g]
            r = g + 1 if g + 1 < len(moments) and moments[g + 1][1] == "release" else None
            has_put = any(e.kind == "put" for e in evs)
            if not (has_put or final or (r is not None and tracker.t - moments[r][0] >= self.wait_s)):
                continue
            del self.waiting[g]
            if not has_put:
                picks = [e for e in evs if e.kind == "pick"]
                r = self._release_after(g)
                if picks and r is not None:
                    self.claimed.add(r)
                    evs = evs + [self._put_at(picks[0].track, r, tracker)] + (
                        [] if any(e.kind == "pour" for e in evs) else self._pour(picks[0].track, r, []))
            tracks = tracker.tracks
            evs = one_object(evs, moments[g][0], lambda i: bool(tracker.is_container(tracks[i])),
                             lambda a, b: tracker.doubles(tracks[a], tracks[b]))
            self.holds[evs[0].track] = g
            ready += evs
        return sorted(ready, key=lambda e: e.key_s)

    def unread_holds(self, tracker) -> list[Event]:
        """At the end of the video, the holds no action was timed by: the hand took something the tracker did not
        read as moved. What it took is the object that went missing from its place with the hand there, from a
        second before the grasp to `within_s` after it (the one seen most, when several did), not one another
        hold took: picked at the grasp and put at the release, where the tracker last placed it."""
        moments, out = self.reader.transitions, []
        for g in range(len(moments) - 1):
            if moments[g][1] != "grasp" or g in self.claimed or moments[g + 1][1] != "release" \
                    or g + 1 in self.claimed:
                continue
            tg = moments[g][0]
            taken = [tr for tr in tracker.tracks if tr.missing_since is not None and tr.hand_at_miss
                     and tr.seen >= tracker.stable_seen and tr.id not in self.holds
                     and tg - 1.0 <= tr.missing_since <= tg + self.within_s]
            if not taken:
                continue
            tr = max(taken, key=lambda c: c.seen)
            self.claimed.update((g, g + 1))
            self.holds[tr.id] = g
            out += [Event("pick", tr.id, tg, tg, tg), self._put_at(tr.id, g + 1, tracker)]
            out += self._pour(tr.id, g + 1, [])
        return out
