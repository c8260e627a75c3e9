"""The typed result of reading an instruction: what to do (verbs), to what (objects), where (destination)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Task:
    """One job for the planner. `verb` is the first concrete verb (a goal verb such as 'prepare' only when
    the clause names no other), `verbs` every concrete verb of the clause in order ('rinse and dry the
    mug' -> rinse, dry), `objects` the object words (singular; a known compound keeps its modifier),
    `destination` where the objects go ('into the basket'). `text` is the task said plainly; the planner
    uses it as its memory query, so two phrasings of one job query memory alike."""

    text: str
    verb: str
    objects: list[str]
    verbs: tuple[str, ...] = ()
    destination: str | None = None

    @property
    def obj(self) -> str:
        return " ".join(self.objects) or "item"


@dataclass
class ParsedInstruction:
    """`tasks`: the clauses in the order they are to be done (an 'after ...' clause moved first);
    `need`: a stated need that asks for nothing explicitly ("I'm starving"), kept for matching it against
    the person's routines; `task`: the whole instruction as one task (every verb and object)."""

    text: str
    core: str
    tasks: list[Task] = field(default_factory=list)
    need: str | None = None

    @property
    def task(self) -> Task:
        if not self.tasks:
            return Task(self.core or self.text, "do", [])
        if len(self.tasks) == 1:
            return self.tasks[0]
        verbs: list[str] = []
        objects: list[str] = []
        for t in self.tasks:
            verbs += [v for v in t.verbs if v not in verbs]
            objects += [o for o in t.objects if o not in objects]
        return Task(" then ".join(t.text for t in self.tasks), verbs[0] if verbs else "do", objects, tuple(verbs),
                    next((t.destination for t in self.tasks if t.destination), None))

    @property
    def implicit(self) -> bool:
        """Nothing concrete asked: no clause names an object to act on ("I'm starving", "snack time")."""
        return not any(t.objects for t in self.tasks)
