"""The five retrieval modes on a small study: each ranks the document that answers, deterministically."""

import networkx as nx
import numpy as np
import pytest

from assay.core.plugins import PluginError
from assay.relevance.modes.graph import document_graph, personalized_pagerank
from assay.relevance.modes.hybrid import ranks, rrf
from assay.relevance.modes.reranked import overlap_score
from assay.relevance.modes.runner import run_mode
from assay.relevance.params import RelevanceParams
from assay.relevance.corpus import StudyDocument, StudyQuery
from assay.relevance.ranking import order

TOPICS = ["router replacement fee", "esim activation time", "roaming day pass price", "static address setup",
          "student discount proof", "parental controls filter", "number porting form", "outage credit amount"]


def study():
    docs = []
    for i, topic in enumerate(TOPICS):
        docs.append(StudyDocument(doc_id=f"d{i}", family=f"f{i}", kind="policy", title=topic,
                                  text=f"The {topic} policy says value {i}. Shops and the app handle {topic}.",
                                  valid_from="2025-01-01", sources=(f"s{i}",)))
        docs.append(StudyDocument(doc_id=f"s{i}", family=f"f{i}", kind="source", title=f"notice {i}",
                                  text=f"Notice {i} decided the committee rule.", valid_from="2025-01-01"))
    docs.append(StudyDocument(doc_id="n0", family="f0", kind="note", title="note", text="Support note about agents.",
                              valid_from="2025-01-01", mentions=("d0", "d1")))
    queries = [StudyQuery(query_id=f"q{i}", task="current", text=f"What is the {topic}?",
                          acceptable_citation_ids=(f"d{i}",)) for i, topic in enumerate(TOPICS)]
    return docs, queries


@pytest.mark.parametrize("mode", ["lexical", "semantic", "hybrid", "reranked", "graph"])
def test_every_mode_ranks_the_answering_document_first_and_is_deterministic(mode):
    docs, queries = study()
    params = RelevanceParams(semantic={"components": 8})
    first = run_mode(mode, params, docs, queries)
    second = run_mode(mode, params, docs, queries)
    assert first.run.table.equals(second.run.table) and first.latency_ms == second.latency_ms
    t = first.run.table.iloc[order(first.run.table)]
    top = t.groupby("qid").head(1).set_index("qid")["docno"].to_dict()
    assert top == {f"q{i}": f"d{i}" for i in range(len(TOPICS))}
    assert set(first.latency_ms) == {q.query_id for q in queries} and all(v > 0 for v in first.latency_ms.values())
    assert first.latency_kind == "modelled"


def test_semantic_is_named_lsa_and_graph_labels_graph_only_documents():
    docs, queries = study()
    params = RelevanceParams(semantic={"components": 8}, graph={"seeds": 1, "weight": 0.9})
    assert run_mode("semantic", params, docs, queries).label == "LSA over TF-IDF"
    out = run_mode("graph", params, docs, queries)
    # d1, n0, s0 and s1 share no word with q0, so no positive hybrid score; the graph reaches them through
    # the note n0 (which mentions d0 and d1) and the source links, so they are ranked and labelled heuristic
    assert out.heuristic["q0"] == ["d1", "n0", "s0", "s1"]
    assert "d1" in set(out.run.table[out.run.table.qid == "q0"].docno)
    hybrid = run_mode("hybrid", params, docs, queries)
    assert "d1" not in set(hybrid.run.table[hybrid.run.table.qid == "q0"].docno)


def test_measured_latency_is_wall_clock():
    docs, queries = study()
    out = run_mode("lexical", RelevanceParams(latency="measured"), docs, queries)
    assert out.latency_kind == "measured" and all(v >= 0 for v in out.latency_ms.values())


def embed_counts(texts):
    """A plug-in embedding for the test: counts of a few letters."""
    return [[t.count(c) for c in "aeiourst"] for t in texts]


def reverse_cross(query, texts):
    """A plug-in cross-encoder for the test: prefers shorter texts."""
    return [-len(t) for t in texts]


