"""Planning metrics: Exec, OrderExec (LCS and the released prefix form), KeyObj, PrefAdh, RGP and grounding.

A plan is read as a list of `StepView`s (action, object, target, text) so the metrics do not depend on
the planner; `steps_of(plan)` converts a memora_core Plan.
"""
from __future__ import annotations

from collections import Counter
from statistics import mean
from typing import Any, Iterable

from pydantic import BaseModel, Field

from memora_bench.metrics.objects import NounTaxonomy, canonical_set
from memora_bench.metrics.text import jaccard, normalize_verb, token_set

AXES = ("order_exec_lcs", "keyobj", "prefadh")  # RGP's three axes, as the paper defines it


class StepView(BaseModel):
    action: str = ""
    object: str | None = None
    target: str | None = None
    text: str = ""

    def executable(self) -> bool:
        """The released code counts a step only if it names an action, an object and a location."""
        return bool(self.action.strip() and (self.object or "").strip() and (self.target or "").strip())

    def all_text(self) -> str:
        return " ".join(x for x in (self.action, self.object or "", self.target or "", self.text) if x)


class PreferenceView(BaseModel):
    statement: str
    keywords: list[str] = Field(default_factory=list)


def steps_of(plan: Any) -> list[StepView]:
    """memora_core Plan (or any object with .steps of action/object/target/text) → StepViews."""
    out = []
    for s in getattr(plan, "steps", []) or []:
        out.append(StepView(action=getattr(s, "action", "") or "", object=getattr(s, "object", None),
                            target=getattr(s, "target", None), text=getattr(s, "text", "") or ""))
    return out


def exec_score(steps: list[StepView]) -> float:
    """Share of steps that are executable; an empty plan executes nothing (0.0)."""
    if not steps:
        return 0.0
    return sum(s.executable() for s in steps) / len(steps)


def verbs(texts: Iterable[str]) -> list[str]:
    return [v for v in (normalize_verb(t) for t in texts if t) if v]


def plan_verbs(steps: list[StepView], *, executable_only: bool = False) -> list[str]:
    return verbs(s.action or s.text for s in steps if s.executable() or not executable_only)


def lcs_length(a: list[str], b: list[str]) -> int:
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def order_exec_lcs(steps: list[StepView], ref_verbs: list[str]) -> float | None:
    """The paper's OrderExec: LCS of normalised verb sequences ÷ reference length (None: no reference verbs)."""
    if not ref_verbs:
        return None
    return lcs_length(plan_verbs(steps), ref_verbs) / len(ref_verbs)


def order_exec_prefix(steps: list[StepView], ref_verbs: list[str]) -> float | None:
    """The released code's OrderExec: walk the executable plan steps matching reference verbs in order,
    stop at the first reference verb not found; matched ÷ reference length."""
    if not ref_verbs:
        return None
    pv = plan_verbs(steps, executable_only=True)
    pos = matched = 0
    for ref in ref_verbs:
        try:
            j = pv.index(ref, pos)
        except ValueError:
            break
        matched += 1
        pos = j + 1
    return matched / len(ref_verbs)


def plan_objects(steps: list[StepView], taxonomy: NounTaxonomy) -> set[str]:
    """Canonical objects a plan manipulates (step objects and targets)."""
    return canonical_set([s.object for s in steps] + [s.target for s in steps], taxonomy)


def keyobj(steps: list[StepView], key_objects: list[str], taxonomy: NounTaxonomy) -> float | None:
    """Share of the task's own ground-truth objects the plan mentions (as object, target or in step text)."""
    keys = canonical_set(key_objects, taxonomy)
    if not keys:
        return None
    objs = plan_objects(steps, taxonomy)
    words = set().union(*(token_set(s.all_text()) for s in steps)) if steps else set()
    words |= {taxonomy.canonical(w) for w in words}
    return sum(1 for k in keys if k in objs or k in words) / len(keys)


def relevant_preferences(task_text: str, bank: list[PreferenceView], threshold: float) -> list[PreferenceView]:
    task = token_set(task_text)
    return [p for p in bank if jaccard(task, token_set(p.statement + " " + " ".join(p.keywords))) >= threshold]


def prefadh(steps: list[StepView], task_text: str, bank: list[PreferenceView], threshold: float) -> float | None:
    """Mean over relevant preferences of the share of its keyword tokens found in the plan (None: none relevant)."""
    relevant = [p for p in relevant_preferences(task_text, bank, threshold) if token_set(" ".join(p.keywords))]
    if not relevant:
        return None
    plan_words = set().union(*(token_set(s.all_text()) for s in steps)) if steps else set()
    scores = []
    for p in relevant:
        kw = token_set(" ".join(p.keywords))
        scores.append(len(kw & plan_words) / len(kw))
    return mean(scores)


