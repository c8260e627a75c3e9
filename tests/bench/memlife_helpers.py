"""Shared pieces of the MemLife tests: a scripted LLM backend and hand-made entries/items."""
from __future__ import annotations

from typing import Any

from memora_core.llm.base import LLMBackend, LLMReply
from memora_core.store.embedding import HashingEmbedder

from memora_bench.data import QaItem
from memora_bench.memlife.index import MemLifeIndex
from memora_bench.memlife.types import MemoryEntry

OPTION_E = "The information is not available based on the given context"


class ScriptedLLM(LLMBackend):
    """Replies from a script, in order; records every request (messages, max_new_tokens)."""

    name = "scripted"

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def chat(self, messages, tools=None, *, max_new_tokens=None) -> LLMReply:
        self.requests.append({"messages": [dict(m) for m in messages], "max_new_tokens": max_new_tokens})
        return LLMReply(text=self.replies.pop(0) if self.replies else "")


def entry(video: str, idx: int, t0: float, t1: float, text: str, pid: str = "PX1") -> MemoryEntry:
    return MemoryEntry(participant_id=pid, video_id=video, segment_index=idx, t_start=t0, t_end=t1, text=text,
                       writer_id="test")


def item(qid: str = "q0", answer: str = "A", choices: tuple[str, ...] = ("onion", "cup", "kettle", "knife"),
         videos: tuple[str, ...] = ("V1",), question: str = "What did I cut?", unanswerable: bool = False,
         qa_type: str = "ERecall", gt: str = "") -> QaItem:
    return QaItem(qid=qid, participant_id="PX1", question=question, choices=[*choices, OPTION_E], answer=answer,
                  qa_type=qa_type, video_ids=list(videos), unanswerable=unanswerable, gt=gt)


def index_of(entries: list[MemoryEntry]) -> MemLifeIndex:
    idx = MemLifeIndex(HashingEmbedder(256))
    idx.add(entries)
    return idx
