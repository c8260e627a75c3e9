"""EAM-QA construction from an annotation table.

index → per-video digests → candidate items (template generator, or an OpenAI-compatible generator LLM
with single-hop and 2/3-hop items per type) → rule gates → embedding dedup → (LLM) quality filter and
answer re-derivation by a different verifier model → E-correct controls from donor participants →
per-type caps. Each stage's output is saved, so an interrupted run resumes. Output uses the compact
shared schema, so `memora-bench eam-qa --data OUT` evaluates it directly.
"""
from __future__ import annotations

import json
import logging
import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable

import numpy as np
from pydantic import BaseModel, Field, ValidationError, field_validator

from memora_bench.config import EamQaGenConfig, LlmConfig
from memora_bench.data import DEFAULT_OPTION_E, BenchData, Narration, norm_pid
from memora_bench.generators.llm import Chat, OpenAIChat, extract_json
from memora_bench.metrics.eamqa import QA_TYPES, parse_letter

log = logging.getLogger(__name__)
SUFFIX = ("\n\nIMPORTANT: If the information needed to answer this question is not available in your memory "
          "or context, you MUST select option E. Only select A-D if you are confident the answer is supported "
          "by information you have access to.")
CROSS_VIDEO_TYPES = ("SPref", "SRoutine")

Action = tuple[str, str]  # (verb, noun)


def _say(a: Action) -> str:
    return f"{a[0].replace('-', ' ')} {a[1].replace(':', ' ')}".strip()


class ParticipantIndex(BaseModel):
    participant_id: str
    videos: list[str]
    verbs: dict[str, int]
    nouns: dict[str, int]
    pairs: dict[str, int]                  # "verb|noun" → count
    pair_videos: dict[str, list[str]]      # "verb|noun" → videos it occurs in
    bigrams: dict[str, int]                # "verb>verb" within videos
    next_after: dict[str, dict[str, int]]  # trigger "verb|noun" → next "verb|noun" → count (same video)
    next_videos: dict[str, list[str]]      # "trigger>next" → videos


def build_index(pid: str, rows: list[Narration]) -> ParticipantIndex:
    verbs, nouns, pairs = Counter(), Counter(), Counter()
    pair_videos: dict[str, set[str]] = defaultdict(set)
    bigrams: Counter[str] = Counter()
    nxt: dict[str, Counter[str]] = defaultdict(Counter)
    nxt_videos: dict[str, set[str]] = defaultdict(set)
    by_video: dict[str, list[Narration]] = defaultdict(list)
    for r in rows:
        by_video[r.video_id].append(r)
    for vid, vrows in by_video.items():
        vrows.sort(key=lambda r: r.start_s)
        for i, r in enumerate(vrows):
            key = f"{r.verb}|{r.noun}"
            verbs[r.verb] += 1
            nouns[r.noun] += 1
            pairs[key] += 1
            pair_videos[key].add(vid)
            if i + 1 < len(vrows):  # tables stay within a video: no transitions across sessions
                n = vrows[i + 1]
                bigrams[f"{r.verb}>{n.verb}"] += 1
                nkey = f"{n.verb}|{n.noun}"
                if nkey != key:
                    nxt[key][nkey] += 1
                    nxt_videos[f"{key}>{nkey}"].add(vid)
    return ParticipantIndex(participant_id=pid, videos=sorted(by_video), verbs=dict(verbs), nouns=dict(nouns),
                            pairs=dict(pairs), pair_videos={k: sorted(v) for k, v in pair_videos.items()},
                            bigrams=dict(bigrams), next_after={k: dict(v) for k, v in nxt.items()},
                            next_videos={k: sorted(v) for k, v in nxt_videos.items()})


