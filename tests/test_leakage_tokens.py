import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.data.leakage.tokens import build_vocabulary, encode, jaccard, words


def test_seed_reworded_copy_scores_low():
    # word sets without function words: {many, days, have, send, bike, back} and {long, have, return, new, bike}
    # share {have, bike}: 2 / (6 + 5 - 2) = 2/9 = 0.222
    assert jaccard("How many days do I have to send a bike back?", "How long do I have to return a new bike?") == pytest.approx(2 / 9)


def test_bangla_words_stay_whole():
    assert words("রিফান্ড কত দিনে পাব?") == frozenset({"রিফান্ড", "কত", "দিনে", "পাব"})


def test_empty_texts_have_no_jaccard():
    assert math.isnan(jaccard("", "?"))


def decode(enc, vocab, n):
    names = {i: w for w, i in vocab.items()}
    return [frozenset(names[i] for i in enc.ids[enc.indptr[r]:enc.indptr[r + 1]].tolist()) for r in range(n)]


# letters, digits, Bangla, Greek capital sigma (its lower case depends on the next letter), stop
# words, punctuation and line breaks inside a text: the batch encoder must still give words(text)
alphabet = st.sampled_from(list("abAB1 ?\n\r\u2028Σσςক\u09bf_-") + ["how ", "the ", "ΟΔΟΣ", "İ"])
texts = st.lists(st.lists(alphabet, max_size=12).map("".join), max_size=12)


@settings(max_examples=200, deadline=None)
@given(texts, texts)
def test_encode_gives_the_word_sets_of_words(left, right):
    vocab, enc = build_vocabulary(left)
    assert decode(enc, vocab, len(left)) == [words(t) for t in left]
    assert enc.sizes.tolist() == [len(words(t)) for t in left]
    probe = encode(right, vocab)
    assert decode(probe, vocab, len(right)) == [words(t) & vocab.keys() for t in right]
    assert probe.sizes.tolist() == [len(words(t)) for t in right]
    assert probe.unknown.tolist() == [len(words(t) - vocab.keys()) for t in right]


def test_ids_follow_ascending_document_frequency_then_the_word():
    vocab, enc = build_vocabulary(["refund bike", "refund card", "refund bike", "zebra"])
    # document frequency: refund 3, bike 2, card 1, zebra 1 (card < zebra alphabetically)
    assert vocab == {"card": 0, "zebra": 1, "bike": 2, "refund": 3}
    assert enc.ids[enc.indptr[0]:enc.indptr[1]].tolist() == [2, 3]  # sorted within the row
