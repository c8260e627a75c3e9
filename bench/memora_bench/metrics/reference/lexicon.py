"""Words and tokens as the reference's RGP script reads them (yuzihaowashu/MEMORA @ 9c80048,
`scripts/paper_results/planning_metrics.py`: `_stem`, `_tokenize`, `_jaccard`, `_extract_action_verb`, the
stop-word, verb-synonym, colour and kitchen-noun tables). The tables are the reference's facts, written here
in our own layout; the functions are re-implemented from the rules they follow.
"""
from __future__ import annotations

import re


def _words(spec: str) -> frozenset[str]:
    return frozenset(spec.split())


# Dropped by `tokenize` before stemming (planning_metrics.STOPWORDS).
STOPWORDS = _words("""
the a an is are was were be to of in on at and or for with by from this that it its person participant
p01 p02 p03 p04 p05 p06 p07 p08 p09 tends typically usually while after before when their they user help""")

# Colour / material words left out of a memory object's name stems (planning_metrics._COLOR_TOKENS).
COLOUR_WORDS = _words("black white red green blue yellow silver grey gray brown pink orange purple gold "
                      "transparent clear metal metallic")

# The noun vocabulary Generalize KeyObj falls back on when memory yields none (planning_metrics.KITCHEN_NOUNS).
KITCHEN_NOUNS = _words("""
pot pan wok saucepan kettle bowl plate dish cup mug glass bottle jar can tin container tray board tupperware box
bag basket carton knife spoon fork spatula peeler grater tongs whisk ladle strainer colander opener scoop
microwave toaster blender stove oven hob fridge refrigerator dishwasher sink freezer cooker counter countertop
drawer cabinet cupboard shelf rack table tap faucet burner grill worktop bread toast potato onion garlic carrot
tomato pepper vegetable veg meat chicken rice pasta egg milk cheese butter oil salt sugar flour sauce spice
cereal fruit apple banana lemon herb seasoning bok choy noodle broth cloth sponge towel soap detergent spray
bin trash rubbish tissue paper wipe lid cap handle skin core wrapper peel rind""")

# Subject words skipped when a step's first word is read as its verb (planning_metrics._NON_VERB_TOKENS).
NON_VERB_WORDS = _words("person a the he she they it user participant subject")

# Canonical verb <- every surface form that maps to it, after the reference's merge of its synonym table with
# its inflection table (an entry of the synonym table wins over an inflection). Forms are comma-separated;
# each appears exactly once. "" is the filler class ("the person is").
_VERB_FORMS: dict[str, str] = {
    "grasp": "grasp, grab, hold, grip, pick up, take, get, grasping, grasps, grasped, picking, picks, picked, "
             "grabbing, grabs, grabbed, taking, takes, took, taken, holding, holds, held, getting, gets, got",
    "place": "place, put, set, lay, rest, drop, position, placing, places, placed, putting, puts, setting, sets, "
             "laying, lays, laid, dropping, drops, dropped, positioning, positions, positioned",
    "move": "move, carry, bring, transfer, transport, moving, moves, moved, carrying, carries, carried, bringing, "
            "brings, brought, transferring, transfers, transferred",
    "turn": "turn, twist, rotate, switch, turning, turns, turned, twisting, twists, twisted, rotating, rotates, "
            "rotated, switching, switches, switched",
    "wash": "wash, clean, scrub, washing, washes, washed, cleaning, cleans, cleaned, scrubbing, scrubs, scrubbed, "
            "rinsing, rinses, rinsed",
    "rinse": "rinse",
    "cut": "cut, slice, chop, dice, cutting, cuts, slicing, slices, sliced, chopping, chops, chopped, dicing, "
           "dices, diced",
    "pour": "pour, drizzle, add, pouring, pours, poured, drizzling, drizzles, drizzled, adding, adds, added",
    "open": "open, opening, opens, opened",
    "close": "close, shut, closing, closes, closed, shutting, shuts",
    "stir": "stir, mix, whisk, stirring, stirs, stirred, mixing, mixes, mixed, whisking, whisks, whisked",
    "peel": "peel, peeling, peels, peeled",
    "reach": "reach, extend, reaching, reaches, reached, extending, extends, extended",
    "wipe": "wipe, wiping, wipes, wiped",
    "fill": "fill, refill, filling, fills, filled, refilling, refills, refilled",
    "prepare": "prepare, preparing, prepares, prepared",
    "cook": "cook, cooking, cooks, cooked",
    "use": "use, using, uses, used",
    "begin": "begin, beginning, begins, began, starting, starts, started",
    "continue": "continue, continuing, continues, continued",
    "knead": "knead, kneading, kneads, kneaded",
    "fold": "fold, folding, folds, folded",
    "press": "press, pressing, presses, pressed",
    "shake": "shake, shaking, shakes, shook, shaken",
    "squeeze": "squeeze, squeezing, squeezes, squeezed",
    "drain": "drain, draining, drains, drained",
    "boil": "boil, boiling, boils, boiled",
    "fry": "fry, frying, fries, fried",
    "": "the person is",
}
VERB_CANON: dict[str, str] = {form.strip(): canon for canon, forms in _VERB_FORMS.items()
                              for form in forms.split(",")}
