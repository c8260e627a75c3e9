"""Tokens, Jaccard, and the verb normaliser shared by the planning metrics and the generators."""
from __future__ import annotations

import re

_WORD = re.compile(r"[a-z]+")

STOPWORDS = frozenset("""
a an the and or of to in on at into onto from with for by up off out over under it its this that these those
is are was were be been being will would can could should do does did has have had i he she they we you his her
their them our your my me him us then next after before again all some any each every p help please using use
""".split())

# "(the) person is/was/will ..." and pronoun subjects, stripped before the verb is read.
_SUBJECT = re.compile(
    r"^\s*(?:(?:the\s+)?(?:person|participant|user|human|robot|p\d+)|i|he|she|they|we|you|it)\s+"
    r"(?:(?:is|was|are|were|will|would|should|can|could|has|have|had|then|now|also|first|next)\s+)*"
    r"(?:(?:be|been)\s+)?",
    re.IGNORECASE)

_IRREGULAR = {
    "took": "take", "taken": "take", "got": "get", "gotten": "get", "held": "hold", "laid": "lay",
    "brought": "bring", "put": "put", "set": "set", "cut": "cut", "shut": "shut", "made": "make",
    "threw": "throw", "thrown": "throw", "ate": "eat", "eaten": "eat", "went": "go", "gone": "go",
    "did": "do", "done": "do", "began": "begin", "kept": "keep", "left": "leave", "found": "find",
    "dried": "dry", "dries": "dry", "emptied": "empty", "empties": "empty", "fried": "fry", "fries": "fry",
    "tidied": "tidy", "carried": "carry", "carries": "carry", "poured": "pour", "stirred": "stir",
    "chopped": "chop", "chopping": "chop", "stirring": "stir", "putting": "put", "cutting": "cut",
    "setting": "set", "shutting": "shut", "dropped": "drop", "dropping": "drop", "scrubbed": "scrub",
    "scrubbing": "scrub", "grabbed": "grab", "grabbing": "grab", "wiped": "wipe", "wiping": "wipe",
    "knives": "knife", "halves": "half", "loaves": "loaf", "shelves": "shelf", "leaves": "leaf",
}

# Two-word verbs first: they must win over their head word (pick up ≠ pick).
_PHRASES = {
    ("pick", "up"): "grasp", ("take", "out"): "grasp", ("take", "off"): "remove", ("put", "down"): "place",
    ("put", "away"): "place", ("put", "back"): "place", ("set", "down"): "place", ("lay", "down"): "place",
    ("turn", "on"): "turn_on", ("switch", "on"): "turn_on", ("turn", "off"): "turn_off",
    ("switch", "off"): "turn_off", ("clean", "up"): "wash", ("wash", "up"): "wash", ("fill", "up"): "fill",
}

VERB_GROUPS: dict[str, tuple[str, ...]] = {
    "grasp": ("grasp", "grab", "hold", "take", "pick", "get", "retrieve", "fetch", "collect", "lift"),
    "place": ("place", "put", "set", "lay", "drop", "leave", "store", "return", "position"),
    "move": ("move", "carry", "bring", "transfer", "slide"),
    "wash": ("wash", "clean", "scrub", "rinse"),
    "cut": ("cut", "slice", "chop", "dice", "mince"),
    "stir": ("stir", "mix", "whisk", "beat"),
    "close": ("close", "shut"),
    "open": ("open", "unscrew", "unwrap"),
    "fill": ("fill", "refill"),
    "wipe": ("wipe", "dry", "wring"),
    "pour": ("pour", "drain", "empty"),
    "remove": ("remove",),
}
_VERB_TO_GROUP = {v: g for g, vs in VERB_GROUPS.items() for v in vs}


def lemma(word: str) -> str:
    """Crude English lemmatiser for verbs and nouns: enough to align inflections, deterministic."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) <= 3:
        return w
    if w.endswith("ing") and len(w) > 5:
        stem = w[:-3]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "ls":
            return stem[:-1]
        return stem + "e" if stem.endswith(("at", "ac", "ur", "iz", "id", "ov", "ic", "as", "ap", "ab")) else stem
    if w.endswith("ed") and len(w) > 4:
        stem = w[:-2]
        if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "ls":
            return stem[:-1]
        if w.endswith("ied"):
            return w[:-3] + "y"
        return stem + "e" if stem.endswith(("at", "ac", "ur", "iz", "id", "ov", "ic", "as", "ap", "ab", "os", "ag")) else stem
    return _singular(w)


def _singular(w: str) -> str:
    """Plural endings (-ies, -ches/-shes/-sses/-xes/-zes/-oes, -s) to the singular."""
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def noun_lemma(word: str) -> str:
    """Plural → singular only: "chopping board" stays a chopping board."""
    w = word.lower()
    if w in _IRREGULAR and w.endswith("s"):
        return _IRREGULAR[w]
    if len(w) <= 3:
        return w
    return _singular(w)


def tokens(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Lower-case lemmatised word tokens; EPIC compound nouns ("potato:sweet", "pick-up") split into words."""
    words = _WORD.findall(text.lower().replace(":", " ").replace("-", " ").replace("_", " "))
    return [lemma(w) for w in words if keep_stopwords or w not in STOPWORDS]


def token_set(text: str) -> set[str]:
    return set(tokens(text))


def jaccard(a: set[str] | str, b: set[str] | str) -> float:
    sa = token_set(a) if isinstance(a, str) else a
    sb = token_set(b) if isinstance(b, str) else b
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


def strip_subject(text: str) -> str:
    """Drop "(the) person is/was/will …" and pronoun subjects so the verb comes first."""
    previous = None
    out = text.strip() + " "  # the pattern ends every word on whitespace
    while previous != out:
        previous, out = out, _SUBJECT.sub("", out, count=1).strip()
    return out


def normalize_verb(text: str) -> str | None:
    """The canonical verb of an action phrase, EPIC verb ("pick-up") or step sentence; None when empty."""
    body = strip_subject(text.lower().replace("-", " ").replace("_", " "))
    words = _WORD.findall(body)
    if not words:
        return None
    first = lemma(words[0])
    if len(words) > 1:
        second = words[1]
        phrase = _PHRASES.get((first, second))
        if phrase:
            return phrase
        # "pick the cup up": particle after the object still makes the phrasal verb
        for later in words[2:5]:
            if (first, later) in _PHRASES and later in ("up", "on", "off", "down", "away", "out"):
                return _PHRASES[(first, later)]
    return _VERB_TO_GROUP.get(first, first)


def normalize_noun(text: str) -> str:
    """EPIC noun ("potato:sweet", "washing:up liquid") → plain lemmatised phrase ("sweet potato")."""
    if ":" in text and " " not in text.strip():
        parts = text.split(":")
        text = " ".join(parts[1:] + parts[:1])
    words = _WORD.findall(text.lower().replace("-", " ").replace("_", " "))
    return " ".join(noun_lemma(w) for w in words if w not in STOPWORDS)
