"""MemOpt training data: EAM-QA questions with verified evidence intervals, from EPIC narrations of the
validation-table participants other than the benchmark's P06 and P28, split by participant.

- Questions: the bench's template EAM-QA generator (generators/eamqa_gen.py) per participant, kept in the bench's
  QA schema (`QaItem`). Controls (E-correct, no evidence) are not used.
- Evidence (verified): the narration rows of the item's evidence videos whose action ("verb noun") or narration
  equals the item's ground truth; an item with no such row is dropped. Rows become intervals on the participant's
  global timeline, and the MemLife segments they overlap are the item's evidence segments.
- Split: the eligible participants sorted, shuffled with `random.Random(seed)`, then the first
  round(n * train_frac) are train, the next round(n * val_frac) validation, the rest test. Deterministic.
- Scale: per split, participants in split order contribute questions (fewest evidence segments first) until the
  split's segment budget is reached; a participant's memory is the union of its chosen questions' segments.
- Everything is cached under <out>/data (generator output per participant, then data.json).
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from pydantic import BaseModel, Field

from memora_bench.config import EamQaGenConfig
from memora_bench.data import BenchData, QaItem, norm_pid
from memora_bench.generators.eamqa_gen import _say, generate_eam_qa
from memora_bench.memlife.segments import History, build_history
from memora_bench.memlife.types import EntryKey, Interval, SegmentInput
from memora_core.config import SegmentingConfig

EXCLUDED = ("P06", "P28")  # the benchmark's development and test participants never train the writer
VALIDATION_CSV = "EPIC_100_validation.csv"


class TrainingQuestion(BaseModel):
    item: QaItem
    evidence: list[Interval] = Field(description="verified evidence intervals, global timeline")
    evidence_segments: list[EntryKey]
    question_time: float = Field(description="asked at the end of the participant's history")


class ParticipantData(BaseModel):
    participant_id: str
    segments: list[SegmentInput]
    questions: list[TrainingQuestion]


class MemOptData(BaseModel):
    seed: int
    splits: dict[str, list[str]] = Field(description="train / validation / test participant ids")
    train: list[ParticipantData]
    validation: list[ParticipantData]
    test: list[ParticipantData]


def eligible_participants(data_root: Path) -> list[str]:
    import csv

    with (data_root / "epic100" / VALIDATION_CSV).open(newline="") as fh:
        pids = {norm_pid(r["participant_id"]) for r in csv.DictReader(fh)}
    return sorted(p for p in pids if p not in EXCLUDED)


def split_participants(pids: list[str], seed: int, train_frac: float, val_frac: float) -> dict[str, list[str]]:
    order = sorted(pids)
    random.Random(seed).shuffle(order)
    n_train, n_val = round(len(order) * train_frac), round(len(order) * val_frac)
    return {"train": order[:n_train], "validation": order[n_train:n_train + n_val],
            "test": order[n_train + n_val:]}


def verified_evidence(item: QaItem, history: History) -> list[Interval]:
    """Global intervals of the narration rows (in the item's videos) that show the item's ground truth."""
    want = item.gt.strip().lower()
    vids = set(item.video_ids)
    out = []
    for r in history.rows:
        if r.video_id in vids and r.video_id in history.timeline.offsets and want in (
                _say((r.verb, r.noun)).lower(), r.narration.strip().lower()):
            out.append(Interval(start=history.timeline.to_global(r.video_id, r.start_s),
                                end=history.timeline.to_global(r.video_id, r.stop_s)))
    return out


def segments_for(evidence: list[Interval], segments: list[SegmentInput]) -> list[EntryKey]:
    return [s.key for s in segments if any(Interval(start=s.t_start, end=s.t_end).overlaps(e) for e in evidence)]


def participant_data(bench: BenchData, data_root: Path, pid: str, cache: Path, gen_cfg: EamQaGenConfig,
                     seg_cfg: SegmentingConfig, segment_budget: int) -> ParticipantData | None:
    path = generate_eam_qa(bench, pid, cache, gen_cfg)
    items = [it for it in _items(bench, path) if not it.unanswerable]
    history = build_history(data_root, pid, bench.videos_of(pid), seg_cfg)
    t_q = history.timeline.end
    cands = []
    for it in items:
        ev = verified_evidence(it, history)
        segs = segments_for(ev, history.segments)
        if ev and segs:
            cands.append(TrainingQuestion(item=it, evidence=ev, evidence_segments=segs, question_time=t_q))
    cands.sort(key=lambda q: (len(q.evidence_segments), q.item.qid))
    chosen, keys = [], set()
    for q in cands:
        new = set(q.evidence_segments) - keys
        if len(keys) + len(new) > segment_budget:
            continue
        chosen.append(q)
        keys |= new
    if not chosen:
        return None
    segs = [s for s in history.segments if s.key in keys]
    return ParticipantData(participant_id=pid, segments=segs, questions=chosen)


def _items(bench: BenchData, path: Path) -> list[QaItem]:
    from memora_bench.data import _qa_compact

    return _qa_compact(json.loads(path.read_text())).items


def build_data(data_root: Path, out: Path, *, seed: int, train_frac: float, val_frac: float,
               budgets: dict[str, int], max_participants: dict[str, int], seg_cfg: SegmentingConfig,
               gen_cfg: EamQaGenConfig | None = None) -> MemOptData:
    """The cached data set (<out>/data/data.json), built on first use."""
    cache = out / "data"
    done = cache / "data.json"
    if done.exists():
        return MemOptData.model_validate_json(done.read_text())
    bench = BenchData(data_root)
    splits = split_participants(eligible_participants(data_root), seed, train_frac, val_frac)
    result: dict[str, list[ParticipantData]] = {}
    for split, pids in splits.items():
        got, left = [], budgets[split]
        for pid in pids:
            if left <= 0 or len(got) >= max_participants[split]:
                break
            pd = participant_data(bench, data_root, pid, cache, gen_cfg or EamQaGenConfig(seed=seed), seg_cfg,
                                  min(left, budgets[split]))
            if pd is not None:
                got.append(pd)
                left -= len(pd.segments)
        result[split] = got
    doc = MemOptData(seed=seed, splits=splits, **result)
    cache.mkdir(parents=True, exist_ok=True)
    tmp = done.with_suffix(".tmp")
    tmp.write_text(doc.model_dump_json())
    tmp.replace(done)
    return doc
