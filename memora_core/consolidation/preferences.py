"""Preferences and habits mined from Activity and Entity memory, as typed records citing their episodes.

Four miners, each a plain count over observed actions:
- habits: after trigger action X, what the person does next (trigger -> next statistics);
- object choice: for 'verb X', which second object (tool, container, place) goes with it;
- processing choice: what the person usually does to an object (chop vs peel ...);
- attribute choice: among same-named entities that differ in colour/material/label, the one used most.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from memora_core.agents.config import ConsolidationConfig
from memora_core.consolidation.procedures import Step
from memora_core.schemas import EntityObservation, EntityRecord, Evidence
from memora_core.schemas.knowledge import Follower, Habit, Knowledge, Preference, PreferenceAttribute


def _span(a: Step, b: Step) -> Evidence:
    return Evidence(video_id=a.video_id, start_s=a.start_s, end_s=max(a.end_s, b.end_s, a.start_s),
                    segment_id=a.segment_id)


def _label(instances: Sequence[Step]) -> str:
    return Counter(s.label() for s in instances).most_common(1)[0][0]


def _kw(*parts: str) -> list[str]:
    out: list[str] = []
    for p in parts:
        for w in p.replace("-", " ").split():
            if w and w not in out:
                out.append(w)
    return out or ["memory"]


def mine_habits(pid: str, per_video: dict[str, list[Step]], cfg: ConsolidationConfig) -> list[dict]:
    following: dict[tuple, list[tuple[Step, Step]]] = defaultdict(list)
    trigger_count: Counter = Counter()
    for steps in per_video.values():
        for a, b in zip(steps, steps[1:]):
            trigger_count[a.key] += 1
            if b.start_s - a.end_s <= cfg.habit_next_window_s and b.key != a.key:
                following[a.key].append((a, b))
    out = []
    for trig, pairs in following.items():
        n = trigger_count[trig]
        if n < cfg.habit_min_trigger:
            continue
        nxt = Counter(b.key for _, b in pairs)
        top, k = sorted(nxt.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        if k < cfg.pref_min_support or k / n < cfg.habit_min_share:
            continue
        chosen = [(a, b) for a, b in pairs if b.key == top]
        t_text, n_text = _label([a for a, _ in chosen]), _label([b for _, b in chosen])
        followers = [Follower(action=key[0], object=key[1], text=_label([b for _, b in pairs if b.key == key]),
                              count=c) for key, c in sorted(nxt.items(), key=lambda kv: (-kv[1], kv[0]))]
        out.append(dict(kind="habit", statement=f"After they {t_text}, {pid} usually {n_text} next ({k} of {n} times).",
                        keywords=_kw(*trig, *top), confidence=k / n, support=k,
                        episodes=[_span(a, b) for a, b in chosen],
                        after_action=trig[0], after_object=trig[1], after_text=t_text, action=top[0],
                        object=top[1], text=n_text, followers=followers[:8], context=f"after {t_text}",
                        frequency=n, videos=len({a.video_id for a, _ in chosen})))
    return out


def mine_object_choices(pid: str, per_video: dict[str, list[Step]], cfg: ConsolidationConfig) -> list[dict]:
    by_key: dict[tuple, list[Step]] = defaultdict(list)
    for steps in per_video.values():
        for s in steps:
            # 'cut X with Y', 'put X in Y': a second object that is a tool or destination, not a conjunct
            if len(s.nouns) >= 2 and " and " not in f" {s.text} ":
                by_key[s.key].append(s)
    out = []
    for (verb, noun), inst in by_key.items():
        seconds = Counter(s.nouns[1] for s in inst)
        top, k = sorted(seconds.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        if k < cfg.pref_min_support or k / len(inst) < cfg.pref_min_share:
            continue
        chosen = [s for s in inst if s.nouns[1] == top]
        label = _label(chosen)
        out.append(dict(kind="preference",
                        statement=f"{pid} usually {label}: for '{verb} {noun}' they choose the {top} "
                                  f"({k} of {len(inst)} times).",
                        keywords=_kw(verb, noun, top), confidence=k / len(inst), support=k,
                        episodes=[_span(s, s) for s in chosen],
                        subject=noun, action=verb, attribute=PreferenceAttribute.COMPANION, choice=top,
                        choice_text=label, alternatives={o: c for o, c in seconds.most_common() if o != top},
                        context=f"{verb} {noun}", occasions=len(inst)))
    return out


def mine_processing(pid: str, per_video: dict[str, list[Step]], cfg: ConsolidationConfig) -> list[dict]:
    generic = frozenset(cfg.generic_verbs)
    by_noun: dict[str, list[Step]] = defaultdict(list)
    for steps in per_video.values():
        for s in steps:
            if s.nouns and s.verb not in generic and s.nouns[0] not in cfg.generic_nouns:
                by_noun[s.nouns[0]].append(s)
    out = []
    for noun, inst in by_noun.items():
        verbs = Counter(s.verb for s in inst)
        top, k = sorted(verbs.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        if k < cfg.pref_min_support or k / len(inst) < cfg.pref_min_share or len(verbs) < 2 and k < 3:
            continue
        chosen = [s for s in inst if s.verb == top]
        others = ", ".join(f"{v} {c}x" for v, c in verbs.most_common() if v != top)[:120]
        label = _label(chosen)
        out.append(dict(kind="preference",
                        statement=f"When handling {noun}, {pid} usually does '{label}' ({k} of {len(inst)} "
                                  f"hands-on actions{'; otherwise ' + others if others else ''}).",
                        keywords=_kw(noun, top), confidence=k / len(inst), support=k,
                        episodes=[_span(s, s) for s in chosen],
                        subject=noun, action=top, attribute=PreferenceAttribute.TREATMENT, choice=top,
                        choice_text=label, alternatives={v: c for v, c in verbs.most_common() if v != top},
                        context=f"handling {noun}", occasions=len(inst)))
    return out


def mine_attribute_choices(pid: str, entities: Sequence[EntityRecord],
                           histories: dict[str, list[EntityObservation]], cfg: ConsolidationConfig) -> list[dict]:
    def identity(e: EntityRecord) -> dict[str, str]:
        # a category equal to the name says nothing about which one was chosen
        return {k: v for k, v in e.attributes.items() if k != "category" and v and v != e.name}

    by_name: dict[str, list[EntityRecord]] = defaultdict(list)
    for e in entities:
        if identity(e):
            by_name[e.name].append(e)
    out = []
    for name, ents in by_name.items():
        if len({tuple(sorted(identity(e).items())) for e in ents}) < 2:
            continue
        total = sum(e.observation_count for e in ents)
        best = max(ents, key=lambda e: (e.observation_count, e.entity_id))
        share = best.observation_count / total if total else 0.0
        hist = histories.get(best.entity_id, [])
        if best.observation_count < cfg.pref_min_support or share < cfg.pref_min_share or not hist:
            continue
        attrs = " ".join(v for _, v in sorted(identity(best).items()))
        others: Counter = Counter()
        for e in ents:
            if e is not best:
                others[" ".join(v for _, v in sorted(identity(e).items()))] += e.observation_count
        out.append(dict(kind="preference", subject=name, attribute=PreferenceAttribute.VARIANT, choice=attrs,
                        choice_text=f"use {attrs} {name}", alternatives=dict(others.most_common()),
                        context=f"using a {name}", occasions=max(total, 1),
                        statement=f"{pid} mostly uses the {attrs} {name} ({best.observation_count} of {total} "
                                  f"sightings of a {name}).",
                        keywords=_kw(name, attrs), confidence=share, support=best.observation_count,
                        episodes=[Evidence(video_id=h.video_id, start_s=h.t_s, end_s=h.t_s, segment_id=h.segment_id)
                                  for h in hist]))
    return out


def mine_preferences(pid: str, per_video: dict[str, list[Step]], entities: Sequence[EntityRecord],
                     histories: dict[str, list[EntityObservation]], cfg: ConsolidationConfig) -> list[Knowledge]:
    """Typed preferences and habits, strongest first; ids `<pid>-P###` in that order (one namespace)."""
    raw = (mine_habits(pid, per_video, cfg) + mine_object_choices(pid, per_video, cfg)
           + mine_processing(pid, per_video, cfg) + mine_attribute_choices(pid, entities, histories, cfg))
    raw = [r for r in raw if r["episodes"]]  # a statement without evidence must not exist
    raw.sort(key=lambda r: (-r["confidence"] * min(r["support"], 10), r["statement"]))
    out: list[Knowledge] = []
    for i, r in enumerate(raw):
        eps = sorted(r.pop("episodes"), key=lambda e: (e.video_id, e.start_s))
        common = dict(participant_id=pid, episodes=eps[: cfg.max_evidence],
                      confidence=round(min(1.0, r.pop("confidence")), 4))
        if r["kind"] == "habit":
            out.append(Habit(habit_id=f"{pid}-P{i:03d}", **common, **r))
        else:
            out.append(Preference(pref_id=f"{pid}-P{i:03d}", **common, **r))
    return out
