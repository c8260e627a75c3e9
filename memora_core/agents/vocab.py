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
    verb_stems: set[str] = field(default_factory=set)  # stemmed words of the EPIC verb taxonomy ('set', 'mix')
    phrases: set[str] = field(default_factory=set)     # two-word instance names ('sweet potato', 'tea towel')

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

    def is_verb_form(self, word: str) -> bool:
        """'setting', 'covered', 'mixing': an inflected verb, even where the noun taxonomy lists the word
        (bare forms such as 'plate' or 'water' stay nouns)."""
        w = word.lower()
        return w.endswith(("ing", "ed")) and stem(w) in self.verb_stems

    def object_nouns(self, text: str, ignore: set[str] | frozenset[str] = frozenset()) -> list[str]:
        """The specific objects a sentence names: words the noun taxonomy knows that are not also verbs
        ('setting', 'cover'), not category words ('vegetables'), not in `ignore`, and not a modifier of the
        next noun ('tea towel' -> towel, 'chicken breast' -> breast). Singular, in order, unique."""
        import re

        words = re.findall(r"[a-z]+", text.lower())
        out: list[str] = []
        for i, w in enumerate(words):
            if w in ignore or self.is_verb_form(w) or not self.is_object(w) or self.members(w):
                continue
            nxt = words[i + 1] if i + 1 < len(words) else ""
            if nxt and nxt not in ignore and self.is_object(nxt) and not self.is_verb_form(nxt):
                continue  # a modifier: the phrase is about the next noun
            sw = self.singular(w)
            if sw not in out:
                out.append(sw)
        return out

    def siblings(self, word: str) -> str | None:
        """The class key of a word ('countertop' -> 'top'), so memory names of the same class match."""
        return self.word_class.get(stem(word.lower()))

    def category_of(self, name: str) -> str:
        """The EPIC category of an object name's head word ('wooden spoon' -> 'cutlery'); '' when unknown."""
        words = name.split()
        cls = self.siblings(self.singular(words[-1])) if words else None
        return self.class_category.get(cls or "", "")


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


def _load_verbs(path: Path, voc: Vocabulary) -> None:
    """Every word of the EPIC verb taxonomy ('pick-up' -> pick, up), stemmed."""
    import re

    with path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            try:
                instances = ast.literal_eval(row.get("instances") or "[]")
            except (ValueError, SyntaxError):
                instances = []
            for inst in [row.get("key", ""), *instances]:
                voc.verb_stems.update(stem(w) for w in re.split(r"[-:_ ]", str(inst).lower()) if len(w) > 2)


def load_vocabulary(path: Path | str, verb_path: Path | str | None = None) -> Vocabulary:
    voc = Vocabulary()
    if verb_path is not None and Path(verb_path).exists():
        _load_verbs(Path(verb_path), voc)
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
                elif name.count(" ") == 1:
                    voc.phrases.add(name)
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
        # the verb taxonomy sits beside the noun taxonomy in the EPIC release
        return load_vocabulary(path, path.with_name(path.name.replace("noun_classes_v2", "verb_classes")
                                                     .replace("noun_classes", "verb_classes")))
    except Exception as exc:  # noqa: BLE001 - no taxonomy: planners keep working on plain words
        log.info("no noun taxonomy for the planner vocabulary (%s)", exc)
        return Vocabulary()
