"""A question word that names a category of the noun taxonomy is covered by memory that names one of its
members: 'crockery' is covered by a window about the saucer (invented taxonomy and question; the answerer's
own question analysis and coverage)."""
from __future__ import annotations

from memora_core.agents.answering.question import analyse
from memora_core.agents.answering.scoring import window_coverage
from memora_core.agents.answering.windows import Window
from memora_core.agents.config import load_agents_config
from memora_core.agents.vocab import Vocabulary

VOCAB = Vocabulary(word_class={"saucer": "saucer", "jug": "jug", "whisk": "whisk"},
                   class_category={"saucer": "crockery", "jug": "crockery", "whisk": "utensils"},
                   category_classes={"crockery": ["saucer", "jug"], "utensil": ["whisk"]},
                   words={"saucer", "jug", "whisk"})
QUESTION = "Where does the person leave crockery to drain after rinsing?"


def test_a_member_covers_its_category_word():
    cfg = load_agents_config()
    q = analyse(QUESTION, cfg, VOCAB)
    plain = analyse(QUESTION, cfg)
    assert plain.categories == {} and set(q.categories.values()) == {frozenset({"saucer", "jug"})}
    about_member = Window(["rinse saucer", "put saucer on rack"])
    assert window_coverage(q, about_member) > window_coverage(plain, about_member)
    # a window about something outside the category covers only the words it says
    other = Window(["rinse whisk", "put whisk on rack"])
    assert window_coverage(q, other) == window_coverage(plain, other)
