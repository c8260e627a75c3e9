"""MEMORA-Planning task construction from narrations.

Replay: per video, deterministic segmentation (hard split on gaps > hard_gap_s; soft split where the verb
category changes after a gap > soft_gap_s and the next action confirms the new category; merge segments
shorter than min_steps, split those longer than max_steps), filler verbs removed, one of five task types,
greedy diverse selection (<= per_participant, <= per_type per type); near-duplicate narration sequences
(> duplicate_threshold) go to an audit bucket instead of the suite.
Generalize: candidate families transfer / composition / fully_novel from the participant's statistics; an
LLM verifier writes the 5–10 reference steps (without an LLM the candidates are saved without references).
"""
from __future__ import annotations

import ast
import csv
import json
import logging
from collections import Counter
from pathlib import Path
from typing import Any

from memora_bench.config import LlmConfig, PlanningGenConfig
from memora_bench.data import BenchData, Narration, norm_pid
from memora_bench.generators.llm import Chat, OpenAIChat, extract_json

log = logging.getLogger(__name__)

TASK_TYPES = ("multi_step_cooking", "meal_preparation", "object_retrieval_setup", "cleanup_organization",
              "beverage_preparation")
_TYPE_CATEGORIES = {  # EPIC verb-class categories (EPIC_100_verb_classes.csv) that mark each type
    "cleanup_organization": {"clean", "order"},
    "meal_preparation": {"split"},
    "multi_step_cooking": {"merge", "manipulate", "distribute"},
    "object_retrieval_setup": {"retrieve", "access", "block"},
}
_BEVERAGE_NOUNS = {"kettle", "tea", "coffee", "milk", "juice", "cup", "mug", "glass", "teabag"}


def verb_categories(path: Path | None) -> dict[str, str]:
    """EPIC verb (and every instance) → its category; empty without the taxonomy."""
    out: dict[str, str] = {}
    if path is None or not path.exists():
        return out
    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            try:
                insts = ast.literal_eval(row["instances"])
            except (ValueError, SyntaxError):
                insts = []
            for v in [row["key"], *insts]:
                out.setdefault(str(v), row.get("category") or row["key"])
    return out


