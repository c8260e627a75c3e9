"""One name, one set of attributes: what a name leaves unsaid (a loaf's colour, a yellow bowl's material) is
what most reports of that name have said so far, over every video the backend saw.

The camera names an object by the attributes that tell it apart (naming.py); the others it reads too, and
they waver with light and view (a loaf read yellow in one segment and brown in the next). Memory keeps an
object's attributes as its identity, so a wavering one would make the same object two entities. Each report
of a name votes for its unsaid attributes; the report carries the vote's leader (ties go to the earlier)."""
from __future__ import annotations

from collections import Counter

from memora_core.perception.camera.naming import name_says

VOTED = ("colour", "material")  # the attributes a name may leave unsaid and that are voted


class NameVotes:
    def __init__(self, max_names: int = 4096) -> None:
        self.max_names = max_names
        self._votes: dict[str, dict[str, Counter]] = {}

    def settle(self, name: str, attrs: dict[str, str | None]) -> dict[str, str | None]:
        """Count this report's unsaid attributes for `name`; return `attrs` with each unsaid one the leader."""
        said = name_says(**attrs)
        votes = self._votes.get(name)
        if votes is None:
            if len(self._votes) >= self.max_names:  # bounded: the oldest name's votes are forgotten first
                self._votes.pop(next(iter(self._votes)))
            votes = self._votes[name] = {k: Counter() for k in VOTED}
        out = dict(attrs)
        for k in VOTED:
            if k in said or attrs.get(k) is None:
                continue
            votes[k][attrs[k]] += 1
            out[k] = votes[k].most_common(1)[0][0]
        return out

    def clear(self) -> None:
        self._votes.clear()
