"""The copied English stop words equal scikit-learn's, so the copy cannot drift from the library."""

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS as SKLEARN

from assay.data.stopwords import ENGLISH_STOP_WORDS


def test_the_copy_equals_scikit_learns_list():
    assert ENGLISH_STOP_WORDS == SKLEARN
