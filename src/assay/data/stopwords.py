"""Stop words by language: English has a list (scikit-learn's ``ENGLISH_STOP_WORDS``, held here); every other
language has none.

:func:`stop_words` takes a BCP 47 tag: ``en`` and any ``en-*`` tag get the English list; any other
tag, known or not (``es``, ``bn``, ``zh-Hans``, ``tlh``), gets the empty set, never an error. A
language without a list simply keeps its function words: they are frequent, so TF-IDF and BM25
weigh them down, and leakage's Jaccard counts them on both sides alike. Text whose language is not
known (source lines, relevance queries) is scored with the English list, which removes no content
word of another language.

The list is copied (318 words, scikit-learn 1.9.1) rather than imported because importing
``sklearn`` costs about 0.9 s, which the retrieve stages paid at start-up only for this frozenset.
``tests/test_data_stopwords.py`` checks the copy equals scikit-learn's, so an upgrade that changes
the list fails a test instead of drifting silently.

>>> "the" in ENGLISH_STOP_WORDS, "router" in ENGLISH_STOP_WORDS
(True, False)
"""

from __future__ import annotations

_WORDS = """
a about above across after afterwards again against all almost alone along already also although
always am among amongst amoungst amount an and another any anyhow anyone anything anyway anywhere
are around as at back be became because become becomes becoming been before beforehand behind being
below beside besides between beyond bill both bottom but by call can cannot cant co con could
couldnt cry de describe detail do done down due during each eg eight either eleven else elsewhere
empty enough etc even ever every everyone everything everywhere except few fifteen fifty fill find
fire first five for former formerly forty found four from front full further get give go had has
hasnt have he hence her here hereafter hereby herein hereupon hers herself him himself his how
however hundred i ie if in inc indeed interest into is it its itself keep last latter latterly least
less ltd made many may me meanwhile might mill mine more moreover most mostly move much must my
myself name namely neither never nevertheless next nine no nobody none noone nor not nothing now
nowhere of off often on once one only onto or other others otherwise our ours ourselves out over own
part per perhaps please put rather re same see seem seemed seeming seems serious several she should
show side since sincere six sixty so some somehow someone something sometime sometimes somewhere
still such system take ten than that the their them themselves then thence there thereafter thereby
therefore therein thereupon these they thick thin third this those though three through throughout
thru thus to together too top toward towards twelve twenty two un under until up upon us very via
was we well were what whatever when whence whenever where whereafter whereas whereby wherein
whereupon wherever whether which while whither who whoever whole whom whose why will with within
without would yet you your yours yourself yourselves
"""
ENGLISH_STOP_WORDS = frozenset(_WORDS.split())

_BY_LANGUAGE = {"en": ENGLISH_STOP_WORDS}


def stop_words(lang: str) -> frozenset[str]:
    """The stop words of the language of BCP 47 tag ``lang`` (its primary subtag, case-insensitive); empty when
    assay keeps no list for it.

    >>> len(stop_words("en-GB")), len(stop_words("es")), len(stop_words("not a tag"))
    (318, 0, 0)
    """
    return _BY_LANGUAGE.get(lang.split("-")[0].strip().lower(), frozenset())
