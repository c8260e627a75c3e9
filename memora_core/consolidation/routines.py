"""Routine skills: procedures that recur across a participant's episodes, grouped and made canonical."""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from memora_core.agents.config import ConsolidationConfig
from memora_core.consolidation.procedures import Procedure, Step, goal_of, key_objects, split_procedures
from memora_core.schemas import RoutineSkill


def jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if (a or b) else 0.0


def group_procedures(procs: Sequence[Procedure], cfg: ConsolidationConfig) -> list[list[Procedure]]:
    """Greedy average-linkage grouping: a procedure joins the group it is most similar to on average."""
    order = sorted(range(len(procs)), key=lambda i: (-len(procs[i].steps), procs[i].video_id, procs[i].start_s))
    groups: list[list[int]] = []
    gv, gn = frozenset(cfg.generic_verbs), frozenset(cfg.generic_nouns)
    sigs = [procs[i].content_keys(gv, gn) for i in range(len(procs))]
    for i in order:
        best, best_sim = None, cfg.group_similarity
        for g, members in enumerate(groups):
            sim = sum(jaccard(sigs[i], sigs[m]) for m in members) / len(members)
            if sim >= best_sim:
                best, best_sim = g, sim
        if best is None:
            groups.append([i])
        else:
            groups[best].append(i)
    return [[procs[i] for i in g] for g in groups]


def canonical_steps(group: Sequence[Procedure], cfg: ConsolidationConfig) -> list[Step]:
    """Steps most episodes share, in their average relative order; the medoid when too few are shared."""
    presence: Counter = Counter()
    positions: dict[tuple, list[float]] = defaultdict(list)
    examples: dict[tuple, Counter] = defaultdict(Counter)
    for proc in group:
        n = len(proc.steps)
        for k in proc.keys():
            presence[k] += 1
        for idx, s in enumerate(proc.steps):
            positions[s.key].append(idx / max(n - 1, 1))
            examples[s.key][s] += 1
    need = max(1, int(round(cfg.step_share * len(group))))
    shared = [k for k, c in presence.items() if c >= need]
    if len(shared) < 2:
        sigs = [p.keys() for p in group]
        medoid = max(range(len(group)), key=lambda i: (sum(jaccard(sigs[i], s) for s in sigs), -i))
        out: list[Step] = []
        for s in group[medoid].steps:
            if not out or out[-1].key != s.key:
                out.append(s)
        return out[: cfg.max_steps]
    mean_pos = {k: sum(positions[k]) / len(positions[k]) for k in shared}
    ahead = pairwise_wins(group, shared)
    shared.sort(key=lambda k: (-ahead[k], mean_pos[k], k))
    return [examples[k].most_common(1)[0][0] for k in shared][: cfg.max_steps]


def pairwise_wins(group: Sequence[Procedure], keys: Sequence[tuple]) -> dict[tuple, int]:
    """Per step key, how many of the other keys it comes before in most of the episodes that have both (its first
    occurrence in each). The canonical order ranks by this: each pair in the order most episodes did them, however
    many other steps an episode has (an episode with extra steps shifts the relative positions of all its steps, and
    an average of those can put a step before the one it follows everywhere)."""
    first = [{k: i for i, k in reversed(list(enumerate(p.keys_in_order())))} for p in group]
    wins = {k: 0 for k in keys}
    for a_i, a in enumerate(keys):
        for b in keys[a_i + 1:]:
            before = sum(1 for f in first if a in f and b in f and f[a] < f[b])
            after = sum(1 for f in first if a in f and b in f and f[b] < f[a])
            if before != after:
                wins[a if before > after else b] += 1
    return wins


def _label(step: Step, group: Sequence[Procedure]) -> str:
    texts = Counter(s.label() for p in group for s in p.steps if s.key == step.key)
    return texts.most_common(1)[0][0]


def mine_routines(participant_id: str, per_video: dict[str, list[Step]], cfg: ConsolidationConfig,
                  ) -> list[RoutineSkill]:
    procs = [p for steps in per_video.values() for p in split_procedures(steps, cfg)
             if len(p.steps) >= cfg.min_steps]
    routines = []
    for group in group_procedures(procs, cfg):
        if len(group) < cfg.min_routine_support:
            continue
        steps = canonical_steps(group, cfg)
        all_steps = [s for p in group for s in p.steps]
        group_sorted = sorted(group, key=lambda p: (p.video_id, p.start_s))
        videos = sorted({p.video_id for p in group})
        routines.append(dict(
            goal=goal_of(all_steps, cfg),
            steps=[_label(s, group) for s in steps],
            key_objects=key_objects(all_steps, cfg.generic_nouns),
            episodes=[p.evidence() for p in group_sorted][: cfg.max_evidence],
            frequency=len(group),
            videos=videos,
        ))
    routines.sort(key=lambda r: (-r["frequency"], r["goal"], r["episodes"][0].video_id, r["episodes"][0].start_s))
    out = []
    for i, r in enumerate(routines):
        videos = r.pop("videos")
        out.append(RoutineSkill(
            routine_id=f"{participant_id}-R{i:03d}", participant_id=participant_id, name=r["goal"],
            summary=(f"seen {r['frequency']}x in {len(videos)} video(s) ({', '.join(videos[:4])}): "
                     + " -> ".join(r["steps"])),
            **r))
    return out
