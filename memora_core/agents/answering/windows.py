"""Retrieved items as windows: ordered runs of short action texts from one place in memory (a log line, an
activity, a graph neighbourhood, a routine's steps, a habit "after X, Y"), with their evidence."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memora_core.schemas import Evidence
from memora_core.tools.registry import ToolResult
from memora_core.tools.text import tokens
KNOWLEDGE_KINDS = ("habit", "preference")  # the `kind` of typed preference and habit items


@dataclass
class Window:
    """An ordered run of short action texts from one place in memory, with its evidence."""

    steps: list[str]
    evidence: list[Evidence] = field(default_factory=list)
    weight: float = 1.0  # consolidated statements that summarise many episodes count more

    def tokens(self) -> set[str]:
        return {t for s in self.steps for t in tokens(s)}


def split_actions(text: str) -> list[str]:
    text = str(text).split(" | seen:")[0]
    return [p.strip() for p in text.split(";") if p.strip()]


def windows_from(res: ToolResult) -> list[Window]:
    """Each family's items as windows; graph events (one action each) are merged per call in time order."""
    out: list[Window] = []
    events: list[dict[str, Any]] = []
    for it in res.items:
        ev = [Evidence(video_id=it["video_id"], start_s=float(it["start_s"]),
                       end_s=max(float(it["end_s"]), float(it["start_s"])))] if it.get("video_id") \
            and it.get("start_s") is not None and it.get("end_s") is not None else []
        if "event_id" in it:
            events.append(it)
        elif "actions" in it:  # MEMORA activity
            out.append(Window([a.get("text") or " ".join([a["verb"], *a["nouns"]]) for a in it["actions"]], ev))
        elif it.get("kind") == "episode":  # one video's consolidated step list about an object
            out.append(Window(list(it["steps"]), ev))
        elif "steps" in it and "goal" in it:  # routine
            eps = [Evidence.model_validate(e) for e in it.get("episodes", [])[:3]]
            out.append(Window(list(it["steps"]), eps, weight=1.0 + 0.1 * min(int(it.get("frequency", 1)), 5)))
        elif it.get("kind") in KNOWLEDGE_KINDS:  # typed Inferred Knowledge
            eps = [Evidence.model_validate(e) for e in it.get("episodes", [])[:3]]
            steps = [it["after_text"], it["text"]] if it["kind"] == "habit" else [it["choice_text"]]
            out.append(Window(steps, eps, weight=1.0 + 0.5 * float(it.get("confidence", 0.0))))
        elif "text" in it and it.get("kind", "log") == "log":  # flat log line
            out.append(Window(split_actions(it["text"]), ev))
    if events:
        events.sort(key=lambda e: (e["video_id"], float(e["start_s"])))
        run: list[dict[str, Any]] = []
        for e in events:
            if run and (e["video_id"] != run[-1]["video_id"] or float(e["start_s"]) - float(run[-1]["end_s"]) > 30):
                out.append(_event_window(run))
                run = []
            run.append(e)
        out.append(_event_window(run))
    return [w for w in out if w.steps]


def _event_window(run: list[dict[str, Any]]) -> Window:
    return Window([e["text"] for e in run], [Evidence(video_id=e["video_id"], start_s=float(e["start_s"]),
                                                      end_s=max(float(e["end_s"]), float(e["start_s"])))
                                             for e in run])