def test_plugins_replace_the_defaults():
    docs, queries = study()
    params = RelevanceParams(semantic={"embedding": "test_relevance_modes:embed_counts"},
                             reranked={"cross_encoder": "test_relevance_modes:reverse_cross", "top_n": 3})
    sem = run_mode("semantic", params, docs, queries)
    assert sem.label == "embedding test_relevance_modes:embed_counts"
    rer = run_mode("reranked", params, docs, queries)
    t = rer.run.table.iloc[order(rer.run.table)]
    first3 = t[t.qid == "q0"].head(3)
    lengths = [len(next(d.text for d in docs if d.doc_id == x)) for x in first3.docno]
    assert lengths == sorted(lengths)  # the cross-encoder's order: shortest first
    with pytest.raises(PluginError, match="relevance.semantic.embedding"):
        run_mode("semantic", RelevanceParams(semantic={"embedding": "nowhere_module:f"}), docs, queries)


def test_rrf_and_ranks_by_hand():
    scores = np.array([0.5, 0.9, 0.5, 0.0])
    ids_desc = np.array([3, 2, 1, 0])  # doc 3 has the greatest id, doc 0 the smallest
    r = ranks(scores, ids_desc, depth=10)
    # 0.9 first; the two 0.5 tie and the greater id (doc 2) ranks before doc 0; score 0 is unranked
    assert list(r[:3]) == [3.0, 1.0, 2.0] and np.isinf(r[3])
    fused = rrf([r, np.array([1.0, np.inf, np.inf, np.inf])], k=60)
    assert fused[0] == pytest.approx(1 / 63 + 1 / 61) and fused[3] == 0.0


def test_ranks_ignore_floating_point_noise_below_the_kept_decimals():
    """Two BLAS kernels differ in a score's last bits: the ranking, and the sign test, must not."""
    scores = np.array([0.3, 0.3 + 1e-15, 0.3 - 1e-15, 1e-17, -1e-17, 0.7])
    ids_desc = np.array([5, 4, 3, 2, 1, 0])
    r = ranks(scores, ids_desc, depth=10)
    noisy = ranks(scores + np.array([-1e-15, -2e-15, 2e-15, -2e-17, 2e-17, 1e-15]), ids_desc, depth=10)
    assert list(r) == list(noisy)
    # the three near-equal scores tie and the document-id order decides; near-zero scores are unranked
    assert list(r[:3]) == [4.0, 3.0, 2.0] and r[5] == 1.0 and np.isinf(r[3]) and np.isinf(r[4])


def test_semantic_drops_components_beyond_the_corpus_numerical_rank():
    """A corpus of three distinct texts, each twice, has TF-IDF rank 3: asking for 8 components keeps 3,
    the rank numpy finds, because the other directions are arbitrary (machine-dependent) noise."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    from assay.relevance.modes.semantic import Semantic
    from assay.relevance.params import SemanticParams

    texts = ["router replacement fee applies", "esim activation takes minutes", "roaming day pass price"] * 2
    searcher = Semantic(SemanticParams(components=8, seed=0)).fit(texts)
    matrix = TfidfVectorizer(sublinear_tf=True, stop_words="english").fit_transform(texts).toarray()
    assert searcher.keep.sum() == np.linalg.matrix_rank(matrix) == 3
    scores, _ = searcher.search("what does the router replacement cost")
    assert scores[0] == pytest.approx(1.0) and scores[3] == pytest.approx(1.0) and abs(scores[1]) < 1e-12


def test_overlap_score_by_hand():
    # words router, replacement, fee all present (coverage 1); bigrams (router, replacement) present,
    # (replacement, fee) absent: 1 + 0.5 * 1/2 = 1.25
    assert overlap_score("router replacement fee", "The router replacement costs a fee") == pytest.approx(1.25)
    assert overlap_score("the what", "anything") == 0.0


def test_personalized_pagerank_matches_networkx():
    docs, _ = study()
    graph = document_graph(docs)
    graph.add_node(len(docs))  # an isolated (dangling) node
    adjacency = nx.to_scipy_sparse_array(graph, nodelist=range(len(docs) + 1), format="csr")
    start = np.zeros(len(docs) + 1)
    start[[0, 2]] = [0.7, 0.3]
    ours = personalized_pagerank(adjacency, start, 0.85, tol=1e-12, max_iter=1000)
    theirs = nx.pagerank(graph, alpha=0.85, personalization={0: 0.7, 2: 0.3}, tol=1e-12, max_iter=1000)
    assert np.abs(ours - np.array([theirs[i] for i in range(len(docs) + 1)])).max() < 1e-9
