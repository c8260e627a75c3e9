"""MEMORA-Planning (Replay, Generalize) across conditions, scored on Exec, OrderExec, KeyObj, PrefAdh, RGP.

Two metric families: `reference` (the headline: the reference code's rules on each plan's step texts,
memora_bench.metrics.reference) and `strict` (ours, memora_bench.metrics.planning: KeyObj against each
task's own ground-truth objects, OrderExec as LCS). Both read the participant's full consolidated memory,
built once and shared by all conditions.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from tqdm import tqdm

from memora_bench.config import BenchConfig
from memora_bench.data import BenchData, PlanningTask
from memora_bench.metrics.objects import NounTaxonomy
from memora_bench.metrics.ground_truth import key_objects, reference_verbs
from memora_bench.metrics.planning import TaskScore, aggregate, score_task, steps_of
from memora_bench.metrics.reference import planning as ref
from memora_bench.metrics.reference.memory_view import MemoryView, memory_view
from memora_bench.runners.common import (
    Checkpoint, RunSettings, agent_factory, finish_run, make_llm_if_needed, prepare_memories,
)
from memora_bench.runners.memory import ParticipantMemory

log = logging.getLogger(__name__)
SPLITS = ("replay", "generalize")
_STRICT_ITEM_FIELDS = {"exec", "order_exec_lcs", "order_exec_prefix", "keyobj", "prefadh", "n_steps", "error"}
METRIC_FAMILIES = {
    "reference": "headline (conditions, per_participant): the reference code's rules (yuzihaowashu/MEMORA "
                 "@ 9c80048) on each plan's step texts, against the participant's full MEMORA memory "
                 "(reference_memory); empty plans skipped; see memora_bench.metrics.reference",
    "strict": "ours (strict, per_participant_strict): OrderExec as LCS over structured steps, KeyObj against "
              "each task's own ground-truth objects, empty plans scored 0; see memora_bench.metrics.planning"}


def load_taxonomy(data: BenchData, cfg: BenchConfig) -> NounTaxonomy:
    path = data.taxonomy_path("noun")
    if path is None:
        log.warning("no EPIC noun taxonomy under %s: objects match by head word only", data.root)
        return NounTaxonomy({}, cfg.metrics.noun_aliases)
    return NounTaxonomy.from_csv(path, cfg.metrics.noun_aliases)


def step_texts(plan: Any) -> list[str]:
    """Each step's text as the agent produced it (a memora_core PlanStep renders its own words)."""
    out = []
    for s in getattr(plan, "steps", None) or []:
        render = getattr(s, "render", None)
        out.append(str(render() if callable(render) else getattr(s, "text", "") or ""))
    return out


def reference_score(task: PlanningTask, plan_text: list[str], view: MemoryView) -> ref.RefTaskScore:
    return ref.score_task(task_id=task.task_id, participant_id=task.participant_id, split=task.split,
                          plan=plan_text, query=task.query, ground_truth=[s.narration for s in task.steps],
                          memory=view)


def plan_task(planner: Any, task: PlanningTask, mem: ParticipantMemory, taxonomy: NounTaxonomy,
              cfg: BenchConfig) -> tuple[TaskScore, dict]:
    error, plan = None, None
    try:
        plan = planner.plan(task.query)
    except Exception as exc:  # noqa: BLE001 - a crashing planner yields an empty plan, counted and reported
        log.warning("planner failed on %s: %s", task.task_id, exc)
        error = f"{type(exc).__name__}: {exc}"
    steps = steps_of(plan) if plan is not None else []
    calls = list(getattr(plan, "tool_calls", None) or [])
    score = score_task(task_id=task.task_id, participant_id=task.participant_id, split=task.split, steps=steps,
                       ref_verbs=reference_verbs(task), key_objects=key_objects(task, taxonomy),
                       task_text=task.query, bank=mem.bank, kb_objects=mem.kb_objects, taxonomy=taxonomy,
                       prefadh_threshold=cfg.metrics.prefadh_relevance_jaccard, tool_calls=calls, error=error)
    return score, {"steps": [s.model_dump() for s in steps], "text": step_texts(plan),
                   "missing": list(getattr(plan, "missing", []) or [])}


