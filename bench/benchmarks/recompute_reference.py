"""Recompute a run's headline `reference` figures from its per-task items, by a second, plain implementation
of the reference's rules (yuzihaowashu/MEMORA @ 9c80048), and print the largest difference.

    python bench/benchmarks/recompute_reference.py RUN/results.json [--data ../shared/data] [--tol 0.005]

Planning: each item's step texts, the task's query and ground-truth steps read here from the MEMORA-Bench
files themselves, and the run's `reference_memory`. EAM-QA: each item's answer text and gold letter. Only
the word lists are shared with memora_bench.metrics.reference (they are the reference's facts); every rule
is re-written here. Exit 0 when every figure agrees within the tolerance, 1 when not, 2 on bad input.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from memora_bench.metrics.reference.lexicon import (
    COLOUR_WORDS, KITCHEN_NOUNS, NON_VERB_WORDS, STOPWORDS, VERB_CANON,
)
from memora_bench.metrics.reference.step_checks import ACTION_PHRASES, LOCATION_NOUNS, LOCATION_PREPOSITIONS

WORD_CHARS = re.compile(r"\w")


# ----------------------------------------------------------------------------------------------- words
def stem(w: str) -> str:
    for suf in ("ing", "ied", "ies", "ed", "es", "s"):
        if len(w) - len(suf) > 2 and w[-len(suf):] == suf:
            b = w[:-len(suf)]
            return b[:-1] if len(b) > 2 and b[-1] == b[-2] else b
    return w


def toks(text: str) -> set[str]:
    return {stem(t) for t in re.findall(r"\b[a-z][-a-z]{2,}\b", text.lower()) if t not in STOPWORDS}


def jac(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def verb_of(step: str) -> str:
    t = re.sub(r"^[0-9]+[.)]\s*", "", step.lower().strip())
    t = re.sub(r"^((the|a)\s+)?person\s+(is\s+|are\s+|was\s+|were\s+|will\s+|begins?\s+(to\s+)?|"
               r"continues?\s+(to\s+)?)?", "", t)
    t = re.sub(r"^(he|she|they|it)\s+(is\s+|are\s+|was\s+|were\s+|will\s+)?", "", t).strip()
    hits = [p for p in VERB_CANON if t == p or t.startswith(p + " ") or (p[-1] in "sh" and t.startswith(p + "s "))]
    if hits:
        return VERB_CANON[max(hits, key=len)] or "_filler_"
    ws = t.split()
    if not ws:
        return ""
    h = ws[1] if (ws[0] in NON_VERB_WORDS and len(ws) > 1) else ws[0]
    return "_filler_" if h in NON_VERB_WORDS else VERB_CANON.get(stem(h), stem(h))


# ----------------------------------------------------------------------------------------- step checks
def bounded(text: str, phrase: str, at: int) -> bool:
    end = at + len(phrase)
    before = at == 0 or not WORD_CHARS.match(text[at - 1])
    after = end == len(text) or not WORD_CHARS.match(text[end])
    return before and after


def occurs(text: str, phrases: tuple[str, ...]) -> bool:
    low = text.lower()
    for p in phrases:
        i = low.find(p)
        while i >= 0:
            if bounded(low, p, i):
                return True
            i = low.find(p, i + 1)
    return False


def opens(chunk: str, phrases: tuple[str, ...]) -> bool:
    return any(chunk.startswith(p) and bounded(chunk, p, 0) for p in phrases)


def has_object(step: str) -> bool:
    for c in re.findall(r"\b\w+(?:\s+\w+)?\b", step.lower()):
        if opens(c, ACTION_PHRASES) or opens(c, LOCATION_PREPOSITIONS):
            continue
        if c in ("the", "a", "an", "and", "or", "then", "to", "with", "for", "is", "are"):
            continue
        if len(c) > 1 and c not in ("it", "the thing", "that", "this", "them", "those", "these", "something",
                                    "stuff"):
            return True
    return False


def executable(step: str) -> bool:
    return occurs(step, ACTION_PHRASES) and has_object(step) and (
        occurs(step, LOCATION_NOUNS) or occurs(step, LOCATION_PREPOSITIONS))


# --------------------------------------------------------------------------------------------- planning
def order_exec(plan: list[str], truth: list[str]) -> float | None:
    ref = [v for v in map(verb_of, truth) if v not in ("", "_filler_")]
    if not plan or not ref:
        return None
    got = [(verb_of(s) if executable(s) else "") for s in plan]
    i = n = 0
    for v in ref:
        rest = [j for j in range(i, len(plan)) if got[j] == v]
        if not rest:
            break
        n, i = n + 1, rest[0] + 1
    return round(n / len(ref), 4)


def name_stems(name: str) -> set[str]:
    ws = re.findall(r"[a-z]+", name.lower())
    return ({stem(ws[-1])} | {stem(w) for w in ws if len(w) >= 4 and w not in COLOUR_WORDS}) if ws else set()


def keyobj(plan: list[str], split: str, query: str, truth: list[str], mem: dict) -> float | None:
    if not plan:
        return None
    text = " ".join(plan).lower()
    if split == "generalize":
        vocab = set()
        for n in mem["object_names"] + [k for p in mem["procedures"] for k in p["key_objects"]]:
            vocab |= name_stems(n)
        vocab = vocab or set(KITCHEN_NOUNS)
        want = {stem(w) for w in re.findall(r"[a-z]+", " ".join(truth).lower())} & vocab
        have = {stem(w) for w in re.findall(r"[a-z]+", text)}
        return len(want & have) / len(want) if want else None
    best, top = None, 0.0
    for p in mem["procedures"]:
        cand = toks(p["goal"]).union(*[toks(k.replace("_", " ")) for k in p["key_objects"]],
                                     *[toks(s) for s in p["steps"]])
        if jac(toks(query), cand) > top:
            best, top = p, jac(toks(query), cand)
    if best is None or top < 0.10:
        return None
    objs = [k.lower().strip().replace("_", " ") for k in best["key_objects"]]
    objs = [o for o in objs if o]
    if not objs:
        return None
    return sum(o in text or any(len(w) > 2 and w in text for w in o.split()) for o in objs) / len(objs)


def prefadh(plan: list[str], query: str, prefs: list[dict]) -> float | None:
    if not plan or not prefs:
        return None
    text = " ".join(plan).lower()
    pt, qt, vals = toks(text), toks(query), []
    for p in prefs:
        if not p["text"]:
            continue
        c = set().union(*[toks(k) for k in p["keywords"]]) if p["keywords"] else \
            toks(p["text"]) - {"used", "typically", "use", "user"}
        if c and jac(qt, c) >= 0.05:
            vals.append(sum(t in pt or t in text for t in c) / len(c))
    return sum(vals) / len(vals) if vals else None


def task_index(data: Path, pids: list[str]) -> dict[str, dict]:
    out = {}
    for pid in pids:
        doc = json.loads((data / "memora_bench" / f"planning_{pid.lower()}.json").read_text())
        for split in ("replay", "generalize"):
            for t in doc.get(split, []):
                raw = t.get("steps") if t.get("steps") is not None else t.get("ground_truth_steps", [])
                steps = [s[1] if isinstance(s, list) else (s.get("narration", "") if isinstance(s, dict) else s)
                         for s in raw]
                out[f"{pid}:{split}:{t['task_id']}"] = {
                    "query": t["task_query"], "truth": [s.strip() for s in steps if str(s).strip()]}
    return out


def mean_or_none(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def planning_figures(res: dict, data: Path) -> dict[tuple, float | None]:
    tasks = task_index(data, res["participants"])
    cells: dict[tuple, list[dict]] = defaultdict(list)
    for cond, items in res["items"].items():
        for it in items:
            t = tasks[f"{it['participant_id']}:{it['split']}:{it['task_id']}"]
            mem, plan = res["reference_memory"][it["participant_id"]], it["steps"]
            if not plan:
                continue
            row = {"order_exec": order_exec(plan, t["truth"]),
                   "keyobj": keyobj(plan, it["split"], t["query"], t["truth"], mem),
                   "prefadh": prefadh(plan, t["query"], mem["preferences"]),
                   "exec": round(sum(map(executable, plan)) / len(plan), 4)}
            cells[("pooled", cond, it["split"])].append(row)
            cells[(it["participant_id"], cond, it["split"])].append(row)
    out = {}
    for key, rows in cells.items():
        axes = {a: mean_or_none([r[a] for r in rows]) for a in ("order_exec", "keyobj", "prefadh", "exec")}
        three = [axes[a] for a in ("order_exec", "keyobj", "prefadh")]
        axes["rgp"] = None if None in three else sum(three) / 3
        out.update({(*key, a): v for a, v in axes.items()})
    return out


def planning_reported(res: dict) -> dict[tuple, float | None]:
    out = {}
    for who, block in [("pooled", res["conditions"]), *res["per_participant"].items()]:
        for cond, splits in block.items():
            for split, agg in splits.items():
                if agg.get("n_scored"):
                    out.update({(who, cond, split, a): agg[a] for a in ("order_exec", "keyobj", "prefadh", "exec", "rgp")})
    return out


# ----------------------------------------------------------------------------------------------- EAM-QA
def letter(resp: str | None) -> str:
    s = resp or ""
    m = re.search(r"\*?\*?answer:\s*\*?\*?\s*([a-e])[)\s*]", s, re.IGNORECASE)
    if m:
        return m.group(1).upper()
    for i, ch in enumerate(s):  # a capital A-E at a word start, followed by ")"
        if ch in "ABCDE" and (i == 0 or not WORD_CHARS.match(s[i - 1])) and s[i + 1:i + 2] == ")":
            return ch
    for i, ch in enumerate(s):  # a capital A-E standing as a word
        if ch in "ABCDE" and (i == 0 or not WORD_CHARS.match(s[i - 1])) and \
                (i + 1 == len(s) or not WORD_CHARS.match(s[i + 1])):
            return ch
    return ""


def eam_figures(res: dict) -> dict[tuple, float | None]:
    out: dict[tuple, float | None] = {}
    graded = {c: [(it, letter(it["response"])) for it in items] for c, items in res["items"].items()}
    pids = sorted({it["participant_id"] for items in res["items"].values() for it in items})
    for c, rows in graded.items():
        for who in ["pooled", *pids]:
            rs = [(it, p) for it, p in rows if who == "pooled" or it["participant_id"] == who]
            if not rs:
                continue
            out[(who, c, "accuracy")] = sum(p == it["gold"] for it, p in rs) / len(rs)
            out[(who, c, "e_rate")] = sum(p == "E" for _, p in rs) / len(rs)
            for t in {it["qa_type"] for it, _ in rs}:
                tr = [(it, p) for it, p in rs if it["qa_type"] == t]
                out[(who, c, "type", t)] = sum(p == it["gold"] for it, p in tr) / len(tr)
    if "parametric" in graded and "memora" in graded:
        key = lambda it: (it["participant_id"], it["qid"])  # noqa: E731
        none = {key(it): p == it["gold"] for it, p in graded["parametric"]}
        full = {key(it): p in ("A", "B", "C", "D") for it, p in graded["memora"]}
        for who in ["pooled", *pids]:
            ok = {k for k in none if k in full and not none[k] and full[k] and who in ("pooled", k[0])}
            for c, rows in graded.items():
                rs = [(it, p) for it, p in rows if key(it) in ok]
                if rs:
                    out[(who, c, "filtered")] = sum(p == it["gold"] for it, p in rs) / len(rs)
    return out


def eam_reported(res: dict) -> dict[tuple, float | None]:
    out = {}
    for who, block in [("pooled", res["conditions"]), *res["per_participant"].items()]:
        for c, b in block.items():
            out[(who, c, "accuracy")], out[(who, c, "e_rate")] = b["accuracy"], b["e_rate"]
            out.update({(who, c, "type", t): v for t, v in b["per_type_accuracy"].items()})
    fs = res.get("filtered_subset", {})
    for who, block in [("pooled", fs.get("pooled", {})), *fs.get("per_participant", {}).items()]:
        out.update({(who, c, "filtered"): v["accuracy"] for c, v in block.items()})
    return out


# ------------------------------------------------------------------------------------------------- main
def compare(mine: dict, theirs: dict) -> tuple[float, list[str]]:
    worst, problems = 0.0, []
    for k in sorted(set(mine) | set(theirs), key=str):
        a, b = mine.get(k), theirs.get(k)
        if a is None or b is None:
            if (a is None) != (b is None):
                problems.append(f"{k}: recomputed {a}, reported {b}")
            continue
        worst = max(worst, abs(a - b))
    return worst, problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[3] / "shared" / "data")
    ap.add_argument("--tol", type=float, default=0.005)
    args = ap.parse_args(argv)
    try:
        res = json.loads(args.results.read_text())
        bench = res["benchmark"]
        if bench == "planning":
            mine, theirs = planning_figures(res, args.data), planning_reported(res)
        else:
            mine, theirs = eam_figures(res), eam_reported(res)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"{args.results}: cannot recompute: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    worst, problems = compare(mine, theirs)
    for p in problems:
        print(p)
    print(f"{bench}: {len(theirs)} reported figures, max abs diff {worst:.6f} (tolerance {args.tol})")
    return 0 if worst <= args.tol and not problems else 1


if __name__ == "__main__":
    sys.exit(main())
