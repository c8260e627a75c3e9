"""Kitchen-object vocabulary for the planners: which task words name objects, which name object categories.

This is word knowledge, not memory: the EPIC noun taxonomy says that 'cutlery' is a category holding
knife / fork / spoon and that 'countertop' is an instance of the class 'top'. Every condition's planner gets
the same vocabulary (Parametric included); *which* knife or vegetable this person actually has must still
come from each condition's own memory. Without the taxonomy file the vocabulary is empty and planners fall
back to their plain word handling.
"""
from __future__ import annotations

import ast
import csv
import logging
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from memora_core.tools.text import normalise_noun, stem

log = logging.getLogger(__name__)


@dataclass
class Vocabulary:
    word_class: dict[str, str] = field(default_factory=dict)        # stemmed word -> class key
    class_category: dict[str, str] = field(default_factory=dict)    # class key -> category
    category_classes: dict[str, list[str]] = field(default_factory=dict)  # singular category word -> class keys
    words: set[str] = field(default_factory=set)                     # surface forms (singular, lower case)

    def __bool__(self) -> bool:
        return bool(self.word_class)

    def singular(self, word: str) -> str:
        """'dishes' -> 'dish', 'vegetables' -> 'vegetable', 'berries' -> 'berry' (a form the vocabulary knows)."""
        w = word.lower()
        for cand in (w, w[:-3] + "y" if w.endswith("ies") else "", w[:-2] if w.endswith("es") else "",
                     w[:-1] if w.endswith("s") else ""):
            if cand and (cand in self.words or cand in self.category_classes):
                return cand
        return w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w

    def is_object(self, word: str) -> bool:
        w = self.singular(word)
        return w in self.words or w in self.category_classes or stem(w) in self.word_class

    def members(self, word: str) -> list[str]:
        """Class keys of a category word ('vegetables' -> onion, carrot, ...); [] when it is not a category.
        A word that is both a category and its own class ('cutlery') counts as the category."""
        w = self.singular(word)
        return [c for c in self.category_classes.get(w, []) if c != w]

    def siblings(self, word: str) -> str | None:
        """The class key of a word ('countertop' -> 'top'), so memory names of the same class match."""
        return self.word_class.get(stem(word.lower()))


def _category_words(category: str) -> list[str]:
    """'spices and herbs and sauces' -> spice, herb, sauce; 'vegetables' -> vegetable."""
    out = []
    for w in category.replace(",", " ").split():
        # category names are phrases ('baked goods and grains'): only their nouns name a category
        if w in {"and", "or", "other", "material", "substitute", "baked", "goods", "prepared", "cleaning",
                 "equipment", "hand", "foot"}:
            continue
        out.append(w[:-3] + "y" if w.endswith("ies") else w[:-1] if w.endswith("s") and not w.endswith("ss") else w)
    return out


def load_vocabulary(path: Path | str) -> Vocabulary:
    voc = Vocabulary()
    with Path(path).open(newline="") as fh:
        for row in csv.DictReader(fh):
            key = normalise_noun(row.get("key", ""))
            cat = (row.get("category") or "").strip().lower()
            if not key:
                continue
            voc.class_category[key] = cat
            try:
                instances = ast.literal_eval(row.get("instances") or "[]")
            except (ValueError, SyntaxError):
                instances = []
            for inst in [row["key"], *instances]:
                name = normalise_noun(str(inst))
                if " " not in name:  # compound instances ('spoon:wooden') add nothing over their head word
                    voc.word_class.setdefault(stem(name), key)
                    voc.words.add(name)
            for cw in _category_words(cat):
                voc.category_classes.setdefault(cw, []).append(key)
    return voc


@lru_cache(maxsize=2)
def default_vocabulary() -> Vocabulary:
    """The taxonomy the narration perception uses, from the shared data root; empty when it is missing."""
    try:
        from memora_core.config import load_config
        from memora_core.perception.base import load_perception_config

        pcfg = load_perception_config(data_dir=str(load_config().data_path()))
        path = Path(pcfg.narration.noun_classes_csv)
        if not path.is_absolute():
            path = pcfg.data_path() / path
        return load_vocabulary(path)
    except Exception as exc:  # noqa: BLE001 - no taxonomy: planners keep working on plain words
        log.info("no noun taxonomy for the planner vocabulary (%s)", exc)
        return Vocabulary()
