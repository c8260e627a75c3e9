"""Small text utilities shared by tools, conditions and deterministic agents: tokens, stems, BM25.

Kept dependency-free and deterministic so every memory condition ranks text the same way; the
conditions differ in *what* they index, not in how well they can match words.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_TOKEN_RE = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    "a an the and or of to in on at for with from into onto by is are was were be been it its this that these "
    "those what which who whom when where why how does do did done p06 p28 person their they them he she his her "
    "help please then after before while during use uses used using up down out off over under next usually "
    "typically tend tends across videos video right first some any all each other more most very can could would "
    "should will just as if so than too also i you we me my our your".split()
)


def stem(token: str) -> str:
    """A light suffix stripper: enough to match 'onions'/'onion', 'washing'/'wash', 'chopped'/'chop'."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            token = token[: -len(suffix)] + keep
            break
    if len(token) > 3 and token[-1] == token[-2] and token[-1] not in "aeiouls":
        token = token[:-1]  # chopp -> chop, stirr -> stir
    return token


def tokens(text: str, *, keep_stopwords: bool = False) -> list[str]:
    raw = _TOKEN_RE.findall(str(text).lower().replace("-", " ").replace(":", " "))
    return [stem(t) for t in raw if keep_stopwords or t not in STOPWORDS]


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
    """Okapi BM25 over a fixed list of documents."""

    def __init__(self, docs: Sequence[str], k1: float = 1.2, b: float = 0.75) -> None:
        self.docs_tokens = [tokens(d) for d in docs]
        self.k1, self.b = k1, b
        self.tf = [Counter(t) for t in self.docs_tokens]
        n = len(docs)
        self.avgdl = (sum(len(t) for t in self.docs_tokens) / n) if n else 0.0
        df: Counter[str] = Counter()
        for t in self.docs_tokens:
            df.update(set(t))
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}

    def scores(self, query: str) -> list[float]:
        q = tokens(query)
        out = []
        for tf, dt in zip(self.tf, self.docs_tokens):
            s, dl = 0.0, len(dt)
            for w in q:
                f = tf.get(w, 0)
                if f:
                    s += self.idf[w] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * dl / (self.avgdl or 1)))
            out.append(s)
        return out

    def top(self, query: str, k: int, *, candidates: Sequence[int] | None = None) -> list[tuple[int, float]]:
        scores = self.scores(query)
        idx = range(len(scores)) if candidates is None else candidates
        ranked = sorted(((i, scores[i]) for i in idx if scores[i] > 0), key=lambda x: (-x[1], x[0]))
        return ranked[:k]