def video_digest(video_id: str, rows: list[Narration], max_actions: int) -> dict[str, Any]:
    rows = sorted(rows, key=lambda r: r.start_s)
    step = max(1, len(rows) // max_actions)
    return {"video_id": video_id, "n_actions": len(rows),
            "top_verbs": [v for v, _ in Counter(r.verb for r in rows).most_common(5)],
            "top_nouns": [n for n, _ in Counter(r.noun for r in rows).most_common(8)],
            "actions": [r.narration for r in rows[::step]][:max_actions]}


class GenItem(BaseModel):
    """One generated question in the compact schema (plus provenance)."""

    id: str = ""
    q: str = Field(min_length=8)
    choices: list[str] = Field(min_length=4, max_length=4)
    answer: str
    type: str
    gt: str
    video_ids: list[str] = Field(default_factory=list)
    num_videos: int = 1
    hops: int = 1
    unanswerable: bool = False
    source: str | None = None
    generator: str = "template"

    @field_validator("type")
    @classmethod
    def _type(cls, v: str) -> str:
        if v not in QA_TYPES:
            raise ValueError(f"type must be one of {QA_TYPES}")
        return v

    @field_validator("answer")
    @classmethod
    def _answer(cls, v: str) -> str:
        v = v.strip().upper()
        if v not in "ABCDE" or len(v) != 1:
            raise ValueError("answer must be a letter A-E")
        return v

    @field_validator("choices")
    @classmethod
    def _distinct(cls, v: list[str]) -> list[str]:
        if len({c.strip().lower() for c in v}) != 4 or any(not c.strip() for c in v):
            raise ValueError("four distinct, non-empty choices")
        return v


# ------------------------------------------------------------------ template generator
def _mc(rng: random.Random, answer: str, pool: list[str]) -> tuple[list[str], str] | None:
    distractors = [p for p in dict.fromkeys(pool) if p != answer][:12]
    if len(distractors) < 3:
        return None
    choices = rng.sample(distractors, 3) + [answer]
    rng.shuffle(choices)
    return choices, "ABCD"[choices.index(answer)]


def _chain(idx: ParticipantIndex, trigger: str, hops: int) -> tuple[str, list[str]] | None:
    """Follow the most frequent next action `hops` times; returns the end action and its videos."""
    cur, videos = trigger, None
    for _ in range(hops):
        table = idx.next_after.get(cur)
        if not table:
            return None
        nxt = max(table, key=lambda k: (table[k], k))
        vids = set(idx.next_videos.get(f"{cur}>{nxt}", []))
        videos = vids if videos is None else videos & vids or vids
        cur = nxt
    return cur, sorted(videos or [])


def template_items(idx: ParticipantIndex, digests: dict[str, dict], cfg: EamQaGenConfig) -> list[GenItem]:
    rng = random.Random(cfg.seed)
    pid = idx.participant_id
    frequent = [k for k, _ in sorted(idx.pairs.items(), key=lambda kv: (-kv[1], kv[0]))]
    pool = [_say(tuple(k.split("|", 1))) for k in frequent]
    items: list[GenItem] = []
    # SHabit: trigger → what next (1..3 hops)
    for trig in frequent:
        if idx.pairs[trig] < cfg.min_trigger_count:
            continue
        for hops in cfg.hops:
            got = _chain(idx, trig, hops)
            if not got:
                continue
            end, vids = got
            ans = _say(tuple(end.split("|", 1)))
            mc = _mc(rng, ans, [p for p in pool if p != _say(tuple(trig.split("|", 1)))])
            if mc:
                lead = "right after" if hops == 1 else f"{hops} actions after"
                items.append(GenItem(q=f"What does {pid} typically do {lead} they {_say(tuple(trig.split('|', 1)))}?",
                                     choices=mc[0], answer=mc[1], type="SHabit", gt=ans, video_ids=vids,
                                     num_videos=len(vids), hops=hops))
    # SPref: for an object, the treatment chosen most often, seen across videos
    by_noun: dict[str, Counter[str]] = defaultdict(Counter)
    for k, c in idx.pairs.items():
        v, n = k.split("|", 1)
        by_noun[n][v] += c
    for noun, verbs in sorted(by_noun.items()):
        verb, cnt = max(verbs.items(), key=lambda kv: (kv[1], kv[0]))
        vids = idx.pair_videos.get(f"{verb}|{noun}", [])
        ans = _say((verb, noun))
        mc = _mc(rng, ans, [_say((v, noun)) for v in idx.verbs if v not in verbs] + pool)
        if mc:
            items.append(GenItem(q=f"Across videos, what does {pid} usually do with the {noun.replace(':', ' ')}?",
                                 choices=mc[0], answer=mc[1], type="SPref", gt=ans, video_ids=vids,
                                 num_videos=len(vids)))
    # SRoutine: what usually comes before an action (ordered verb pairs), across videos
    for key, table in sorted(idx.next_after.items()):
        for nxt, cnt in table.items():
            vids = idx.next_videos.get(f"{key}>{nxt}", [])
            if cnt < cfg.min_trigger_count:
                continue
            ans = _say(tuple(key.split("|", 1)))
            mc = _mc(rng, ans, [p for p in pool if p != _say(tuple(nxt.split("|", 1)))])
            if mc:
                items.append(GenItem(q=f"In {pid}'s routine, which step usually comes just before they "
                                       f"{_say(tuple(nxt.split('|', 1)))}?", choices=mc[0], answer=mc[1],
                                     type="SRoutine", gt=ans, video_ids=vids, num_videos=len(vids)))
    # ERecall: which of these happened in a given video
    for vid, dg in sorted(digests.items()):
        inside = set(dg["actions"])
        outside = [a for other, d in digests.items() if other != vid for a in d["actions"] if a not in inside]
        if not dg["actions"]:
            continue
        ans = rng.choice(dg["actions"])
        mc = _mc(rng, ans, outside)
        if mc:
            items.append(GenItem(q=f"In video {vid}, which of these did {pid} do?", choices=mc[0], answer=mc[1],
                                 type="ERecall", gt=ans, video_ids=[vid], num_videos=1))
    return items


# ------------------------------------------------------------------ gates, dedup, controls, caps
def passes_gates(item: GenItem, idx: ParticipantIndex, cfg: EamQaGenConfig) -> tuple[bool, str]:
    if not item.unanswerable:
        if not item.video_ids:
            return False, "no evidence videos"
        if any(v not in idx.videos for v in item.video_ids):
            return False, "evidence outside the participant's videos"
        if item.type in CROSS_VIDEO_TYPES and len(set(item.video_ids)) < cfg.min_videos_cross:
            return False, f"{item.type} needs >= {cfg.min_videos_cross} videos"
    if item.gt.strip().lower() in item.q.lower():
        return False, "answer leaked into the question"
    return True, "ok"


def dedup(items: list[GenItem], embed: Callable[[list[str]], np.ndarray], threshold: float) -> list[GenItem]:
    """Drop an item whose question + answer embedding has cosine >= threshold with one already kept."""
    if not items:
        return []
    vecs = np.asarray(embed([f"{i.q} {i.gt}" for i in items]), dtype=float)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True).clip(min=1e-9)
    kept: list[int] = []
    for i in range(len(items)):
        if kept and float(np.max(vecs[kept] @ vecs[i])) >= threshold:
            continue
        kept.append(i)
    return [items[i] for i in kept]