def _prf(hit: int, n_pred: int, n_gold: int) -> tuple[float | None, float | None, float | None]:
    r = hit / n_gold if n_gold else None
    p = hit / n_pred if n_pred else (0.0 if n_gold else None)
    f = (2 * p * r / (p + r) if (p + r) else 0.0) if (p is not None and r is not None) else None
    return r, p, f


def grounding(steps: list[StepView], gt_objects: list[str], kb_objects: set[str],
              taxonomy: NounTaxonomy) -> dict[str, float | None]:
    """KBGround (plan objects that exist in memory), ObjGT-R/P/F1 (plan vs reference objects) and GR/GP/GF1
    (the same restricted to objects memory knows: did the plan find the groundable reference objects)."""
    objs = {s for s in (taxonomy.canonical(x.object) for x in steps if x.object) if s}
    gt = canonical_set(gt_objects, taxonomy)
    kb = {taxonomy.canonical(k) for k in kb_objects}
    out: dict[str, float | None] = {"kbground": (len(objs & kb) / len(objs)) if objs else (0.0 if steps else None)}
    out["objgt_r"], out["objgt_p"], out["objgt_f1"] = _prf(len(objs & gt), len(objs), len(gt))
    g_plan, g_gt = objs & kb, gt & kb
    out["gr"], out["gp"], out["gf1"] = _prf(len(g_plan & g_gt), len(g_plan), len(g_gt))
    return out


def tool_share(tool_calls: list[dict]) -> dict[str, float]:
    """Share of tool calls that hit each store (the call's `store`, else its tool name)."""
    stores = [str(c.get("store") or c.get("tool") or c.get("name") or "unknown") for c in tool_calls
              if isinstance(c, dict)]
    if not stores:
        return {}
    counts = Counter(stores)
    return {k: v / len(stores) for k, v in sorted(counts.items())}


class TaskScore(BaseModel):
    task_id: str
    participant_id: str
    split: str
    n_steps: int
    empty: bool
    exec: float
    order_exec_lcs: float | None
    order_exec_prefix: float | None
    keyobj: float | None
    prefadh: float | None
    kbground: float | None = None
    objgt_r: float | None = None
    objgt_p: float | None = None
    objgt_f1: float | None = None
    gr: float | None = None
    gp: float | None = None
    gf1: float | None = None
    tool_calls: dict[str, int] = Field(default_factory=dict)
    error: str | None = None


def score_task(*, task_id: str, participant_id: str, split: str, steps: list[StepView], ref_verbs: list[str],
               key_objects: list[str], task_text: str, bank: list[PreferenceView], kb_objects: set[str],
               taxonomy: NounTaxonomy, prefadh_threshold: float, tool_calls: list[dict] | None = None,
               error: str | None = None) -> TaskScore:
    counts = Counter(str(c.get("store") or c.get("tool") or "unknown") for c in (tool_calls or [])
                     if isinstance(c, dict))
    return TaskScore(
        task_id=task_id, participant_id=participant_id, split=split, n_steps=len(steps), empty=not steps,
        exec=exec_score(steps), order_exec_lcs=order_exec_lcs(steps, ref_verbs),
        order_exec_prefix=order_exec_prefix(steps, ref_verbs), keyobj=keyobj(steps, key_objects, taxonomy),
        prefadh=prefadh(steps, task_text, bank, prefadh_threshold),
        **grounding(steps, key_objects, kb_objects, taxonomy), tool_calls=dict(counts), error=error)


METRIC_FIELDS = ("exec", "order_exec_lcs", "order_exec_prefix", "keyobj", "prefadh", "kbground",
                 "objgt_r", "objgt_p", "objgt_f1", "gr", "gp", "gf1")


def _mean_defined(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return mean(vals) if vals else None


def rgp(axis_means: dict[str, float | None]) -> float | None:
    """RGP: unweighted mean of the condition-level OrderExec (LCS), KeyObj and PrefAdh means."""
    return _mean_defined(axis_means.get(a) for a in AXES)


def aggregate(scores: list[TaskScore]) -> dict[str, Any]:
    """Condition-level means (each axis over the tasks where it is defined; empty plans count as plans that
    score 0), RGP, empty-plan count, the released convention (non-empty plans only) and tool-call shares."""
    out: dict[str, Any] = {f: _mean_defined(getattr(s, f) for s in scores) for f in METRIC_FIELDS}
    out["rgp"] = rgp(out)
    nonempty = [s for s in scores if not s.empty]
    out["rgp_nonempty_only"] = rgp({a: _mean_defined(getattr(s, a) for s in nonempty) for a in AXES})
    out["n_tasks"] = len(scores)
    out["n_empty"] = len(scores) - len(nonempty)
    out["n_errors"] = sum(1 for s in scores if s.error)
    out["n_prefadh_defined"] = sum(1 for s in scores if s.prefadh is not None)
    total: Counter[str] = Counter()
    for s in scores:
        total.update(s.tool_calls)
    n = sum(total.values())
    out["tool_share"] = {k: v / n for k, v in sorted(total.items())} if n else {}
    return out
