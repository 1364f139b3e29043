"""Speed of the reference RAG system at realistic scale (run by hand, not by pytest).

    .venv/bin/python benchmarks/bench_rag.py

Target: the reference system over 10,000 cases against a 2,000-document corpus under 60 s on 2
cores, with its metrics. Everything is synthetic and seeded. The paired comparison at 100,000
cases has its own benchmark, ``benchmarks/bench_compare.py``.
"""

from __future__ import annotations

import datetime as dt
import time

import numpy as np

from assay.data.corpus import Document
from assay.data.cases import CaseRecord
from assay.rag.metrics import side_metrics
from assay.rag.runner import VersionParams, results_table, run_version


def synthetic_corpus(n_docs: int, seed: int = 0) -> dict[str, Document]:
    """``n_docs`` documents of 3-6 paragraphs of 2-4 sentences over a Zipf-like 30,000-word vocabulary."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(30_000)])
    weights = 1 / np.arange(1, vocab.size + 1)
    weights /= weights.sum()
    docs = {}
    for d in range(n_docs):
        paragraphs = []
        for _ in range(rng.integers(3, 7)):
            sentences = [" ".join(rng.choice(vocab, size=rng.integers(8, 20), p=weights)) + "."
                         for _ in range(rng.integers(2, 5))]
            paragraphs.append(" ".join(sentences))
        doc_id = f"doc{d:05d}"
        docs[doc_id] = Document(id=doc_id, title=doc_id, lang="en", updated=dt.date(2026, 1, 1),
                                text="\n\n".join(paragraphs) + "\n")
    return docs


def synthetic_cases(corpus: dict[str, Document], n: int, seed: int = 0) -> list[CaseRecord]:
    """Answer cases quoting 5 words of a paragraph (fact: 2 adjacent words); 15% unanswerable."""
    rng = np.random.default_rng(seed)
    ids = sorted(corpus)
    cases = []
    for i in range(n):
        if rng.random() < 0.15:
            cases.append(CaseRecord(id=f"q{i:05d}", question=f"what about zz{i} yy{i}?", task="unanswerable",
                                    set="golden", lang="en", expect="abstain", why="synthetic unanswerable case"))
            continue
        doc = corpus[ids[rng.integers(len(ids))]]
        words = doc.paragraphs()[0].rstrip(".").split()
        start = int(rng.integers(0, len(words) - 5))
        cases.append(CaseRecord(id=f"q{i:05d}", question=" ".join(words[start:start + 5]) + "?", task="lookup",
                                set="golden", lang="en", expect="answer", doc_ids=[doc.id],
                                facts=[" ".join(words[start:start + 2]).rstrip(".")], why="synthetic lookup case"))
    return cases


def main() -> None:
    t0 = time.perf_counter()
    corpus = synthetic_corpus(2_000)
    cases = synthetic_cases(corpus, 10_000)
    print(f"synthetic corpus (2,000 documents) and 10,000 cases built in {time.perf_counter() - t0:.1f} s")
    for name, version in (("paragraph", VersionParams(chunking="paragraph", min_score=0.2, source="src/assay/rag/systems.py")),
                          ("sentence", VersionParams(chunking="sentence", min_score=0.3, min_margin=0.05,
                                                     source="src/assay/rag/systems.py"))):
        t0 = time.perf_counter()
        results = run_version(name, version, cases, corpus, k=3)
        elapsed = time.perf_counter() - t0
        s = side_metrics(results_table(results).to_pylist(), "wilson")
        print(f"reference RAG, {name} chunks: 10,000 cases in {elapsed:.1f} s (target < 60 s): pass rate "
              f"{s.pass_rate.value:.3f} [{s.pass_rate.ci_low:.3f}, {s.pass_rate.ci_high:.3f}], "
              f"recall@k {s.recall_at_k.value:.3f}")


if __name__ == "__main__":
    main()
