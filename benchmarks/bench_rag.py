"""Speed of the RAG runner and the paired comparison at realistic scale (run by hand, not by pytest).

    .venv/bin/python benchmarks/bench_rag.py

Targets: comparing two versions over 100,000 cases (intervals, sign test, McNemar, flips, by task)
under 5 s; the reference system over 10,000 cases against a 2,000-document corpus under 60 s on
2 cores. Everything is synthetic and seeded.
"""

from __future__ import annotations

import datetime as dt
import time

import numpy as np
import pandas as pd

from assay.rag.compare import compare_runs
from assay.data.corpus import Document
from assay.data.cases import TASKS, CaseRecord
from assay.rag.runner import VersionParams, run_version, summarize


def synthetic_runs(n: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two run tables over the same ``n`` ids: baseline passes 80%, the candidate flips a few."""
    rng = np.random.default_rng(seed)
    ids = [f"c{i:06d}" for i in range(n)]
    tasks = rng.choice(TASKS, size=n)
    base = rng.random(n) < 0.8
    flip = rng.random(n) < 0.05
    cand = np.where(flip, rng.random(n) < 0.9, base)

    def table(passed):
        answer = tasks != "unanswerable"
        col = pd.Series(np.where(answer, passed, None), dtype=object)
        return pd.DataFrame({"id": ids, "task": tasks, "passed": passed, "answer_correct": col,
                             "abstain_correct": pd.Series(np.where(answer, None, passed), dtype=object),
                             "citation_support": col, "format_ok": np.ones(n, dtype=bool)})

    return table(base), table(cand)


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
    base, cand = synthetic_runs(100_000)
    t0 = time.perf_counter()
    metrics, report = compare_runs(base, cand, resamples=2000, seed=0)
    t_compare = time.perf_counter() - t0
    print(f"compare: 100,000 paired cases in {t_compare:.2f} s (target < 5 s): better {metrics['better']}, "
          f"worse {metrics['worse']}, p_sign {metrics['p_sign']:.3g}, McNemar p {metrics['mcnemar']['p']:.3g}")

    t0 = time.perf_counter()
    corpus = synthetic_corpus(2_000)
    cases = synthetic_cases(corpus, 10_000)
    print(f"synthetic corpus (2,000 documents) and 10,000 cases built in {time.perf_counter() - t0:.1f} s")
    for name, version in (("paragraph", VersionParams(chunking="paragraph", min_score=0.2)),
                          ("sentence", VersionParams(chunking="sentence", min_score=0.3, min_margin=0.05))):
        t0 = time.perf_counter()
        results = run_version(name, version, cases, corpus, k=3)
        elapsed = time.perf_counter() - t0
        s = summarize(results, resamples=2000, seed=0)
        print(f"reference RAG, {name} chunks: 10,000 cases in {elapsed:.1f} s (target < 60 s): pass rate "
              f"{s['pass_rate']:.3f}, recall@3 {s['recall_at_k']:.3f}, abstain_correct {s['abstain_correct']:.3f}")


if __name__ == "__main__":
    main()