def run_planning(data: BenchData, settings: RunSettings, cfg: BenchConfig) -> dict[str, Any]:
    t0 = time.perf_counter()
    from memora_core.conditions import build_condition

    llm = make_llm_if_needed(settings.agent)
    make_planner = agent_factory(settings.agent, "planner")
    taxonomy = load_taxonomy(data, cfg)
    memories = prepare_memories(data, settings, cfg)
    views = {pid: memory_view(m.store, pid) for pid, m in memories.items()}
    scores: dict[str, list[TaskScore]] = {c: [] for c in settings.conditions}
    refs: dict[str, list[ref.RefTaskScore]] = {c: [] for c in settings.conditions}
    items: dict[str, list[dict]] = {c: [] for c in settings.conditions}
    for pid in settings.participants:
        suite = data.planning(pid)
        tasks = []
        for split in SPLITS:
            split_tasks = getattr(suite, split)
            tasks += split_tasks[:settings.limit] if settings.limit else split_tasks
        for cid in settings.conditions:
            cp = Checkpoint(settings.out / "items" / f"planning_{cid}_{pid}.jsonl")
            done = cp.load()
            planner = make_planner(settings.agent, build_condition(cid, memories[pid].store, pid), llm=llm)
            for task in tqdm(tasks, desc=f"planning {pid} {cid}", unit="task", disable=not settings.progress):
                key = f"{task.split}:{task.task_id}"
                if key in done and "text" in done[key]["plan"]:
                    score, plan = TaskScore.model_validate(done[key]["score"]), done[key]["plan"]
                else:  # new, or saved before step texts were kept: planned again (deterministic per input)
                    score, plan = plan_task(planner, task, memories[pid], taxonomy, cfg)
                    cp.append({"item_id": key, "score": score.model_dump(), "plan": plan})
                scores[cid].append(score)
                refs[cid].append(reference_score(task, plan["text"], views[pid]))
                items[cid].append({"task_id": task.task_id, "participant_id": pid, "split": task.split,
                                   "steps": plan["text"], "reference": refs[cid][-1].model_dump(),
                                   "strict": score.model_dump(include=_STRICT_ITEM_FIELDS)})
    from memora_bench.runners.report import write_planning_report

    results = summarize_run(scores, settings, refs)
    results["items"] = items
    results["reference_memory"] = {pid: v.model_dump() for pid, v in views.items()}
    return finish_run(results, memories, t0, settings, write_planning_report)


def _by_split(rows: list, agg: Any) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Pooled {split: agg} and {pid: {split: agg}} of task scores that carry split and participant_id."""
    pooled = {split: agg([r for r in rows if r.split == split]) for split in SPLITS}
    per_pid = {pid: {split: agg([r for r in rows if r.split == split and r.participant_id == pid])
                     for split in SPLITS} for pid in sorted({r.participant_id for r in rows})}
    return pooled, per_pid


def summarize_run(scores: dict[str, list[TaskScore]], settings: RunSettings,
                  refs: dict[str, list[ref.RefTaskScore]] | None = None) -> dict[str, Any]:
    """`conditions` / `per_participant`: the headline `reference` family; `strict` / `per_participant_strict`:
    ours, in the same shape."""
    conditions: dict[str, Any] = {}
    per_participant: dict[str, dict[str, Any]] = {}
    strict: dict[str, Any] = {}
    per_participant_strict: dict[str, dict[str, Any]] = {}
    for cid, ss in scores.items():
        strict[cid], by_pid = _by_split(ss, aggregate)
        for pid, block in by_pid.items():
            per_participant_strict.setdefault(pid, {})[cid] = block
        conditions[cid], by_pid = _by_split((refs or {}).get(cid, []), ref.aggregate)
        for pid, block in by_pid.items():
            per_participant.setdefault(pid, {})[cid] = block
    return {"benchmark": "planning", "mode": settings.mode, "agent": settings.agent,
            "participants": settings.participants, "metric_families": METRIC_FAMILIES,
            "conditions": conditions, "per_participant": per_participant,
            "strict": strict, "per_participant_strict": per_participant_strict,
            "notes": {
                "reference": "RGP = mean of the condition-level OrderExec (greedy ordered prefix over steps "
                             "executable by their text), KeyObj (Replay: key objects of the full memory's "
                             "best-Jaccard routine, undefined below 0.10; Generalize: ground-truth stems in "
                             "memory's nouns) and PrefAdh (relevance from preference keywords) means; exec is "
                             "the share of steps executable by their text; empty plans skipped (n_empty)",
                "strict_rgp": "mean of the condition-level OrderExec (LCS), KeyObj and PrefAdh means; each axis "
                              "is averaged over the tasks where it is defined; empty plans count (score 0) and "
                              "are reported as n_empty; rgp_nonempty_only skips them",
                "strict_order_exec": "order_exec_lcs: normalised verb-sequence LCS (used by strict RGP); "
                                     "order_exec_prefix: greedy ordered prefix over structured steps with "
                                     "action, object and location",
                "strict_keyobj": "the task's own ground-truth objects (Replay: primary objects; Generalize: "
                                 "direct objects of the reference steps), not the consolidated bank",
                "prefadh": "both families: preferences of the participant's full consolidated bank, shared by "
                           "all conditions",
                "items": "items[condition]: each task's step texts as the agent produced them, with its "
                         "reference and strict scores",
                "pooled": "axes pooled over all tasks of all participants; per_participant has each one"}}