# Longest phrase first: "pick up" is tried before anything shorter.
_PHRASES_LONGEST_FIRST = sorted(VERB_CANON, key=len, reverse=True)
FILLER = "_filler_"

_SUFFIXES = ("ing", "ied", "ies", "ed", "es", "s")  # tried in this order; the first that fits is cut
_TOKEN = re.compile(r"\b[a-z][a-z\-]{2,}\b")
_LETTERS = re.compile(r"[a-z]+")
_NUMBERING = re.compile(r"^\d+[.)]\s*")
_PERSON_SUBJECT = re.compile(r"^(?:(?:the|a)\s+)?person\s+"
                             r"(?:(?:is|are|was|were|will)\s+|begins?\s+(?:to\s+)?|continues?\s+(?:to\s+)?)?")
_PRONOUN_SUBJECT = re.compile(r"^(?:he|she|they|it)\s+(?:(?:is|are|was|were|will)\s+)?")


def stem(word: str) -> str:
    """Cut the first suffix of ("ing", "ied", "ies", "ed", "es", "s") that leaves more than two letters
    (word longer than suffix + 2); then undouble a final double letter when at least three letters remain."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            base = word[: len(word) - len(suffix)]
            if len(base) >= 3 and base[-1] == base[-2]:
                base = base[:-1]
            return base
    return word


def letter_words(text: str) -> list[str]:
    """Maximal runs of a-z in the lower-cased text."""
    return _LETTERS.findall(text.lower())


def tokenize(text: str) -> set[str]:
    """Stems of the words of three or more characters (a letter, then letters or hyphens), stop-words out."""
    return {stem(w) for w in _TOKEN.findall(text.lower()) if w not in STOPWORDS}


def jaccard(a: set[str], b: set[str]) -> float:
    """|a & b| / |a | b|; 0.0 when either side is empty."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _strip_subject(step: str) -> str:
    text = _NUMBERING.sub("", step.lower().strip(), count=1)
    text = _PERSON_SUBJECT.sub("", text, count=1)
    return _PRONOUN_SUBJECT.sub("", text, count=1).strip()


def _phrase_opens(text: str, phrase: str) -> bool:
    if text == phrase or text.startswith(phrase + " "):
        return True
    # a third-person "s" on a phrase that ends in s or h ("washs " is what the rule looks for)
    return phrase.endswith(("s", "h")) and text.startswith(phrase + "s ")


def action_verb(step: str) -> str:
    """The canonical verb a step opens with: numbering and a "(the) person is/will/begins to" or pronoun
    subject are dropped; the longest synonym-table phrase that opens the rest wins (the filler class gives
    FILLER); else the first word (the second when the first is a subject word) is stemmed and mapped through
    the table. "" for an empty step."""
    text = _strip_subject(step)
    for phrase in _PHRASES_LONGEST_FIRST:
        if _phrase_opens(text, phrase):
            return VERB_CANON[phrase] or FILLER
    words = text.split()
    if not words:
        return ""
    head = words[1] if words[0] in NON_VERB_WORDS and len(words) > 1 else words[0]
    if head in NON_VERB_WORDS:
        return FILLER
    s = stem(head)
    return VERB_CANON.get(s, s)