def cap_per_type(items: list[GenItem], cap: int) -> list[GenItem]:
    counts: Counter[str] = Counter()
    out = []
    for it in items:
        if counts[it.type] < cap:
            counts[it.type] += 1
            out.append(it)
    return out


def make_controls(target: ParticipantIndex, donor_items: dict[str, list[GenItem]], n: int,
                  seed: int) -> list[GenItem]:
    """E-correct controls: donors' questions re-addressed to the target, kept only when the target never
    did the donor's answer action (so the information really is not in the target's memory)."""
    rng = random.Random(seed)
    target_actions = {_say(tuple(k.split("|", 1))) for k in target.pairs}
    pool = []
    for donor, items in sorted(donor_items.items()):
        for it in items:
            if it.unanswerable or it.gt in target_actions:
                continue
            q = it.q.replace(donor, target.participant_id)
            pool.append(it.model_copy(update={"q": q, "answer": "E", "unanswerable": True, "source": donor.lower(),
                                              "video_ids": []}))
    rng.shuffle(pool)
    return pool[:n]


# ------------------------------------------------------------------ LLM path
GEN_PROMPT = """You write multiple-choice questions about one person's kitchen behaviour, grounded ONLY in the
statistics and video digests below. Type {qtype} ({hint}); {hops}-hop reasoning.
Return a JSON list of up to {n} objects: {{"q": str, "choices": [4 str], "answer": "A".."D", "gt": str,
"video_ids": [video ids that show the answer]}}.
STATS: {stats}
DIGESTS: {digests}"""
TYPE_HINTS = {"SPref": "a preference seen across >= 2 videos", "SHabit": "what the person does right after a "
              "trigger action", "SRoutine": "the order of steps in a recurring procedure across videos",
              "ERecall": "what happened in one specific video"}
