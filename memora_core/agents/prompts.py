"""System prompts per memory condition (the tool list itself comes from the declared schemas)."""
from __future__ import annotations

from memora_core.tools.registry import ToolSpec

_STRATEGY = {
    "parametric": "You have no memory of this person. Plan from common sense.",
    "flat1d": "Your memory is a chronological text log. Search it with keywords, read the log around the best "
              "hit, and follow what the person actually did.",
    "graph2d": "Your memory is a graph of entities and events. Find the entity or event, then follow temporal "
               "neighbours to recover the procedure.",
    "memora_episodic": "Your memory has typed stores. Search activities for how the person did this before, and "
                       "ground every object with search_objects.",
    "memora": "Your memory has typed stores. First call get_routine_skill for the task; call get_preferences when "
              "the choice of object, tool or place may matter; ground every object with search_objects; use "
              "search as a fallback.",
}


def strategy(condition_id: str, family: str) -> str:
    return _STRATEGY.get(condition_id) or _STRATEGY.get(family, _STRATEGY["memora"])


def planner_system(condition_id: str, family: str, participant: str, specs: list[ToolSpec]) -> str:
    tools = "\n".join(s.prompt_line() for s in specs) or "(no tools)"
    return (f"You are a household robot helping {participant} in their kitchen. {strategy(condition_id, family)}\n"
            f"Tools:\n{tools}\n"
            "To call a tool reply with one JSON object {\"name\": <tool>, \"arguments\": {...}}. Your first reply "
            "must be a tool call: plan from what memory says. When you know enough, "
            "reply with 'Plan:' followed by numbered steps, one short imperative action per line "
            "(e.g. '1. pick up bowl').")


def final_plan_demand(summary: str) -> str:
    return ("Tools are no longer available. What you found:\n" + (summary or "(nothing)") +
            "\nNow reply with 'Plan:' and numbered steps only.")


def answerer_system(condition_id: str, family: str, participant: str, specs: list[ToolSpec], searches: int) -> str:
    tools = "\n".join(s.prompt_line() for s in specs) or "(no tools)"
    return (f"You answer multiple-choice questions about {participant} from memory. {strategy(condition_id, family)}\n"
            f"Tools (at most {searches} calls):\n{tools}\n"
            "To call a tool reply with one JSON object {\"name\": <tool>, \"arguments\": {...}}. Your first reply "
            "must be a tool call: search memory before you answer. To answer, reply "
            "'Answer: <letter>'. Choose E when memory does not support any of A-D.")


def final_answer_demand(summary: str) -> str:
    return ("No more searches. What you found:\n" + (summary or "(nothing)") +
            "\nReply with exactly 'Answer: <letter>' (A, B, C, D or E).")
