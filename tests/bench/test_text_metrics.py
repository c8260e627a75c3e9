"""Verb normaliser, tokens and Jaccard against hand-worked cases."""
import pytest

from memora_bench.metrics.text import jaccard, lemma, normalize_noun, normalize_verb, strip_subject, token_set


@pytest.mark.parametrize("text,verb", [
    ("pick up", "grasp"), ("pick-up", "grasp"), ("Pick up the white onion from the counter.", "grasp"),
    ("grab", "grasp"), ("holding", "grasp"), ("take", "grasp"), ("get", "grasp"),
    ("put", "place"), ("set", "place"), ("lay", "place"), ("dropped", "place"), ("placing", "place"),
    ("carry", "move"), ("brings", "move"), ("transferred", "move"),
    ("clean", "wash"), ("scrubbing", "wash"), ("washes", "wash"),
    ("slice", "cut"), ("chopped", "cut"), ("dice", "cut"),
    ("mix", "stir"), ("whisked", "stir"), ("shut", "close"), ("refill", "fill"),
    ("turn-on", "turn_on"), ("Turn off the faucet.", "turn_off"), ("pour-into", "pour"),
    ("The person is picking up a cup", "grasp"), ("person will put the cup down", "place"),
    ("They chopped the onion", "cut"), ("He was slicing bread", "cut"), ("I will put the plate down", "place"),
    ("knead", "knead"),
])
def test_normalize_verb(text, verb):
    assert normalize_verb(text) == verb


def test_normalize_verb_empty_and_subject_only():
    assert normalize_verb("") is None
    assert normalize_verb("the person is") is None


def test_strip_subject():
    assert strip_subject("The person was then opening the fridge") == "opening the fridge"
    assert strip_subject("she opens it") == "opens it"


def test_lemma_and_nouns():
    assert [lemma(w) for w in ("onions", "dishes", "potatoes", "knives", "berries", "glass")] == \
        ["onion", "dish", "potato", "knife", "berry", "glass"]
    assert normalize_noun("potato:sweet") == "sweet potato"
    assert normalize_noun("board:chopping") == "chopping board"


def test_jaccard_hand_computed():
    # {wash, cup} vs {wash, cup, sink, tap}: 2 / 4
    assert jaccard("Help P06 wash the cup.", "wash cup sink tap") == pytest.approx(0.5)
    assert jaccard("", "cup") == 0.0
    assert token_set("The cups and the Sink") == {"cup", "sink"}


def test_taxonomy_canonical_and_direct_object(taxonomy):
    assert taxonomy.canonical("faucet") == "tap"
    assert taxonomy.canonical("white plastic cabinet") == "cupboard"
    assert taxonomy.canonical("cutting board") == "chopping board"
    assert taxonomy.canonical("zucchini") == "zucchini"  # unknown: its own lemma
    assert taxonomy.direct_object("Pick up the red onion from the countertop.") == "onion"
    assert taxonomy.direct_object("Rinse and wring out the yellow sponge.") == "sponge"
    assert taxonomy.direct_object("Turn on the silver metal faucet.") == "tap"
