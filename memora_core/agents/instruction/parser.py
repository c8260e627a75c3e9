"""Requests -> clauses -> typed tasks.

One left-to-right pass over spaCy's tags (memora_core.agents.instruction.nlp): a verb opens a clause, the
noun phrases after it are its objects ('into the basket' its destination), a pronoun ('rinse it') takes the
previous clause's objects, verbs coordinated before any object share the next one ('rinse and dry the
mug'). Words spaCy tags as a noun or adjective count as a verb where a clause starts and the EPIC verb
taxonomy knows them ('Dry, fold and stack the towels' -> dry). Sequence words order the clauses: 'after'
/ 'once' clauses move before the clause they qualify, 'before' clauses after it; 'by ...ing' says how a
goal verb is done ('ready the leek by trimming it' -> trim leek); 'for ...ing' is a purpose, not a job.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from memora_core.agents.instruction.nlp import Tok, tag
from memora_core.agents.instruction.normalise import split_request
from memora_core.agents.instruction.types import ParsedInstruction, Task
from memora_core.agents.vocab import Vocabulary
from memora_core.tools.text import stem

_BOUNDARY = {",", "and", "or", "then", "first", "next", "finally", "afterwards", "afterward", "also", "later",
             "now", "start", "begin", "after", "before", "once", "&", "plus", "lastly", "subsequently"}
_PRONOUNS = {"it", "them", "they", "these", "those", "everything", "all", "this", "that", "one", "ones"}
_DEST = {"in", "into", "on", "onto", "to", "inside", "under", "back", "away", "in-to"}
_WITH = {"with", "using", "use"}
_PARTICLES = {"up", "down", "away", "out", "off", "back", "over"}
# words that name no object to handle ('a bit of', 'the rest', 'get it done'); adjectives need no list, a
# modifier is kept only when it is a noun or the taxonomy knows the compound
_FILLER = {"bit", "lot", "lots", "rest", "stuff", "thing", "things", "everything", "time", "way", "ready", "done",
           "sorted", "please", "now", "few", "some", "little", "usual"}
_SUBJECTS = {"we", "you", "i", "they", "he", "she"}
_RESULT = {"ready", "done", "sorted", "prepared", "going"}  # 'get the tea ready' = prepare the tea


@dataclass
class _Clause:
    verbs: list[str] = field(default_factory=list)
    manner: list[str] = field(default_factory=list)   # 'by peeling and slicing it'
    objects: list[str] = field(default_factory=list)
    dest: str | None = None
    dest_prep: str | None = None
    particle: str | None = None
    pronoun: bool = False
    order: str | None = None  # 'after' / 'before': where it goes relative to its main clause
    purpose: bool = False      # 'for cooking': not a job of its own
    goal: bool = False         # 'to make a snack': what the previous clause is for


class InstructionParser:
    """`parse(text) -> ParsedInstruction`. `soft_verbs` name a goal rather than an action ('prepare',
    'make'): a clause keeps them only when it names no other verb."""

    def __init__(self, vocab: Vocabulary, soft_verbs: list[str] | tuple[str, ...]) -> None:
        self.vocab = vocab
        self.soft = tuple(soft_verbs)

    # ------------------------------------------------------------------ word classes
    def _verbish(self, toks: list[Tok], i: int) -> bool:
        t = toks[i]
        prev_word = next((toks[j] for j in range(i - 1, -1, -1) if toks[j].text not in _BOUNDARY), None)
        known_object = bool(self.vocab) and self.vocab.is_object(t.text)
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        # 'cups, saucers and spoons on the tray': a known object after a noun and a comma or 'and', itself
        # ending the phrase (not followed by its own object), is the list's next item
        list_item = known_object and prev_word is not None and prev_word.pos in ("NOUN", "PROPN") and \
            (nxt is None or nxt.pos in ("ADP", "PUNCT", "CCONJ"))
        if t.pos == "VERB" and t.dep not in ("amod", "compound") and not (t.tag == "VBN" and t.dep != "conj"):
            if i > 0 and toks[i - 1].pos == "DET" or (list_item and t.tag != "VBG" and toks[i - 1].text in _BOUNDARY):
                return False
            # 'the greasy pans': a known object right after a modifier is the phrase's head, whatever its tag
            return not (known_object and i > 0 and toks[i - 1].pos in ("ADJ", "NOUN")
                        and toks[i - 1].text not in _BOUNDARY)
        if t.pos not in ("NOUN", "ADJ", "PROPN", "ADV", "ADP") or not self.vocab.verb_stems:
            return False
        if stem(t.text.split("-")[0]) not in self.vocab.verb_stems or t.text in _BOUNDARY | _PARTICLES | _DEST:
            return False
        prev = toks[i - 1].text if i > 0 else None
        if prev is not None and prev not in _BOUNDARY:
            return False
        return not list_item

    def _noun(self, t: Tok) -> bool:
        return t.pos in ("NOUN", "PROPN") or (t.pos in ("ADJ", "VERB") and bool(self.vocab) and
                                                self.vocab.is_object(t.text) and t.tag != "VBG")

    def _phrase(self, toks: list[Tok], i: int) -> tuple[str | None, int]:
        """The noun phrase starting at i: (object name, index after it). Determiners and adjectives are
        dropped unless the vocabulary knows the compound ('sweet potato'); noun modifiers stay
        ('chopping board'); the head is singular."""
        words: list[Tok] = []
        j = i
        while j < len(toks) and (toks[j].pos in ("DET", "NUM", "ADJ", "NOUN", "PROPN", "PART") or
                                 (j == i or toks[j - 1].pos != "DET" and toks[j - 1].text not in _BOUNDARY)
                                 and self._noun(toks[j]) or
                                 (toks[j].tag == "VBG" and toks[j].dep in ("amod", "compound"))
                                 or (toks[j].pos == "VERB" and toks[j].dep in ("amod", "compound"))):
            if toks[j].pos == "PART" and toks[j].text != "'s" or (toks[j].text in _RESULT and j > i):
                break
            words.append(toks[j])
            j += 1
        content = [w for w in words if w.pos not in ("DET", "NUM", "PART") and w.text not in _FILLER]
        if not content:
            return None, max(j, i + 1)
        head = content[-1]
        mods = []
        for w in content[:-1]:
            if w.pos in ("NOUN", "PROPN") or w.tag == "VBG" or (f"{w.text} {head.text}" in self.vocab.phrases):
                mods.append(w.text)
        name = " ".join([*mods, self.vocab.singular(head.text) if self.vocab else head.text])
        return name, j

    # ------------------------------------------------------------------ clauses
    def _clauses(self, toks: list[Tok]) -> list[_Clause]:
        clauses: list[_Clause] = []
        cur: _Clause | None = None
        marker: str | None = None   # sequence word before the next verb
        prep: str | None = None     # preposition before the next noun phrase
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.text in ("after", "once", "before") and t.pos in ("ADP", "SCONJ", "ADV"):
                marker, i = t.text, i + 1
                continue
            if t.text == "by" and i + 1 < len(toks) and toks[i + 1].tag == "VBG":
                marker, i = "by", i + 1
                continue
            if t.text == "for" and i + 1 < len(toks) and toks[i + 1].tag == "VBG":
                marker, i = "for", i + 1
                continue
            if t.text in _WITH and (t.pos != "VERB" or (cur is not None and cur.objects)):
                prep, i = "with", i + 1
                continue
            if self._verbish(toks, i):
                lemma = t.lemma if t.pos == "VERB" else t.text
                lemma = self.soft[0] if lemma in _RESULT else lemma  # 'ready the leek' = prepare it
                if i > 1 and toks[i - 1].text in _SUBJECTS and toks[i - 2].pos in ("NOUN", "PROPN"):
                    i += 1  # 'the leeks we have': a relative clause, not a job
                    continue
                if t.tag == "VBG" and cur is not None and cur.verbs and marker is None and toks[i - 1].text == "," \
                        and all(v in self.soft for v in cur.verbs):
                    marker = "by"  # 'ready the leek, trimming it and slicing it': how the goal is reached
                if toks[i - 1].text == "to" and lemma in self.soft and cur is not None and cur.verbs and i > 1:
                    goal = _Clause(verbs=[lemma], goal=True)  # 'toast the bread to make a snack'
                    clauses.append(goal)
                    cur, marker, prep = goal, None, None
                    i += 1
                    continue
                if marker == "for":
                    cur_purpose = _Clause(verbs=[lemma], purpose=True)
                    clauses.append(cur_purpose)
                    cur, marker, prep = cur_purpose, None, None
                elif marker == "by" and cur is not None:
                    cur.manner.append(lemma)
                    cur.pronoun = False
                elif cur is not None and cur.manner and toks[i - 1].text in ("and", "or") and prep is None:
                    cur.manner.append(lemma)  # 'by peeling and slicing it'
                elif cur is not None and not cur.objects and not cur.pronoun and not cur.purpose and cur.verbs \
                        and i > 0 and toks[i - 1].text in ("and", "or", ",", "&") and marker is None:
                    cur.verbs.append(lemma)  # 'rinse and dry the mug': one clause, two verbs
                elif cur is not None and not cur.verbs:
                    cur.verbs.append(lemma)  # objects named first ('the mug: rinse it')
                    cur.order = marker
                else:
                    cur = _Clause(verbs=[lemma], order=marker if marker in ("after", "once", "before") else None)
                    clauses.append(cur)
                if marker in ("after", "once", "before") and cur is not None and cur.order is None:
                    cur.order = marker
                marker = None
                prep = None
                i += 1
                continue
            if t.text in _PARTICLES and t.pos in ("ADP", "ADV", "PART") and cur is not None and \
                    (i + 1 >= len(toks) or not self._noun(toks[i + 1]) or t.text == "away"):
                cur.particle = cur.particle or t.text
                i += 1
                continue
            if t.pos == "ADP" or t.text in _DEST:
                prep, i = t.text, i + 1
                continue
            if t.pos == "PRON" and t.text in _PRONOUNS or t.text in ("all", "everything") and t.pos != "DET":
                if cur is None:
                    cur = _Clause()
                    clauses.append(cur)
                if not cur.objects:
                    cur.pronoun = True
                i += 1
                continue
            if t.text in _RESULT and cur is not None and cur.objects:
                cur.verbs = [self.soft[0] if v in self.soft else v for v in cur.verbs]  # 'get the tea ready'
                i += 1
                continue
            if self._noun(t) or t.pos in ("DET", "ADJ", "NUM"):
                name, j = self._phrase(toks, i)
                if name:
                    if cur is None:
                        cur = _Clause()
                        clauses.append(cur)
                    self._attach(cur, name, prep)
                i = max(j, i + 1)
                continue
            i += 1
        return clauses

    def _attach(self, cur: _Clause, name: str, prep: str | None) -> None:
        if prep in _DEST and prep not in ("away", "back"):
            if not self.vocab or self.vocab.is_object(name.split()[-1]):
                cur.dest, cur.dest_prep = cur.dest or name, cur.dest_prep or prep
                if name not in cur.objects:
                    cur.objects.append(name)
            return
        if prep is not None and prep not in _WITH and prep not in ("of",) and self.vocab \
                and not self.vocab.is_object(name.split()[-1]):
            return  # 'for a party', 'at noon': not a thing to handle
        if prep is None and self.vocab and not self.vocab.is_object(name.split()[-1]) and cur.objects:
            return
        if name not in cur.objects:
            cur.objects.append(name)

    # ------------------------------------------------------------------ tasks
    def _soft_only(self, c: _Clause) -> bool:
        return all(v in self.soft for v in [*c.verbs, *c.manner])

    def _mergeable(self, a: _Clause, b: _Clause) -> bool:
        """Two clauses that are one job: the same objects ('peel the leek, then slice it' = 'peel and slice
        the leek'), or a goal verb alone on objects the other clause handles ('ready the dough and knead it
        in the bowl')."""
        if a.purpose or b.purpose or not a.objects or not b.objects:
            return False
        return a.objects == b.objects or (self._soft_only(a) and set(a.objects) <= set(b.objects)) or \
            (self._soft_only(b) and set(b.objects) <= set(a.objects))

    def _merge(self, clauses: list[_Clause]) -> list[_Clause]:
        out: list[_Clause] = []
        for c in clauses:
            if c.goal and out:
                # the goal's objects come first, as in 'make a snack by toasting the bread'
                prev = out[-1]
                prev.objects = [*c.objects, *[o for o in prev.objects if o not in c.objects]]
                prev.verbs = [*c.verbs, *prev.verbs]
                continue
            if out and self._mergeable(out[-1], c):
                prev = out[-1]
                prev.verbs += [v for v in c.verbs if v not in prev.verbs]
                prev.manner += [v for v in c.manner if v not in prev.manner]
                prev.objects += [o for o in c.objects if o not in prev.objects]
                prev.dest, prev.dest_prep = prev.dest or c.dest, prev.dest_prep or c.dest_prep
                prev.particle = prev.particle or c.particle
                continue
            out.append(c)
        return out

    def _order(self, clauses: list[_Clause]) -> list[_Clause]:
        out: list[_Clause] = []
        pending_before: list[_Clause] = []
        for c in clauses:
            if c.purpose:
                continue
            if c.order in ("after", "once") and out and out[-1].order is None:
                out.insert(len(out) - 1, c)  # 'dry the mug after rinsing it': rinse first
            elif c.order == "before" and not out:
                pending_before.append(c)     # 'before slicing it, rinse the leek': rinse first
            else:
                out.append(c)
                if pending_before and c.order is None:
                    out += pending_before
                    pending_before = []
        return out + pending_before

    @staticmethod
    def _resolve(clauses: list[_Clause]) -> None:
        """A pronoun (or a clause with a verb and no object) means the previous clause's objects, in the
        order the clauses were said ('dry the mug after rinsing it': it = the mug)."""
        prev: _Clause | None = None
        for c in clauses:
            if prev is not None and (c.pronoun or not c.objects) and c.verbs:
                c.objects = [*prev.objects, *[o for o in c.objects if o not in prev.objects]]
            if c.objects:
                prev = c

    def _task(self, c: _Clause) -> Task:
        verbs = [v for v in [*c.verbs, *c.manner] if v not in self.soft] or [v for v in c.verbs if v] or [self.soft[0]]
        verbs = list(dict.fromkeys(verbs))
        objects = [o for o in c.objects if o != c.dest] + ([c.dest] if c.dest in c.objects else [])
        head_verbs = [v.split("-")[0] for v in verbs]
        direct = [o for o in objects if o != c.dest]
        text = " ".join([" and ".join(verbs), *direct, *([c.particle] if c.particle else []),
                         *([f"{c.dest_prep} {c.dest}"] if c.dest else [])])
        return Task(text, head_verbs[0], objects, tuple(dict.fromkeys(head_verbs)), c.dest)

    def parse(self, instruction: str) -> ParsedInstruction:
        requests, need = split_request(instruction)
        clauses: list[_Clause] = []
        for req in requests:
            said = self._clauses(tag(req))
            self._resolve(said)
            clauses += self._merge(self._order(said))
        tasks = [self._task(c) for c in clauses if c.verbs or c.objects]
        return ParsedInstruction(text=instruction, core=" ; ".join(requests), tasks=tasks, need=need)
