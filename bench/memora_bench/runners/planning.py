"""MEMORA-Planning (Replay, Generalize) across conditions, scored on Exec, OrderExec, KeyObj, PrefAdh, RGP.

KeyObj uses each task's own ground-truth objects (not our bank: that would be circular); PrefAdh uses the
participant's full consolidated preference bank, built once from the full memory and shared by all
conditions. Both facts are written into results.json.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from tqdm import tqdm

from memora_bench.config import BenchConfig
from memora_bench.data import BenchData, PlanningTask
from memora_bench.metrics.objects import NounTaxonomy
from memora_bench.metrics.planning import TaskScore, aggregate, score_task, steps_of
from memora_bench.metrics.reference import key_objects, reference_verbs
from memora_bench.runners.common import (
    Checkpoint, RunSettings, agent_factory, finish_run, make_llm_if_needed, prepare_memories,
)
from memora_bench.runners.memory import ParticipantMemory

log = logging.getLogger(__name__)
SPLITS = ("replay", "generalize")


def load_taxonomy(data: BenchData, cfg: BenchConfig) -> NounTaxonomy:
    path = data.taxonomy_path("noun")
    if path is None:
        log.warning("no EPIC noun taxonomy under %s: objects match by head word only", data.root)
        return NounTaxonomy({}, cfg.metrics.noun_aliases)
    return NounTaxonomy.from_csv(path, cfg.metrics.noun_aliases)


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
    return score, {"steps": [s.model_dump() for s in steps], "missing": list(getattr(plan, "missing", []) or [])}


def run_planning(data: BenchData, settings: RunSettings, cfg: BenchConfig) -> dict[str, Any]:
    t0 = time.perf_counter()
    from memora_core.conditions import build_condition

    llm = make_llm_if_needed(settings.agent)
    make_planner = agent_factory(settings.agent, "planner")
    taxonomy = load_taxonomy(data, cfg)
    memories = prepare_memories(data, settings, cfg)
    scores: dict[str, list[TaskScore]] = {c: [] for c in settings.conditions}
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
                if key in done:
                    scores[cid].append(TaskScore.model_validate(done[key]["score"]))
                    continue
                score, plan = plan_task(planner, task, memories[pid], taxonomy, cfg)
                cp.append({"item_id": key, "score": score.model_dump(), "plan": plan})
                scores[cid].append(score)
    from memora_bench.runners.report import write_planning_report

    return finish_run(summarize_run(scores, settings), memories, t0, settings, write_planning_report)


def summarize_run(scores: dict[str, list[TaskScore]], settings: RunSettings) -> dict[str, Any]:
    conditions: dict[str, Any] = {}
    per_participant: dict[str, dict[str, Any]] = {}
    for cid, ss in scores.items():
        conditions[cid] = {split: aggregate([s for s in ss if s.split == split]) for split in SPLITS}
        for pid in sorted({s.participant_id for s in ss}):
            per_participant.setdefault(pid, {})[cid] = {
                split: aggregate([s for s in ss if s.split == split and s.participant_id == pid]) for split in SPLITS}
    return {"benchmark": "planning", "mode": settings.mode, "agent": settings.agent,
            "participants": settings.participants, "conditions": conditions, "per_participant": per_participant,
            "notes": {
                "rgp": "mean of the condition-level OrderExec (LCS), KeyObj and PrefAdh means; each axis is "
                       "averaged over the tasks where it is defined; empty plans count (score 0) and are "
                       "reported as n_empty; rgp_nonempty_only follows the released aggregation",
                "order_exec": "order_exec_lcs is the paper's normalised verb-sequence LCS (used by RGP); "
                              "order_exec_prefix is the released code's greedy ordered-prefix coverage over "
                              "steps with action, object and location",
                "keyobj": "the task's own ground-truth objects (Replay: primary objects; Generalize: direct "
                          "objects of the reference steps), not the consolidated bank, to avoid circularity",
                "prefadh": "preferences from the participant's full consolidated bank, built once and shared "
                           "by all conditions; relevant at token Jaccard >= threshold with the task",
                "pooled": "axes pooled over all tasks of all participants; per_participant has each one"}}