def segment(rows: list[Narration], cats: dict[str, str], cfg: PlanningGenConfig) -> list[list[Narration]]:
    rows = sorted(rows, key=lambda r: r.start_s)
    segs: list[list[Narration]] = []
    cur: list[Narration] = []
    cat = lambda r: cats.get(r.verb, r.verb)  # noqa: E731
    for i, r in enumerate(rows):
        if cur:
            gap = r.start_s - cur[-1].end_s
            hard = gap > cfg.hard_gap_s
            confirmed = i + 1 < len(rows) and cat(rows[i + 1]) == cat(r)
            soft = gap > cfg.soft_gap_s and cat(r) != cat(cur[-1]) and confirmed
            if hard or soft:
                segs.append(cur)
                cur = []
        cur.append(r)
    if cur:
        segs.append(cur)
    merged: list[list[Narration]] = []
    for s in segs:  # a fragment too short to be a task joins the previous one
        if merged and len(s) < cfg.min_steps:
            merged[-1].extend(s)
        else:
            merged.append(list(s))
    if len(merged) > 1 and len(merged[0]) < cfg.min_steps:
        merged[1] = merged[0] + merged[1]
        merged = merged[1:]
    out: list[list[Narration]] = []
    for s in merged:  # too long: near-equal pieces, each within [min_steps, max_steps] where possible
        n = -(-len(s) // cfg.max_steps)
        size = -(-len(s) // n)
        out.extend(s[k:k + size] for k in range(0, len(s), size))
    return [s for s in out if len(s) >= cfg.min_steps]


def task_type(steps: list[Narration], cats: dict[str, str]) -> str:
    nouns = {s.noun.split(":")[0] for s in steps}
    if len(nouns & _BEVERAGE_NOUNS) >= 2:
        return "beverage_preparation"
    counts = Counter()
    for s in steps:
        c = cats.get(s.verb, s.verb)
        for t, group in _TYPE_CATEGORIES.items():
            if c in group:
                counts[t] += 1
    return max(counts, key=lambda t: (counts[t], t)) if counts else "object_retrieval_setup"


def duplicate_share(steps: list[Narration]) -> float:
    """Share of narrations that repeat an earlier narration of the same task."""
    texts = [s.narration.strip().lower() for s in steps]
    return 1 - len(set(texts)) / len(texts) if texts else 0.0


def query_for(pid: str, steps: list[Narration]) -> str:
    pairs = Counter((s.verb.replace("-", " "), s.noun.split(":")[0]) for s in steps)
    top = [p for p, _ in pairs.most_common(2)]
    parts = [f"{v} the {n}" for v, n in top]
    return f"Help {pid} " + " and ".join(parts) + "."


def select_diverse(cands: list[dict[str, Any]], cfg: PlanningGenConfig) -> list[dict[str, Any]]:
    """Greedy: each pick maximises new objects/verbs over what is already chosen, within the type caps."""
    chosen: list[dict[str, Any]] = []
    seen: set[str] = set()
    per_type: Counter[str] = Counter()
    pool = list(cands)
    while pool and len(chosen) < cfg.per_participant:
        def gain(c: dict[str, Any]) -> tuple[int, int, str]:
            feats = set(c["primary_objects"]) | {f"v:{v}" for v in c["primary_verbs"]}
            return (len(feats - seen), c["num_steps"], c["task_id"])
        pool.sort(key=gain, reverse=True)
        pick = next((c for c in pool if per_type[c["task_type"]] < cfg.per_type), None)
        if pick is None:
            break
        pool.remove(pick)
        chosen.append(pick)
        per_type[pick["task_type"]] += 1
        seen |= set(pick["primary_objects"]) | {f"v:{v}" for v in pick["primary_verbs"]}
    return chosen


def _fmt(t: float) -> str:
    h, rem = divmod(t, 3600)
    m, s = divmod(rem, 60)
    return f"{int(h):02d}:{int(m):02d}:{s:05.2f}"


def replay_candidates(pid: str, rows: list[Narration], cats: dict[str, str], cfg: PlanningGenConfig
                      ) -> tuple[list[dict], list[dict]]:
    by_video: dict[str, list[Narration]] = {}
    for r in rows:
        if r.verb.split("-")[0] in cfg.filler_verbs:
            continue  # filler actions (walk, look, ...) are not plan steps
        by_video.setdefault(r.video_id, []).append(r)
    cands, audit = [], []
    for vid in sorted(by_video):
        for i, steps in enumerate(segment(by_video[vid], cats, cfg)):
            task = {
                "task_id": f"plan_{vid}_{i:03d}", "participant_id": pid, "video_id": vid,
                "task_type": task_type(steps, cats), "task_query": query_for(pid, steps),
                "steps": [[s.narration_id, s.narration, s.verb, s.noun, _fmt(s.start_s), _fmt(s.end_s)]
                          for s in steps],
                "num_steps": len(steps), "time_span_seconds": round(steps[-1].end_s - steps[0].start_s, 1),
                "primary_objects": [n for n, _ in Counter(s.noun for s in steps).most_common(5)],
                "primary_verbs": [v for v, _ in Counter(s.verb for s in steps).most_common(5)],
            }
            dup = duplicate_share(steps)
            if dup > cfg.duplicate_threshold:
                audit.append({**task, "audit_reason": f"duplicate narrations {dup:.2f}"})
            else:
                cands.append(task)
    return cands, audit


def generalize_candidates(pid: str, rows: list[Narration]) -> list[dict[str, Any]]:
    """transfer: a frequent verb applied to an object the person handles but never with that verb;
    composition: two frequent procedures chained; fully_novel: a task whose verb the person never did."""
    pairs = Counter((r.verb, r.noun) for r in rows)
    nouns = Counter(r.noun for r in rows)
    verbs = Counter(r.verb for r in rows)
    out = []
    for (verb, noun), cnt in pairs.most_common(30):
        target = next((n for n, _ in nouns.most_common(40) if n != noun and (verb, n) not in pairs), None)
        if target:
            out.append({"task_id": f"generalize_transfer_{pid}_{verb}_{target}", "task_type": "transfer",
                        "task_query": f"Help {pid} {verb.replace('-', ' ')} the {target.split(':')[0]}.",
                        "participant_id": pid, "source_action": verb, "source_object": noun,
                        "target_object": target, "rationale": f"{verb} {noun} seen {cnt}x; never with {target}"})
            break
    top = [v for v, _ in verbs.most_common(6)]
    if len(top) >= 2:
        out.append({"task_id": f"generalize_composition_{pid}_{top[0]}_{top[1]}", "task_type": "composition",
                    "task_query": f"Help {pid} {top[0].split('-')[0]} and then {top[1].split('-')[0]} everything "
                                  f"needed for a meal.", "participant_id": pid, "components": top[:2]})
    # fully novel: laying out the person's three most handled objects, a verb ('set') they never used
    laid = [n.split(":")[0] for n, _ in nouns.most_common(3)]
    if "set" not in verbs and len(laid) == 3:
        out.append({"task_id": f"generalize_novel_{pid}_lay_out", "task_type": "fully_novel",
                    "task_query": f"Help {pid} lay out the {laid[0]}, the {laid[1]} and the {laid[2]} ready to use.",
                    "participant_id": pid})
    return out


REFERENCE_PROMPT = """Write the reference plan a careful home robot would follow for: "{query}".
The person's kitchen (objects they use most, with where they were seen): {objects}.
Return a JSON list of 5 to 10 short imperative steps, each naming an action, an object and a location."""


def write_references(chat: Chat, llm_cfg: LlmConfig, tasks: list[dict], objects: list[str]) -> list[dict]:
    out = []
    for t in tasks:
        try:
            raw = chat.complete(llm_cfg.verifier_model, [{"role": "user", "content": REFERENCE_PROMPT.format(
                query=t["task_query"], objects=", ".join(objects))}])
        except Exception as exc:  # noqa: BLE001
            log.warning("reference writer failed for %s: %s", t["task_id"], exc)
            continue
        steps = extract_json(raw)
        if isinstance(steps, list) and 5 <= len(steps) <= 10 and all(isinstance(s, str) and s.strip() for s in steps):
            out.append({**t, "ground_truth_steps": [s.strip() for s in steps]})
        else:
            log.info("dropping %s: reference not 5-10 string steps", t["task_id"])
    return out


def generate_planning(data: BenchData, pid: str, out: Path, cfg: PlanningGenConfig, *,
                      llm_cfg: LlmConfig | None = None, chat: Chat | None = None) -> Path:
    pid = norm_pid(pid)
    rows = data.narrations(pid, data.video_scope(pid))
    if not rows:
        raise FileNotFoundError(f"no narrations for {pid}")
    cats = verb_categories(data.taxonomy_path("verb"))
    cands, audit = replay_candidates(pid, rows, cats, cfg)
    replay = select_diverse(cands, cfg)
    gen = generalize_candidates(pid, rows)
    if llm_cfg is not None:
        chat = chat or OpenAIChat(llm_cfg)
        objects = [n for n, _ in Counter(r.noun for r in rows).most_common(25)]
        generalize = write_references(chat, llm_cfg, gen, objects)
        pending = []
    else:
        generalize, pending = [], gen
    doc = {"source": "memora_bench.generators.planning_gen", "participant_id": pid, "replay": replay,
           "generalize": generalize, "generalize_pending_reference": pending, "audit": audit,
           "metadata": {"n_candidates": len(cands), "n_audit": len(audit),
                        "by_type": dict(Counter(t["task_type"] for t in replay))}}
    path = out / "memora_bench" / f"planning_{pid.lower()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1))
    return path
