"""Typed preferences read for 'what next' questions, and preference options said from their fields (invented
examples: a kettle, a loaf, a mixing bowl)."""
from __future__ import annotations

from memora_core.agents.answering import StructuredAnswerer
from memora_core.agents.config import load_agents_config
from memora_core.agents.knowledge_support import knowledge_views, say_action
from memora_core.schemas import Evidence
from memora_core.schemas.knowledge import Preference, PreferenceAttribute
from memora_core.tools.registry import ToolResult, ToolSet
from tests.agents.activity_items import pick_then

EV = [Evidence(video_id="Z02_01", start_s=1.0, end_s=4.0)]


def _pref(subject: str, action: str, attribute: PreferenceAttribute, choice: str, text: str,
          alternatives: dict[str, int]) -> Preference:
    return Preference(pref_id="Z02-P001", participant_id="Z02", subject=subject, action=action, attribute=attribute,
                      choice=choice, choice_text=text, alternatives=alternatives, confidence=0.8, support=4,
                      occasions=5, keywords=[subject, choice], episodes=EV, statement=f"Z02 usually does '{text}'.")


def test_preference_options_are_said_as_narrated():
    assert say_action("put-in", "mixing bowl", "dish rack") == "put mixing bowl in dish rack"
    assert say_action("take-out", "loaf", "bread bin") == "take loaf out bread bin"
    assert say_action("slice", "loaf") == "slice loaf"
    shelf = _pref("mixing bowl", "put-in", PreferenceAttribute.COMPANION, "cupboard", "put mixing bowl in cupboard",
                  {"dish rack": 2})
    loaf = _pref("loaf", "slice", PreferenceAttribute.TREATMENT, "slice", "slice loaf", {"toast-in": 1})
    (v1,) = knowledge_views([shelf.model_dump(mode="json")], "where does the mixing bowl go", 0.5)
    (v2,) = knowledge_views([loaf.model_dump(mode="json")], "what happens to the loaf", 0.5)
    assert [t for t, _ in v1.options] == ["put mixing bowl in cupboard", "put mixing bowl in dish rack"]
    assert [t for t, _ in v2.options] == ["slice loaf", "toast loaf in"]


class _Kettle(ToolSet):
    """Invented episodes in which picking up the kettle is followed once by filling and once by descaling it
    (a tie); no habit is formed for it, and the searches return a typed preference about the kettle."""

    family = "memora"

    def __init__(self) -> None:
        self.pref = _pref("kettle", "fill", PreferenceAttribute.TREATMENT, "fill", "fill kettle", {"descale": 1})
        super().__init__({"search": self._search, "search_activities": self._search,
                          "get_preferences": self._habits})

    def _search(self, args) -> ToolResult:
        acts = pick_then("kettle", ["descale", "fill"], "Z02_01")
        return ToolResult(tool="search", items=[*acts, self.pref.model_dump(mode="json")], store="unified")

    def _habits(self, args) -> ToolResult:
        return ToolResult(tool="get_preferences", items=[], store="inferred_knowledge")


def test_a_what_next_question_reads_the_preferences_about_its_object():
    cfg = load_agents_config()
    cfg.agents.answer_embedder = "none"
    q = "What does Z02 usually do next after picking up the kettle?"
    choices = {"A": "descale kettle", "B": "fill kettle", "C": "open the oven", "D": "wipe table"}
    cfg.agents.knowledge_next_preferences = False
    assert StructuredAnswerer(_Kettle(), cfg).answer(q, choices).letter != "B"  # the episodes alone tie
    cfg.agents.knowledge_next_preferences = True
    with_pref = StructuredAnswerer(_Kettle(), cfg).answer(q, choices)
    assert with_pref.letter == "B" and "backed by typed knowledge" in with_pref.raw
