"""Small text utilities shared by tools, conditions and deterministic agents: tokens, stems, BM25.

Kept dependency-free and deterministic so every memory condition ranks text the same way; the
conditions differ in *what* they index, not in how well they can match words.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache

_TOKEN_RE = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    "a an the and or of to in on at for with from into onto by is are was were be been it its this that these "
    "those what which who whom when where why how does do did done p06 p28 person their they them he she his her "
    "help please then after before while during use uses used using up down out off over under next usually "
    "typically tend tends across videos video right first some any all each other more most very can could would "
    "should will just as if so than too also i you we me my our your".split()
)


STEM_CACHE_SIZE = 1 << 16  # distinct words kept memoised; a kitchen's vocabulary is a few thousand
TOKENS_CACHE_SIZE = 1 << 13  # distinct texts kept tokenised (memory documents are re-tokenised on rebuilds)


# English verbs whose past tense no suffix rule undoes ('took the lid' must match 'take lid'); grammar, not
# a task's words
IRREGULAR_PAST = {"took": "take", "ate": "eat", "shook": "shake", "threw": "throw", "got": "get", "held": "hold",
                  "brought": "bring", "began": "begin", "broke": "break", "drank": "drink", "froze": "freeze",
                  "hung": "hang", "kept": "keep", "made": "make", "ran": "run", "sat": "sit", "slid": "slide",
                  "stood": "stand", "swept": "sweep", "tore": "tear", "wrung": "wring", "fed": "feed",
                  "found": "find", "gave": "give", "went": "go", "spun": "spin", "undid": "undo", "struck": "strike"}


@lru_cache(maxsize=STEM_CACHE_SIZE)
def stem(token: str) -> str:
    """A light suffix stripper: enough to match 'onions'/'onion', 'washing'/'wash', 'chopped'/'chop',
    'emptied'/'empty', and irregular past tenses ('took'/'take')."""
    if token in IRREGULAR_PAST:
        return IRREGULAR_PAST[token]
    for suffix, keep in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            token = token[: -len(suffix)] + keep
            break
    if len(token) > 3 and token[-1] == token[-2] and token[-1] not in "aeiouls":
        token = token[:-1]  # chopp -> chop, stirr -> stir
    return token


@lru_cache(maxsize=TOKENS_CACHE_SIZE)
def _tokens(text: str, keep_stopwords: bool) -> tuple[str, ...]:
    raw = _TOKEN_RE.findall(text.lower().replace("-", " ").replace(":", " "))
    return tuple(stem(t) for t in raw if keep_stopwords or t not in STOPWORDS)


def tokens(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Content tokens, stemmed (memoised per text: a fresh list each call, callers may mutate it)."""
    return list(_tokens(str(text), keep_stopwords))


def normalise_noun(noun: str) -> str:
    """EPIC writes compound nouns as 'board:chopping'; people say 'chopping board'."""
    noun = str(noun).strip().lower()
    if ":" in noun:
        head, *mods = noun.split(":")
        noun = " ".join([*reversed(mods), head])
    return " ".join(noun.replace("_", " ").split())


def overlap(query: Sequence[str] | str, doc: Sequence[str] | str) -> float:
    """Share of the query's content tokens that the document contains (0..1)."""
    q = set(tokens(query) if isinstance(query, str) else query)
    d = set(tokens(doc) if isinstance(doc, str) else doc)
    return len(q & d) / len(q) if q else 0.0


class BM25:
    """Okapi BM25 over a list of documents that may grow (`add`). Statistics are kept as counts and postings
    (word -> [(document, term frequency)]), so adding documents costs only their own tokens, a query costs the
    postings of its words, and the scores equal those of an index built over all documents at once."""

    def __init__(self, docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.doc_len: list[int] = []
        self.postings: dict[str, list[tuple[int, int]]] = {}
        self._total_len = 0
        self.add(docs)

    def __len__(self) -> int:
        return len(self.doc_len)

    def add(self, docs: Iterable[str]) -> None:
        for d in docs:
            t = tokens(d)
            i = len(self.doc_len)
            for w, f in Counter(t).items():
                self.postings.setdefault(w, []).append((i, f))
            self.doc_len.append(len(t))
            self._total_len += len(t)

    @property
    def avgdl(self) -> float:
        n = len(self.doc_len)
        return (self._total_len / n) if n else 0.0

    def idf_of(self, word: str) -> float:
        n, f = len(self.doc_len), len(self.postings.get(word, ()))
        return math.log(1 + (n - f + 0.5) / (f + 0.5))

    def scores(self, query: str) -> list[float]:
        out = [0.0] * len(self.doc_len)
        avgdl = self.avgdl or 1
        for w in tokens(query):  # per document, terms add up in query order (as a per-document loop would)
            posting = self.postings.get(w)
            if not posting:
                continue
            idf = self.idf_of(w)
            for i, f in posting:
                dl = self.doc_len[i]
                out[i] += idf * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * dl / avgdl))
        return out

    def top(self, query: str, k: int, *, candidates: Sequence[int] | None = None) -> list[tuple[int, float]]:
        scores = self.scores(query)
        idx = range(len(scores)) if candidates is None else candidates
        ranked = sorted(((i, scores[i]) for i in idx if scores[i] > 0), key=lambda x: (-x[1], x[0]))
        return ranked[:k]
