"""The one token pattern (assay.data.tokens) as the retriever and the leakage detector use it."""

from sklearn.feature_extraction.text import TfidfVectorizer

from assay.data.leakage.tokens import STOPWORDS, words
from assay.data.tokens import TOKEN, TOKEN_PATTERN


def test_token_pattern_keeps_bangla_words_whole():
    text = "ফেরতের নিয়ম কী?"
    ours = TfidfVectorizer(token_pattern=TOKEN_PATTERN).build_analyzer()(text)
    default = TfidfVectorizer().build_analyzer()(text)
    assert ours == ["ফেরতের", "নিয়ম", "কী"]  # three words, as a reader of Bangla counts them
    assert default != ours  # the default \w pattern cuts at vowel signs (e.g. 'ফ' 'রত' ...)


def test_the_danda_and_punctuation_end_words():
    assert TOKEN.findall("মোডেম ফেরত দিন। Return it, please.") == ["মোডেম", "ফেরত", "দিন", "Return", "it", "please"]


def test_retriever_and_leakage_see_the_same_words():
    text = "How do I return the ফেরতের router within 30 days?"
    analyzer = TfidfVectorizer(token_pattern=TOKEN_PATTERN).build_analyzer()
    # leakage drops its stop words (how, do, i, the); otherwise the two see the same words
    assert words(text) == set(analyzer(text)) - STOPWORDS == {"return", "ফেরতের", "router", "within", "30", "days"}
