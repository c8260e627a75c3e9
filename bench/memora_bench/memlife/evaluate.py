"""MemLife evaluation: accuracy, retrieval recall, oracle accuracy.

- accuracy: the answer's letter set must equal the gold set (a multi-select answer is right only when the whole
  set matches); no answer or a parse failure is wrong. Over every item given (E-correct controls included);
  `accuracy_answerable` over the answerable ones.
- recall: over answerable items with evidence; an item is retrieved when any interval the reader's actions
  returned overlaps an evidence interval of the same video.
- evidence intervals: EAM-QA items name evidence videos only, so their narration rows are the intervals, narrowed
  to the rows whose words meet the correct answer's content words ("evidence-aligned"); all the video's rows when
  none do. An evidence video outside the memory's timeline has no interval (the item cannot be retrieved).
- oracle accuracy: the accuracy of traces whose reader was handed the evidence-aligned entries directly.
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from memora_core.ingest.narration import NarrationRow

from memora_bench.data import QaItem
from memora_bench.memlife.types import EntryKey, Interval, MemoryEntry, ReaderTrace, Timeline

_WORD = re.compile(r"[a-z]+")
_STOP = frozenset("the a an of to in on and or with from for at by into onto before after then it its is are was "
                  "does do p06 p28 uses use usually first".split())
Evidence = list[tuple[str, Interval]]


def content_words(text: str) -> set[str]:
    return {w.rstrip("s") for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOP}


def gold_text(item: QaItem) -> str:
    idx = "ABCDE".find(item.answer)
    return " ".join(x for x in (item.gt, item.choices[idx] if 0 <= idx < 4 else "") if x)


def evidence_intervals(item: QaItem, rows: list[NarrationRow], timeline: Timeline) -> Evidence:
    vids = [v for v in item.video_ids if v in timeline.offsets]
    if item.unanswerable or not vids:
        return []
    want = content_words(gold_text(item))
    by_video: dict[str, list[NarrationRow]] = defaultdict(list)
    for r in rows:
        if r.video_id in vids:
            by_video[r.video_id].append(r)
    out: Evidence = []
    for v in vids:
        vrows = by_video.get(v, [])
        aligned = [r for r in vrows if content_words(f"{r.narration} {r.verb} {r.noun}") & want] or vrows
        out += [(v, Interval(start=timeline.to_global(v, r.start_s), end=timeline.to_global(v, max(r.stop_s, r.start_s))))
                for r in aligned]
    return out


def oracle_entries(evidence: Evidence, entries: list[MemoryEntry], k: int) -> list[MemoryEntry]:
    """The entries covering the most evidence intervals (ties: earliest), at most k, chronological."""
    scored = []
    for e in entries:
        n = sum(1 for v, iv in evidence if v == e.video_id and e.interval.overlaps(iv))
        if n:
            scored.append((-n, e.t_start, e))
    kept = [e for _, _, e in sorted(scored, key=lambda x: (x[0], x[1]))[:k]]
    return sorted(kept, key=lambda e: e.t_start)


def is_correct(trace: ReaderTrace | None, item: QaItem) -> bool:
    if trace is None or trace.parse_failure or not trace.answer:
        return False
    return set(trace.answer) == set(item.answer)


def retrieved(trace: ReaderTrace, evidence: Evidence, entries: dict[EntryKey, MemoryEntry]) -> bool:
    got = trace.returned_intervals(entries)
    return any(v == ev and iv.overlaps(eiv) for v, iv in got for ev, eiv in evidence)


def pooled(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    """Participants' `evaluate` blocks pooled over all their items (exact, from the counts)."""
    n, n_ans = sum(b["n"] for b in blocks), sum(b["n_answerable"] for b in blocks)
    has_oracle = all(b["oracle_accuracy"] is not None for b in blocks)

    def rate(key: str, total: int) -> float | None:
        return round(sum(b[key] for b in blocks) / total, 4) if total else None

    return {"accuracy": rate("n_correct", n), "recall": rate("n_retrieved", n_ans),
            "oracle_accuracy": rate("n_oracle_correct", n) if has_oracle else None, "n": n, "n_answerable": n_ans,
            "parse_failures": sum(b["parse_failures"] for b in blocks),
            "oracle_parse_failures": sum(b.get("oracle_parse_failures", 0) for b in blocks)}


def _rate(flags: list[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def evaluate(traces: list[ReaderTrace], items: list[QaItem], *, entries: dict[EntryKey, MemoryEntry],
             evidence: dict[str, Evidence], oracle: list[ReaderTrace] | None = None) -> dict[str, Any]:
    by_q = {t.question_id: t for t in traces}
    by_o = {t.question_id: t for t in oracle or []}
    acc, acc_ans, rec, orc = [], [], [], []
    per_type: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for it in items:
        t = by_q.get(it.qid)
        ok = is_correct(t, it)
        acc.append(ok)
        per_type[it.qa_type]["accuracy"].append(ok)
        if oracle is not None:
            o = is_correct(by_o.get(it.qid), it)
            orc.append(o)
            per_type[it.qa_type]["oracle_accuracy"].append(o)
        if it.unanswerable:
            continue
        acc_ans.append(ok)
        r = t is not None and retrieved(t, evidence.get(it.qid, []), entries)
        rec.append(r)
        per_type[it.qa_type]["recall"].append(r)
    return {"n_correct": sum(acc), "n_retrieved": sum(rec), "n_oracle_correct": sum(orc), "accuracy": _rate(acc), "accuracy_answerable": _rate(acc_ans), "recall": _rate(rec),
            "oracle_accuracy": _rate(orc), "n": len(items), "n_answerable": len(acc_ans),
            "parse_failures": sum(1 for t in traces if t.parse_failure),
            "oracle_parse_failures": sum(1 for t in oracle or [] if t.parse_failure),
            "per_type": {k: {m: _rate(v) for m, v in d.items()} for k, d in sorted(per_type.items())}}
