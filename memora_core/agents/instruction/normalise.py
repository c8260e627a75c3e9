"""From what a person says to the bare request: no addressee, politeness or question frame, sentences split
into requests and stated needs ('I'm parched, fetch the juice' -> need "I'm parched", request "fetch the
juice"). Every pattern is anchored or bounded: linear in the input length."""
from __future__ import annotations

import re

MAX_CHARS = 600  # an instruction longer than this is cut (a spoken request is a sentence or two)

_SPACE = re.compile(r"\s+")
_PARTICIPANT = re.compile(r"\bp\d{2,3}(?:'s)?\b", re.I)
_ADDRESS = re.compile(r"^(?:hey|hi|hello|ok|okay|so|robot|now)\b[,!]?\s*", re.I)
_HELP = re.compile(r"^(?:please\s+)?help\s+(?:me|us|him|her|them)?\s*(?:to\s+)?(?=\w)", re.I)
# "could you (please) ...", "would you mind ...", "I'd like you to ...", "is it possible to ..."
_FRAMES = re.compile(
    r"^(?:(?:please\s+)?(?:could|can|would|will|won't)\s+you\s+(?:please\s+|kindly\s+)?(?:(?:go\s+ahead\s+and|mind|be\s+"
    r"able\s+to)\s+)?"
    r"|(?:do\s+you\s+mind|would\s+you\s+be\s+so\s+kind\s+as\s+to)\s+"
    r"|i(?:'d|\s+would)\s+(?:like|love|appreciate\s+it\s+if)\s+(?:(?:you|it\s+if\s+you)\s+)?(?:to\s+|could\s+)?"
    r"|i\s+(?:want|need)\s+you\s+to\s+"
    r"|(?:is\s+it\s+possible|are\s+you\s+able)\s+(?:for\s+you\s+)?to\s+"
    r"|it\s+would\s+be\s+(?:great|nice|lovely)\s+if\s+you\s+(?:could|would)\s+"
    r"|(?:let's|lets|let\s+us)\s+"
    r"|(?:time|it's\s+time|it\s+is\s+time)\s+to\s+)", re.I)
_POLITE = re.compile(r"\b(?:please|kindly|for\s+me|for\s+us|thanks|thank\s+you|if\s+you\s+(?:can|could|would|don't\s+"
                     r"mind)|when\s+you\s+(?:get\s+a\s+chance|can|have\s+a\s+moment)|now)\b", re.I)
# a sentence about the speaker that asks for nothing directly: a need ("I'm thirsty", "we could use a snack")
_NEED = re.compile(r"^(?:i|we)(?:'m|'re|'ve|'d|\s+am|\s+are|\s+feel|\s+fancy|\s+could|\s+would|\s+have|\s+really|"
                   r"\s+think|\s+need|\s+want|\s+crave|\s+am\s+feeling)?\b|^(?:my|our)\b", re.I)
_REQUEST_FRAME = re.compile(r"^(?:i|we)\s+(?:want|need|would\s+like|'d\s+like)\s+you\b|^i(?:'d|\s+would)\s+like\s+you\b",
                            re.I)
_SENTENCES = re.compile(r"[.!?;:]+|,\s*(?=(?:i|we)(?:'m|'re|\s)|(?:and|so)\s+(?:i|we)\b)|,\s*(?:so|but)\s+", re.I)


def clean(text: str) -> str:
    t = _PARTICIPANT.sub(" ", text[:MAX_CHARS]).replace("’", "'")
    return _SPACE.sub(" ", t).strip(" ,.!?;:-")


# a place or tool said first ('In the sink, rinse the mug'): moved after the request it belongs to
_FRONTED = re.compile(r"^((?:in|into|on|onto|at|with|using|inside|under|over)\s+[^,]{1,60}),\s*(\w.*)$", re.I)


def strip_frames(sentence: str) -> str:
    """'Hey, could you please help me wash the mug?' -> 'wash the mug'."""
    s = sentence.strip(" ,")
    for _ in range(4):  # frames nest ('ok, please could you help me ...'): at most a few, each one removed once
        before = s
        s = _ADDRESS.sub("", s)
        s = _FRAMES.sub("", s)
        s = _HELP.sub("", s)
        if s == before:
            break
    s = _POLITE.sub(" ", s)
    s = _SPACE.sub(" ", s).strip(" ,")
    m = _FRONTED.match(s)
    return f"{m.group(2)} {m.group(1)}" if m else s


def split_request(text: str) -> tuple[list[str], str | None]:
    """(request sentences in order, the stated need or None)."""
    requests, needs = [], []
    for sent in _SENTENCES.split(clean(text)):
        sent = sent.strip(" ,")
        if not sent:
            continue
        if _NEED.match(sent) and not _REQUEST_FRAME.match(sent):
            head, _, rest = sent.partition(",")  # "I'm parched, pour me some juice": the rest is a request
            needs.append(head.strip())
            sent = rest.strip()
            if not sent or (_NEED.match(sent) and not _REQUEST_FRAME.match(sent)):
                if sent:
                    needs.append(sent)
                continue
        core = strip_frames(sent)
        if core:
            requests.append(core)
    return requests, (", ".join(needs) or None)