VERIFY_PROMPT = """Answer from the evidence only. Evidence (video digests): {digests}
Question: {q}
A) {a}\nB) {b}\nC) {c}\nD) {d}\nE) {e}
Reply with one letter."""


def llm_items(chat: Chat, llm_cfg: LlmConfig, idx: ParticipantIndex, digests: dict[str, dict],
              cfg: EamQaGenConfig) -> list[GenItem]:
    stats = {"top_pairs": sorted(idx.pairs.items(), key=lambda kv: -kv[1])[:40],
             "top_next": {k: sorted(v.items(), key=lambda kv: -kv[1])[:3]
                          for k, v in sorted(idx.next_after.items(), key=lambda kv: -sum(kv[1].values()))[:25]}}
    out = []
    for qtype in QA_TYPES:
        for hops in cfg.hops:
            prompt = GEN_PROMPT.format(qtype=qtype, hint=TYPE_HINTS[qtype], hops=hops, n=5,
                                       stats=json.dumps(stats), digests=json.dumps(list(digests.values())))
            try:
                raw = chat.complete(llm_cfg.generator_model, [{"role": "user", "content": prompt}])
            except Exception as exc:  # noqa: BLE001 - a failed call loses that batch only
                log.warning("generator call failed (%s, %d hops): %s", qtype, hops, exc)
                continue
            parsed = extract_json(raw)
            for obj in parsed if isinstance(parsed, list) else []:
                if not isinstance(obj, dict):
                    continue
                try:
                    out.append(GenItem(**{**obj, "type": qtype, "hops": hops, "generator": "llm",
                                          "num_videos": len(obj.get("video_ids") or [])}))
                except (ValidationError, TypeError) as exc:
                    log.debug("dropping malformed generated item: %s", exc)
    return out


def verify(chat: Chat, llm_cfg: LlmConfig, item: GenItem, digests: dict[str, dict]) -> bool:
    """Quality filter + answer re-derivation by a different model: keep only when it picks the same letter."""
    if llm_cfg.verifier_model == llm_cfg.generator_model:
        raise ValueError("the verifier model must differ from the generator model")
    ev = [digests[v] for v in item.video_ids if v in digests]
    prompt = VERIFY_PROMPT.format(digests=json.dumps(ev), q=item.q, a=item.choices[0], b=item.choices[1],
                                  c=item.choices[2], d=item.choices[3], e=DEFAULT_OPTION_E)
    try:
        raw = chat.complete(llm_cfg.verifier_model, [{"role": "user", "content": prompt}])
    except Exception as exc:  # noqa: BLE001
        log.warning("verifier call failed: %s", exc)
        return False
    return parse_letter(raw, [*item.choices, DEFAULT_OPTION_E]) == item.answer


# ------------------------------------------------------------------ driver
def _hashing_embed(texts: list[str]) -> np.ndarray:
    from memora_core.store.embedding import HashingEmbedder

    return np.asarray(HashingEmbedder().embed(texts))


