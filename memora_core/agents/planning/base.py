"""What every part of the structured planner shares: its memory, configuration and vocabulary, the tool-call
budget, the instruction parser, the routines read for a task, the task-text templates and the transfer of
a procedure to the task's object."""
from __future__ import annotations

import re
from typing import Any

from memora_core.agents.calls import CallLog
from memora_core.agents.config import AgentsConfig, load_agents_config
from memora_core.agents.instruction import InstructionParser, ParsedInstruction, Task
from memora_core.agents.planning.labels import dedupe_labels, split_label
from memora_core.agents.vocab import Vocabulary, default_vocabulary
from memora_core.schemas import Evidence, Plan
from memora_core.tools.registry import ToolResult
from memora_core.tools.text import stem, tokens


class PlannerBase:
    """State and helpers the planner's parts (recall, composition, preferences, grounding ...) build on."""

    def __init__(self, memory: Any, config: AgentsConfig | None = None,
                 vocabulary: Vocabulary | None = None) -> None:
        self.memory = memory
        self.cfg = config or load_agents_config()
        self.family = getattr(memory, "family", "memora")
        self._routines_cached: dict[str, list[dict]] = {}
        # Entity memory records any read of this plan has returned (search_objects, locate_objects), by name
        # and alias: what the planner already knows about an object's place, used when grounding
        self._entities_read: dict[str, dict] = {}
        self._shared_routines: list[dict] | None = None
        self.vocab = vocabulary if vocabulary is not None else default_vocabulary()
        self._parser: InstructionParser | None = None

    def synonyms(self, verb: str) -> frozenset[str]:
        """Stemmed verbs that do the same job as `verb` ('clean' -> wipe, wash, scrub)."""
        syn = self.cfg.agents.verb_synonyms
        return frozenset(stem(v) for v in syn.get(verb, []) + syn.get(stem(verb), []))

    # budget: every planner gets the same number of tool calls
    def _budget_left(self, log: CallLog, reserve: int = 0) -> bool:
        return len(log.calls) + reserve < self.cfg.agents.max_iterations

    def _call(self, log: CallLog, tool: str, args: dict) -> ToolResult:
        if not self._budget_left(log):
            return ToolResult(tool=tool, ok=False, error="tool budget exhausted")
        res = log.call(tool, args)
        if tool in ("search_objects", "locate_objects") and res.ok:
            self._remember_entities(res.items)
        return res

    def _remember_entities(self, items: list[dict]) -> None:
        """Keep each Entity memory record a read returned under its name and aliases (the first record for
        a name wins: reads rank their best match first)."""
        for it in items:
            if not it.get("entity_id") or not it.get("name"):
                continue
            for n in [it["name"], *it.get("aliases", [])]:
                self._entities_read.setdefault(str(n).lower(), it)

    def parse(self, instruction: str) -> ParsedInstruction:
        """The instruction read into typed tasks (memora_core.agents.instruction)."""
        if self._parser is None:
            self._parser = InstructionParser(self.vocab, self.cfg.agents.soft_task_verbs)
        return self._parser.parse(instruction)

    def _routines(self, task: Task, log: CallLog) -> list[dict]:
        if self._shared_routines is not None:
            self._routines_cached[task.text] = self._shared_routines
            return self._shared_routines
        res = self._call(log, "get_routine_skill", {"goal_query": task.text, "top_k": 5})
        self._routines_cached[task.text] = res.items
        return res.items

    def _transfer(self, task: Task, labels: list[str], plan: Plan, source: str) -> list[str]:
        """Put the task's object in place of the object the same verb was observed with."""
        src = next((split_label(lbl)[1] for lbl in labels if stem(task.verb) in tokens(split_label(lbl)[0])
                    and split_label(lbl)[1]), None)
        if not src or not task.objects:
            return []
        plan.missing.append(f"transferred '{task.verb}' from '{src}' to '{task.obj}' ({source})")
        return [re.sub(rf"\b{re.escape(src)}\b", task.obj, lbl) for lbl in labels]

    def _has_template(self, verb: str) -> bool:
        return verb in self.cfg.templates or stem(verb) in self.cfg.templates

    def _from_template(self, task: Task, dest: str | None = None) -> list[tuple[str, list[Evidence]]]:
        tpl = self.cfg.templates.get(task.verb) or self.cfg.templates.get(stem(task.verb)) \
            or self.cfg.templates.get("default", ["{verb} {obj}"])
        # a template line that needs a destination the task does not name just puts the object down
        lines = [t if dest or "{dest}" not in t else "put down {obj}" for t in tpl]
        return dedupe_labels([(t.format(verb=task.verb, obj=task.obj, dest=dest or ""), []) for t in lines])
