import math
import pickle
from collections import Counter

import pytest

from assay.core.plugins import PluginError
from assay.data.leakage.paraphrase import BUILTIN, char_ngrams, load_detector

CASES = ["Can I get my money refunded?", "Is delivery free on weekends?", "How long is the router warranty?"]
TEXTS = ["can i get a refund of my money", "weekend deliveries: are they free", "opening hours", ""]


def by_hand(cases, texts):
    """Cosine of sublinear TF-IDF over char_wb 3-5-grams written out: idf = ln((1 + n) / (1 + df)) + 1
    with df counted over the cases (an n-gram no case has gets ln(1 + n) + 1), tf = 1 + ln(count)."""
    from sklearn.feature_extraction.text import HashingVectorizer

    grams = HashingVectorizer(analyzer="char_wb", ngram_range=(3, 5), lowercase=True).build_analyzer()
    case_grams = [Counter(grams(c)) for c in cases]
    df = Counter(g for c in case_grams for g in c)
    n = len(cases)

    def vector(counts):
        v = {g: (1 + math.log(k)) * (math.log((1 + n) / (1 + df[g])) + 1) for g, k in counts.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {g: x / norm for g, x in v.items()}

    cv = [vector(c) for c in case_grams]
    tv = [vector(Counter(grams(t))) for t in texts]
    return [[sum(x * b.get(g, 0.0) for g, x in a.items()) for b in tv] for a in cv]


def test_scores_are_tfidf_cosines_computed_by_hand():
    want = by_hand(CASES, TEXTS)
    got = char_ngrams(CASES, 0.01)(TEXTS)
    assert {(i, j) for i, j, _ in got} == {(i, j) for i in range(3) for j in range(4) if want[i][j] >= 0.01}
    for i, j, s in got:
        assert s == pytest.approx(want[i][j], abs=1e-9)


def test_threshold_and_chunking_do_not_change_scores():
    match = char_ngrams(CASES, 0.3)
    whole = match(TEXTS)
    assert whole and all(s >= 0.3 for *_, s in whole)
    parts = [(i, j + k, s) for k in range(len(TEXTS)) for i, j, s in match(TEXTS[k:k + 1])]
    assert sorted(parts) == whole


def test_matcher_pickles():
    match = pickle.loads(pickle.dumps(char_ngrams(CASES, 0.3)))
    assert match(TEXTS) == char_ngrams(CASES, 0.3)(TEXTS)


def test_builtin_loads_by_name():
    assert load_detector(BUILTIN) is char_ngrams


def test_a_user_detector_plugs_in(tmp_path, monkeypatch):
    (tmp_path / "mydetect.py").write_text(
        "def same_length(cases, threshold):\n"
        "    return lambda texts: [(i, j, 1.0) for i, c in enumerate(cases) for j, t in enumerate(texts) if len(c) == len(t)]\n",
        encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert load_detector("mydetect:same_length")(["ab", "abc"], 0.5)(["xyz"]) == [(1, 0, 1.0)]


@pytest.mark.parametrize("spec, message", [
    ("no_colon", "is not of the form 'module:function'"),
    ("not_a_module_xyz:f", "module 'not_a_module_xyz' could not be imported (ModuleNotFoundError"),
    ("assay.data.leakage.paraphrase:nothing", "has no attribute 'nothing'"),
    ("assay.data.leakage.paraphrase:CELLS", "is a int, not a function"),
])
def test_bad_detector_names_the_param_and_the_fix(spec, message):
    with pytest.raises(PluginError, match="leakage.paraphrase.detector") as error:
        load_detector(spec)
    assert message in str(error.value) and "fix:" in str(error.value)