def _save(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, indent=1))
    tmp.replace(path)


def generate_eam_qa(data: BenchData, pid: str, out: Path, cfg: EamQaGenConfig, *, donors: list[str] = (),
                    llm_cfg: LlmConfig | None = None, chat: Chat | None = None,
                    embed: Callable[[list[str]], np.ndarray] | None = None) -> Path:
    pid = norm_pid(pid)
    if llm_cfg is not None and llm_cfg.verifier_model == llm_cfg.generator_model:
        raise ValueError("the verifier model must differ from the generator model (independent re-derivation)")
    state_dir = out / "_state" / pid
    scope = data.video_scope(pid)
    rows = data.narrations(pid, scope)
    if not rows:
        raise FileNotFoundError(f"no narrations for {pid}")
    idx = build_index(pid, rows)
    by_video: dict[str, list[Narration]] = defaultdict(list)
    for r in rows:
        by_video[r.video_id].append(r)
    digests = {v: video_digest(v, rs, cfg.digest_max_actions) for v, rs in sorted(by_video.items())}
    _save(state_dir / "index.json", idx.model_dump())
    _save(state_dir / "digests.json", digests)

    cand_path = state_dir / "candidates.json"  # save point: generation is the expensive (LLM) stage
    if cand_path.exists():
        candidates = [GenItem.model_validate(x) for x in json.loads(cand_path.read_text())]
    else:
        if llm_cfg is not None:
            chat = chat or OpenAIChat(llm_cfg)
            candidates = llm_items(chat, llm_cfg, idx, digests, cfg)
        else:
            candidates = template_items(idx, digests, cfg)
        _save(cand_path, [c.model_dump() for c in candidates])
    gated = [c for c in candidates if passes_gates(c, idx, cfg)[0]]
    unique = dedup(gated, embed or _hashing_embed, cfg.dedup_cosine)
    if llm_cfg is not None:
        ver_path = state_dir / "verified.json"
        done = json.loads(ver_path.read_text()) if ver_path.exists() else {}
        kept = []
        for it in unique:
            key = f"{it.type}:{it.q}"
            if key not in done:
                done[key] = verify(chat, llm_cfg, it, digests)
                _save(ver_path, done)
            if done[key]:
                kept.append(it)
        unique = kept
    answerable = cap_per_type(unique, cfg.per_type_cap)
    donor_items = {}
    for d in donors:
        d = norm_pid(d)
        drows = data.narrations(d)
        if drows:
            didx = build_index(d, drows)
            dvideos: dict[str, list[Narration]] = defaultdict(list)
            for r in drows:
                dvideos[r.video_id].append(r)
            ddig = {v: video_digest(v, rs, cfg.digest_max_actions) for v, rs in dvideos.items()}
            donor_items[d] = template_items(didx, ddig, cfg)
    n_controls = round(len(answerable) * cfg.control_ratio / (1 - cfg.control_ratio))
    controls = make_controls(idx, donor_items, n_controls, cfg.seed)
    items = answerable + controls
    random.Random(cfg.seed).shuffle(items)
    for i, it in enumerate(items):
        it.id = f"{pid.lower()}_g{i:04d}"
    doc = {"source": "memora_bench.generators.eamqa_gen", "participant_id": pid, "question_suffix": SUFFIX,
           "option_e": DEFAULT_OPTION_E, "video_scope": scope,
           "metadata": {"n_candidates": len(candidates), "n_gated": len(gated), "n_unique": len(unique),
                        "n_answerable": len(answerable), "n_controls": len(controls),
                        "by_type": dict(Counter(i.type for i in answerable)), "donors": sorted(donor_items)},
           "questions": [{k: v for k, v in it.model_dump().items() if v is not None} for it in items]}
    path = out / "memora_bench" / f"eam_qa_{pid.lower()}.json"
    _save(path, doc)
    return path
