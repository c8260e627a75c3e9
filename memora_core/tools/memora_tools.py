"""The typed read tools of MEMORA over one participant's MemoryStore.

search_objects / get_object_history (Entity + Environment memory), search_activities (Activity memory),
get_routine_skill / get_preferences (Inferred Knowledge), and a unified `search`. Ranking is lexical
BM25 fused (reciprocal rank) with the store's semantic index when one is configured; every item carries
its evidence (video id, timestamps).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from memora_core.consolidation.episodes import EpisodeIndex
from memora_core.schemas import Activity, EntityRecord, Evidence, RoutineSkill
from memora_core.schemas.knowledge import Habit, Knowledge
from memora_core.store.sqlite_store import SQLiteStore
from memora_core.tools.registry import (
    GetEpisodeStepsArgs,
    GetObjectHistoryArgs,
    GetPreferencesArgs,
    GetRoutineSkillArgs,
    LocateObjectsArgs,
    SearchActivitiesArgs,
    SearchArgs,
    SearchObjectsArgs,
    ToolResult,
    ToolSet,
)
from memora_core.tools.text import BM25, tokens

RRF_K = 20.0
CLASS_MATCH_SCORE = 0.5  # an object found by its taxonomy class ranks below any name match of a one-word query


def fuse(lexical: Sequence[tuple[int, float]], semantic: Sequence[int], k: int) -> list[tuple[int, float]]:
    """Reciprocal-rank fusion of a lexical and a semantic ranking (indices into one document list)."""
    score: dict[int, float] = {}
    for rank, (i, _) in enumerate(lexical):
        score[i] = score.get(i, 0.0) + 1.0 / (RRF_K + rank)
    for rank, i in enumerate(semantic):
        score[i] = score.get(i, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))[:k]


def activity_text(a: Activity) -> str:
    """What the activity index matches a query against."""
    return a.summary + " " + " ".join(a.objects)


def _ev(video: str, t0: float, t1: float, seg: str | None = None) -> Evidence:
    return Evidence(video_id=video, start_s=t0, end_s=max(t0, t1), segment_id=seg)


class MemoraTools(ToolSet):
    """Typed tools bound to one participant; `include_knowledge=False` gives MEMORA-Episodic."""

    def __init__(self, store: SQLiteStore, participant_id: str, *, include_knowledge: bool = True,
                 routines: list[RoutineSkill] | None = None, preferences: list[Knowledge] | None = None,
                 word_class: Callable[[str], str | None] | None = None) -> None:
        self.store, self.pid = store, participant_id
        self._word_class: Callable[[str], str | None] | None = word_class
        self.class_match_score = CLASS_MATCH_SCORE
        self.include_knowledge = include_knowledge
        self.entities: list[EntityRecord] = store.entities(participant_id)
        self.activities: list[Activity] = store.activities(participant_id)
        self.placements = {p.entity_id: p for p in store.placements(participant_id)}
        self.routines = (routines if routines is not None else store.routines(participant_id)) if include_knowledge else []
        # typed preferences and habits, one list in the consolidation's strength order
        self.preferences: list[Knowledge] = (preferences if preferences is not None
                                             else store.preferences(participant_id)) if include_knowledge else []
        self._act_index = BM25([activity_text(a) for a in self.activities])
        self.index_knowledge()
        self._act_pos = {a.activity_id: i for i, a in enumerate(self.activities)}
        handlers: dict[str, Any] = {"search_objects": self.search_objects, "get_object_history": self.get_object_history,
                                    "locate_objects": self.locate_objects,
                                    "search_activities": self.search_activities, "search": self.search}
        if include_knowledge:
            handlers.update(get_routine_skill=self.get_routine_skill, get_preferences=self.get_preferences,
                            get_episode_steps=self.get_episode_steps)
        self._episodes: EpisodeIndex | None = None
        ToolSet.__init__(self, handlers)  # explicit: subclasses also inherit ConditionMemory

    def index_knowledge(self) -> None:
        """(Re)build the lexical indexes over routines and preferences (small; redone when knowledge changes)."""
        self._rt_index = BM25([f"{r.goal} {r.goal} {r.name} " + " ".join(r.steps) + " " + " ".join(r.key_objects)
                               for r in self.routines])
        self._pf_index = BM25([p.statement + " " + " ".join(p.keywords) for p in self.preferences])

    # ------------------------------------------------------------ helpers
    def _semantic(self, collection: str, query: str, k: int, id_pos: dict[str, int]) -> list[int]:
        vectors = getattr(self.store, "vectors", None)
        if vectors is None:
            return []
        try:
            hits = self.store.semantic_search(collection, query, participant_id=self.pid, k=k)  # type: ignore[attr-defined]
        except Exception:  # an empty or missing collection is not an error for the agent
            return []
        return [id_pos[i] for i, _ in hits if i in id_pos]

    def _entity_item(self, e: EntityRecord) -> dict[str, Any]:
        pl = self.placements.get(e.entity_id)
        return {"entity_id": e.entity_id, "name": e.name, "aliases": list(e.aliases), "attributes": e.attributes,
                "state": e.state,
                "location": e.location or (pl.place_name if pl else None), "last_seen_video": e.last_seen_video,
                "last_seen_s": e.last_seen_s, "observations": e.observation_count}

    @staticmethod
    def _activity_item(a: Activity, score: float) -> dict[str, Any]:
        return {"activity_id": a.activity_id, "video_id": a.video_id, "start_s": a.start_s, "end_s": a.end_s,
                "summary": a.summary, "score": round(score, 4),
                "actions": [{"verb": x.verb, "nouns": list(x.nouns), "start_s": x.start_s, "end_s": x.end_s,
                             "text": x.text} for x in a.actions]}

    # ------------------------------------------------------------ tools
    def _query_classes(self, name: str) -> dict[str, str]:
        """Taxonomy class of each query word ('countertop' -> 'top', 'dishes' -> 'plate'), so an object the
        person calls by another name of the same class is found through Entity memory's stored class."""
        if self._word_class is None:
            from memora_core.agents.vocab import default_vocabulary  # word knowledge, loaded once per process

            self._word_class = default_vocabulary().siblings
        out: dict[str, str] = {}
        for w in re.findall(r"[a-z]+", name.lower()):
            cls = self._word_class(w)
            if cls:
                out[w] = cls
        return out

    def search_objects(self, args: SearchObjectsArgs) -> ToolResult:
        q = set(tokens(args.name))
        classes = set(self._query_classes(args.name).values())
        scored = []
        for e in self.entities:
            names = [e.name, *e.aliases]
            if any(n == args.name.strip().lower() for n in names):
                s = 2.0
            else:
                s = max((len(q & set(tokens(n))) / max(len(q), 1) for n in names), default=0.0)
                if not s and str(e.attributes.get("category", "")).lower() in classes:
                    # same taxonomy class, different name ('counter' for 'countertop'): a weaker match
                    s = self.class_match_score / max(len(q), 1)
            if args.attributes:
                wanted = {k.lower(): str(v).lower() for k, v in args.attributes.items()}
                s += sum(0.5 for k, v in wanted.items() if e.attributes.get(k, "").lower() == v)
            if s > 0:
                scored.append((s + min(e.observation_count, 50) / 1000.0, e))
        scored.sort(key=lambda x: (-x[0], x[1].entity_id))
        top = [e for _, e in scored[: args.top_k]]
        items = [self._entity_item(e) for e in top]
        text = "\n".join(e.describe() + (f" usually at {it['location']}" if it["location"] and not e.location else "")
                         for e, it in zip(top, items)) or f"no object named {args.name!r} in memory"
        ev = [_ev(e.last_seen_video, e.last_seen_s, e.last_seen_s) for e in top]
        return ToolResult(tool="search_objects", text=text, items=items, evidence=ev, store="entity_memory")

    def locate_objects(self, args: LocateObjectsArgs) -> ToolResult:
        """Each name looked up on its own (search_objects' ranking, first hit), so one call grounds a whole plan
        without a long joined query burying one-word names under partial matches."""
        items, lines, ev = [], [], []
        for name in dict.fromkeys(args.names):
            hit = self.search_objects(SearchObjectsArgs(name=name, top_k=1))
            if hit.items:
                items.append({"query": name, **hit.items[0]})
                lines.append(f"{name}: {hit.text}")
                ev += hit.evidence[:1]
            else:
                items.append({"query": name, "entity_id": None, "name": None, "location": None})
                lines.append(f"{name}: not in memory")
        return ToolResult(tool="locate_objects", text="\n".join(lines), items=items, evidence=ev,
                          store="entity_memory")

    def get_object_history(self, args: GetObjectHistoryArgs) -> ToolResult:
        e = self.store.entity(args.entity_id, self.pid)
        if e is None:
            return ToolResult(tool="get_object_history", ok=False, error=f"no entity {args.entity_id!r}",
                              store="entity_memory")
        hist = self.store.entity_history(e.entity_id, self.pid)[-args.limit:]
        lines = [e.describe()] + [f"  {h.video_id}@{h.t_s:.0f}s {h.op.value}"
                                  + (f" at {h.location}" if h.location else "") + (f" {h.state}" if h.state else "")
                                  for h in hist]
        items = [self._entity_item(e)] + [{"video_id": h.video_id, "t_s": h.t_s, "op": h.op.value,
                                           "location": h.location, "state": h.state, "changes": h.changes}
                                          for h in hist]
        ev = [_ev(h.video_id, h.t_s, h.t_s, h.segment_id) for h in hist]
        return ToolResult(tool="get_object_history", text="\n".join(lines), items=items, evidence=ev,
                          store="entity_memory")

    def search_activities(self, args: SearchActivitiesArgs) -> ToolResult:
        cands = [i for i, a in enumerate(self.activities)
                 if (args.video_id is None or a.video_id == args.video_id)
                 and (args.start_s is None or a.end_s >= args.start_s)
                 and (args.end_s is None or a.start_s <= args.end_s)]
        lexical = self._act_index.top(args.query, args.top_k * 3, candidates=cands)
        cand_set = set(cands)
        semantic = [i for i in self._semantic("activities", args.query, args.top_k * 3, self._act_pos)
                    if i in cand_set] if args.video_id is None and args.start_s is None else []
        ranked = fuse(lexical, semantic, args.top_k)
        if not ranked and (args.video_id or args.start_s is not None):
            ranked = [(i, 0.0) for i in cands[: args.top_k]]  # a time-range read with no keyword hit
        acts = [(self.activities[i], s) for i, s in ranked]
        return ToolResult(tool="search_activities", text="\n".join(a.describe() for a, _ in acts) or "no activity found",
                          items=[self._activity_item(a, s) for a, s in acts],
                          evidence=[_ev(a.video_id, a.start_s, a.end_s, a.segment_id) for a, _ in acts],
                          store="activity_memory")

    def get_routine_skill(self, args: GetRoutineSkillArgs) -> ToolResult:
        pos = {r.routine_id: i for i, r in enumerate(self.routines)}
        lexical = self._rt_index.top(args.goal_query, args.top_k * 2)
        ranked = fuse(lexical, self._semantic("routines", args.goal_query, args.top_k * 2, pos), args.top_k)
        lex = dict(lexical)
        rts = [(self.routines[i], lex.get(i, 0.0)) for i, _ in ranked]
        items = [{**r.model_dump(mode="json"), "score": round(s, 4),
                  "match": round(len(set(tokens(args.goal_query)) & set(tokens(r.goal + " " + " ".join(r.key_objects))))
                                 / max(len(set(tokens(args.goal_query))), 1), 4)} for r, s in rts]
        return ToolResult(tool="get_routine_skill", text="\n".join(r.describe() for r, _ in rts) or "no routine found",
                          items=items, evidence=[e for r, _ in rts for e in r.episodes[:3]],
                          store="inferred_knowledge")

    def get_episode_steps(self, args: GetEpisodeStepsArgs) -> ToolResult:
        if self._episodes is None:  # consolidated on first use from the activities this tool set holds
            self._episodes = EpisodeIndex(self.activities)
        tl = self._episodes.timeline(args.video_id, args.about, args.context)
        if not tl.steps:
            return ToolResult(tool="get_episode_steps", text=f"no step about {args.about!r} in {args.video_id}",
                              store="inferred_knowledge")
        item = {"kind": "episode", "video_id": tl.video_id, "about": " ".join(tl.about),
                "steps": tl.texts(), "marked": list(tl.marked),
                "start_s": tl.steps[0].start_s, "end_s": max(s.end_s for s in tl.steps)}
        text = f"{tl.video_id} steps about {args.about}: " + "; ".join(
            f"{i + 1}. {'*' if m else ''}{t}" for i, (t, m) in enumerate(zip(tl.texts(), tl.marked)))
        return ToolResult(tool="get_episode_steps", text=text, items=[item],
                          evidence=[s.evidence() for s, m in zip(tl.steps, tl.marked) if m][:8],
                          store="inferred_knowledge")

    def habits_after(self, action: str) -> list[tuple[Habit, float]]:
        """Habits whose trigger the action names: share of the trigger's words (verb and object) in it, best
        first; a typed match on the trigger fields, not on the rendered sentence."""
        said = set(tokens(action))
        out = []
        for p in self.preferences:
            if not isinstance(p, Habit):
                continue
            trig = set(tokens(f"{p.after_action.replace('-', ' ')} {p.after_object}")) or set(tokens(p.after_text))
            share = len(trig & said) / len(trig) if trig else 0.0
            if share > 0:
                out.append((p, share))
        out.sort(key=lambda hs: (-hs[1], -hs[0].confidence * min(hs[0].support, 10), hs[0].habit_id))
        return out

    def get_preferences(self, args: GetPreferencesArgs) -> ToolResult:
        pool = [p for p in self.preferences if args.kind is None or p.kind == args.kind]
        if args.after and args.after.strip():
            prefs: list[Knowledge] = [h for h, _ in self.habits_after(args.after)
                                      if args.kind in (None, "habit")][: args.top_k]
        elif args.query and args.query.strip():
            pos = {p.pref_id: i for i, p in enumerate(self.preferences)}
            ranked = fuse(self._pf_index.top(args.query, args.top_k * 2),
                          self._semantic("preferences", args.query, args.top_k * 2, pos), args.top_k * 2)
            keep = {id(p) for p in pool}
            prefs = [self.preferences[i] for i, _ in ranked if id(self.preferences[i]) in keep][: args.top_k]
        else:
            prefs = sorted(pool, key=lambda p: (-p.confidence * min(p.support, 10), p.pref_id))[: args.top_k]
        return ToolResult(tool="get_preferences", text="\n".join(p.describe() for p in prefs) or "no preference found",
                          items=[p.model_dump(mode="json") for p in prefs],
                          evidence=[e for p in prefs for e in p.episodes[:3]], store="inferred_knowledge")

    def search(self, args: SearchArgs) -> ToolResult:
        parts: list[ToolResult] = []
        if self.include_knowledge:
            parts.append(self.get_routine_skill(GetRoutineSkillArgs(goal_query=args.query, top_k=2)))
            parts.append(self.get_preferences(GetPreferencesArgs(query=args.query, top_k=2)))
        parts.append(self.search_activities(SearchActivitiesArgs(query=args.query, top_k=args.top_k)))
        objs = [t for t in tokens(args.query)]
        if objs:
            parts.append(self.search_objects(SearchObjectsArgs(name=" ".join(objs[:3]), top_k=2)))
        items, ev, lines = [], [], []
        for p in parts:
            if p.items:
                lines.append(f"[{p.store}] " + p.text.replace("\n", f"\n[{p.store}] "))
                items += [{**it, "store": p.store, "tool": p.tool} for it in p.items]
                ev += p.evidence
        return ToolResult(tool="search", text="\n".join(lines) or "nothing found", items=items, evidence=ev,
                          store="unified")
