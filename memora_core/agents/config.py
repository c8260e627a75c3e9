"""Typed settings for consolidation, the agents and the memory conditions (robot_configs/agents.yaml)."""
from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from memora_core.config import CONFIG_DIR, load_yaml

AGENTS_CONFIG = CONFIG_DIR / "agents.yaml"


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ConsolidationConfig(_Cfg):
    max_gap_s: float = Field(default=25.0, gt=0)
    min_steps: int = Field(default=3, ge=1)
    max_steps: int = Field(default=14, ge=2)
    boundary_window: int = Field(default=3, ge=1)
    group_similarity: float = Field(default=0.34, ge=0, le=1)
    min_routine_support: int = Field(default=2, ge=1)
    step_share: float = Field(default=0.5, ge=0, le=1)
    max_evidence: int = Field(default=8, ge=1)
    habit_min_trigger: int = Field(default=3, ge=1)
    habit_min_share: float = Field(default=0.4, ge=0, le=1)
    habit_next_window_s: float = Field(default=30.0, gt=0)
    pref_min_support: int = Field(default=2, ge=1)
    pref_min_share: float = Field(default=0.34, ge=0, le=1)
    generic_verbs: list[str] = Field(default_factory=list)
    generic_nouns: list[str] = Field(default_factory=list)


class AgentSettings(_Cfg):
    max_iterations: int = Field(default=8, ge=1)
    max_answer_searches: int = Field(default=5, ge=0)
    top_k: int = Field(default=5, ge=1)
    max_plan_steps: int = Field(default=14, ge=1)
    answer_min_support: float = Field(default=0.3, ge=0, le=2)
    answer_margin: float = Field(default=0.0, ge=0, le=1)
    answer_min_coverage: float = Field(default=0.2, ge=0, le=1)
    answer_top_k: int = Field(default=10, ge=1, le=20)
    answer_context_before_s: float = Field(default=15.0, ge=0)
    answer_context_after_s: float = Field(default=30.0, ge=0)
    answer_embedder: str = Field(default="minilm", pattern="^(minilm|hashing|none)$")
    answer_lexical_weight: float = Field(default=0.5, ge=0, le=1)
    answer_check_objects: bool = False  # typed memory: answer E when a question's object is not in Entity memory
    answer_trigger_min: float = Field(default=0.5, ge=0, le=1)
    # full MEMORA: questions about a procedure are also scored against the person's routines
    routine_question_words: list[str] = Field(default_factory=lambda: [
        "approach", "strategy", "workflow", "routine", "procedure", "sequence", "order", "setup", "steps",
        "style", "method", "pattern", "process"])
    routine_weight: float = Field(default=0.5, ge=0, le=2)
    routine_top_k: int = Field(default=3, ge=1, le=10)
    routine_min_sim: float = Field(default=0.35, ge=0, le=1)
    routine_object_weight: float = Field(default=0.3, ge=0, le=1)
    routine_min_relevance: float = Field(default=0.25, ge=0, le=1)
    # full MEMORA: each choice gains knowledge_weight x the support of the typed habits the question's action
    # triggers ('what next') or of the preferences about the objects it names (agents.knowledge_support); an
    # option pairs with a choice at knowledge_min_sim
    knowledge_weight: float = Field(default=0.5, ge=0, le=2)
    knowledge_min_sim: float = Field(default=0.35, ge=0, le=1)
    # ... and a typed record that adds at least this much to the best choice (knowledge_weight x support) is
    # memory support for answering at all, where the episodes alone would say E (the question's words not in them)
    knowledge_min_support: float = Field(default=0.1, ge=0, le=2)
    knowledge_next_preferences: bool = Field(default=False, description=(
        "full MEMORA, a 'what next' question: the typed preferences about the objects it names count beside "
        "the habits its action triggers (what the person does to an object, where it goes)"))
    episode_weight: float = Field(default=1.25, ge=0, le=3, description=(
        "full MEMORA, a question naming a video and an object: the weight of that episode's consolidated step "
        "list about the object (get_episode_steps) among the retrieved windows; 0 turns the read off"))
    answer_category_coverage: bool = Field(default=True, description=(
        "a question word naming a category of the noun taxonomy ('cookware') counts as covered by a memory window "
        "that names one of its members ('pan'), when deciding whether memory covers the question"))
    question_filler_words: list[str] = Field(default_factory=list)
    unavailable_letter: str = "E"
    semantic_retrieval: bool = False
    soft_task_verbs: list[str] = Field(default_factory=lambda: ["prepare", "make", "cook", "get", "do", "handle"])
    task_match_score: float = Field(default=0.75, ge=0, le=1.1)
    # instruction reading (memora_core.agents.instruction): a clause with this many verbs for the same objects
    # is a sequence of jobs; a need ("I'm parched") is matched to a routine at this MiniLM cosine
    instruction_split_verbs: int = Field(default=3, ge=2, le=10)
    need_min_similarity: float = Field(default=0.3, ge=0, le=1)
    min_task_coverage: float = Field(default=0.75, ge=0, le=1)
    max_preferences: int = Field(default=8, ge=1, le=20)
    max_preference_steps: int = Field(default=3, ge=0, le=10)
    # composition of tasks memory does not cover (several objects, or a category such as 'vegetables')
    compose_max_objects: int = Field(default=4, ge=1, le=10)
    compose_category_members: int = Field(default=2, ge=1, le=6)
    compose_steps_per_object: int = Field(default=4, ge=1, le=10)
    placement_verbs: list[str] = Field(default_factory=lambda: ["set", "lay", "serve", "arrange"])
    verb_synonyms: dict[str, list[str]] = Field(default_factory=dict)
    # full MEMORA: a routine's key objects of these EPIC categories are the tools it is done with
    tool_categories: list[str] = Field(default_factory=lambda: [
        "utensils", "cutlery", "cleaning equipment and material", "cookware"])
    max_routine_tools: int = Field(default=2, ge=0, le=6)
    body_categories: list[str] = Field(default_factory=lambda: ["hand", "foot"], description=(
        "EPIC noun categories of the person's own body: memory may say the dough was last 'in hands', but a body "
        "part is never the place a plan step is grounded to (a robot cannot go there)"))


class AgentsConfig(_Cfg):
    consolidation: ConsolidationConfig = Field(default_factory=ConsolidationConfig)
    agents: AgentSettings = Field(default_factory=AgentSettings)
    templates: dict[str, list[str]] = Field(
        default_factory=lambda: {"default": ["find {obj}", "pick up {obj}", "{verb} {obj}", "put down {obj}"]})


def load_agents_config(path: Path | str | None = None) -> AgentsConfig:
    path = Path(path) if path else AGENTS_CONFIG
    return AgentsConfig.model_validate(load_yaml(path)) if path.exists() else AgentsConfig()
