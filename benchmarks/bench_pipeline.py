"""Scale check for the foundation stages: 100,000 cases through validate, hash, split and leakage.

Run: .venv/bin/python benchmarks/bench_pipeline.py [--cases 100000] [--source-lines 100000]

Generates synthetic cases (template questions over a 6,000-word vocabulary, with planted
near-duplicates), then times each library step. Leakage is checked for exactness two ways: every
planted near-duplicate must be found, and on a random 3,000 x 3,000 sub-block the result must equal
an all-pairs computation (dense matrix product). Leakage alone at larger scale, streamed sources
and the Dask engine: benchmarks/bench_leakage.py.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from assay.data.cases import dataset_hash, parse_cases
from assay.data.leakage import near_duplicates, words
from assay.data.split import assign

TASKS = ["lookup", "exact_term", "paraphrase", "multi_fact"]
SETS = ["golden", "adversarial", "production_like"]


def synth(n_cases: int, n_source: int, seed: int = 7):
    rnd = random.Random(seed)
    vocab = [f"{rnd.choice('bcdfghklmnprstvz')}{rnd.choice('aeiou')}{rnd.choice('bcdfghklmnprstvz')}{i}" for i in range(6000)]
    weights = [1 / (r + 1) for r in range(len(vocab))]  # Zipf-like: some words are everywhere

    def question() -> str:
        return "how do i " + " ".join(rnd.choices(vocab, weights, k=rnd.randint(5, 12))) + "?"

    rows = []
    for i in range(n_cases):
        # every 2000th case is a planted near-duplicate of the previous one: one word appended
        q = rows[-1][1]["question"].rstrip("?") + " please?" if i % 2000 == 1 else question()
        rows.append((i + 1, {"id": f"c{i:06d}", "question": q, "task": TASKS[i % 4], "set": SETS[i % 3], "lang": "en",
                             "expect": "answer", "doc_ids": [f"d{i % 2000}"], "facts": ["14 days"], "why": "synthetic scale case"}))
    source = [question() for _ in range(n_source)]
    for k in range(0, n_source, 5000):  # planted copies of cases in the source
        source[k] = rows[(k * 7) % n_cases][1]["question"]
    return rows, source


def brute_block(left: list[str], right: list[str], t: float) -> set[tuple[int, int]]:
    vocab = {}
    sets = [[vocab.setdefault(w, len(vocab)) for w in words(x)] for x in left + right]
    m = np.zeros((len(sets), len(vocab)), dtype=np.float32)
    for i, s in enumerate(sets):
        m[i, s] = 1
    a, b = m[: len(left)], m[len(left):]
    inter = a @ b.T
    union = a.sum(1)[:, None] + b.sum(1)[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(union > 0, inter / union, 0)
    return {(int(i), int(j)) for i, j in zip(*np.nonzero(score >= t - 1e-12), strict=True)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--source-lines", type=int, default=100_000)
    ap.add_argument("--threshold", type=float, default=0.6)
    args = ap.parse_args()
    rows, source = synth(args.cases, args.source_lines)
    timings = {}

    t0 = time.perf_counter()
    cases = parse_cases("synthetic.jsonl", rows)
    timings["validate"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    digest = dataset_hash(cases)
    timings["hash"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    sides = assign(cases, "bench", 0.3)
    timings["split"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    dev = [c.question for c in cases if sides[c.id] == "dev"]
    hold = [c.question for c in cases if sides[c.id] == "holdout"]
    cross = near_duplicates(dev, hold, args.threshold)
    src = near_duplicates([c.question for c in cases], source, args.threshold)
    timings["leakage"] = time.perf_counter() - t0

    total = sum(timings.values())
    print(f"{len(cases)} cases ({len(dev)} dev, {len(hold)} holdout), {len(source)} source lines, hash {digest[:12]}")
    for k, v in timings.items():
        print(f"  {k:<9}{v:7.2f} s")
    print(f"  {'total':<9}{total:7.2f} s  (target < 60 s)")
    print(f"leakage hits: {len(cross)} across the split, {len(src)} case-source")

    # exactness 1: every planted case-source copy is found
    planted = {((k * 7) % len(cases), k) for k in range(0, len(source), 5000)}
    found = {(i, j) for i, j, _ in src}
    print(f"planted case-source copies found: {len(planted & found)}/{len(planted)}")
    # exactness 2: a random sub-block equals the all-pairs computation
    rnd = random.Random(1)
    li = rnd.sample(range(len(cases)), 3000)
    rj = rnd.sample(range(len(source)), 3000)
    left, right = [cases[i].question for i in li], [source[j] for j in rj]
    fast = {(i, j) for i, j, _ in near_duplicates(left, right, args.threshold)}
    exact = brute_block(left, right, args.threshold)
    print(f"3000 x 3000 sub-block: fast {len(fast)} pairs, all-pairs {len(exact)} pairs, identical: {fast == exact}")


if __name__ == "__main__":
    main()
