"""Object names → canonical nouns via the EPIC noun taxonomy (synonyms such as cabinet → cupboard)."""
from __future__ import annotations

import ast
import csv
from pathlib import Path

from memora_bench.metrics.text import STOPWORDS, noun_lemma, normalize_noun

_PREPOSITIONS = frozenset("from to into onto on in at with under over by for of off out up".split())


class NounTaxonomy:
    """Maps a noun phrase to its taxonomy class key; unknown phrases keep their lemmatised head word."""

    def __init__(self, phrase_to_class: dict[str, str] | None = None,
                 aliases: dict[str, str] | None = None) -> None:
        self.phrase_to_class = dict(phrase_to_class or {})
        # user aliases (robot_configs/bench.yaml) resolve through the taxonomy: faucet → tap → class "tap"
        for alias, target in (aliases or {}).items():
            self.phrase_to_class[normalize_noun(alias)] = self.canonical(target)
        self.max_len = max((len(p.split()) for p in self.phrase_to_class), default=1)

    @classmethod
    def from_csv(cls, path: Path | str, aliases: dict[str, str] | None = None) -> "NounTaxonomy":
        mapping: dict[str, str] = {}
        with Path(path).open(newline="") as fh:
            for row in csv.DictReader(fh):
                key = normalize_noun(row["key"])
                try:
                    instances = ast.literal_eval(row["instances"])
                except (ValueError, SyntaxError):
                    instances = []
                for inst in [row["key"], *instances]:
                    phrase = normalize_noun(str(inst))
                    # the first class to claim a phrase keeps it: EPIC lists the main sense first
                    if phrase and phrase not in mapping:
                        mapping[phrase] = key
        return cls(mapping, aliases)

    def canonical(self, phrase: str) -> str:
        norm = normalize_noun(phrase)
        if not norm:
            return ""
        if norm in self.phrase_to_class:
            return self.phrase_to_class[norm]
        words = norm.split()
        # drop leading modifiers (colours, materials) until a known phrase remains
        for start in range(1, len(words)):
            tail = " ".join(words[start:])
            if tail in self.phrase_to_class:
                return self.phrase_to_class[tail]
        return words[-1]

    def find(self, sentence: str) -> list[str]:
        """Canonical nouns of a sentence, left to right, longest taxonomy phrase first."""
        words = normalize_noun(sentence).split()
        found: list[str] = []
        i = 0
        while i < len(words):
            for n in range(min(self.max_len, len(words) - i), 0, -1):
                phrase = " ".join(words[i:i + n])
                if phrase in self.phrase_to_class:
                    found.append(self.phrase_to_class[phrase])
                    i += n
                    break
            else:
                i += 1
        return found

    def direct_object(self, sentence: str) -> str | None:
        """The object a step acts on: the noun phrase right after the verb, before any preposition."""
        raw = [w for w in sentence.lower().replace(",", " ").replace(".", " ").split()]
        # skip the verb (and its particle), then read words up to the first preposition
        body = raw[1:]
        while body and body[0] in ("up", "on", "off", "down", "out", "away"):
            body = body[1:]
        chunk: list[str] = []
        for w in body:
            # a preposition ends the object phrase once it holds a known noun ("rinse and wring out the cloth")
            if w in _PREPOSITIONS and chunk and self.find(" ".join(chunk)):
                break
            if w not in STOPWORDS and w not in _PREPOSITIONS:
                chunk.append(w)
        if not chunk:
            return None
        hits = self.find(" ".join(chunk))
        return hits[-1] if hits else noun_lemma(chunk[-1])


def canonical_set(names: list[str | None], taxonomy: NounTaxonomy) -> set[str]:
    return {c for c in (taxonomy.canonical(n) for n in names if n) if c}
