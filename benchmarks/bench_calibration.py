"""Speed of calibration at scale: 100,000 synthetic pairs, judged in both orders by the fake judge,
with Wilson intervals for the agreement and every slice. Target: under 5 seconds on 2 cores.

Run: .venv/bin/python benchmarks/bench_calibration.py [n_pairs]
"""

from __future__ import annotations

import random
import sys
import time


def synthetic_pairs(n: int, seed: int = 0) -> list:
    """``n`` pairs cycling through the six kinds, with distinct numbers so every answer text differs."""
    from assay.judge.fake import SELF_MARK
    from assay.data.pairs import Pair

    rng = random.Random(seed)
    pad = " We are always happy to help, and you can find more details in the app at any time."
    out = []
    for i in range(n):
        days = rng.randint(2, 90)
        fact, cite = f"{days} days", f" [source: kb-doc-{i % 40}]"
        right, bad = f"You have {days} days to ask.", f"You have {days} weeks to ask."
        kind = ("clear", "verbose_tie", "padded_wrong", "cite", "tie", "self")[i % 6]
        a, b, final = {
            "clear": (right + cite, bad + cite, "a"),
            "verbose_tie": (right, right + pad * 2, "tie"),
            "padded_wrong": (bad + pad * 2, right, "b"),
            "cite": (right + cite, right, "a"),
            "tie": (right, f"Within {days} days you can ask.", "tie"),
            "self": (f"{SELF_MARK} {right}", right + cite, "b"),
        }[kind]
        if i % 2:  # balance the winners between a and b
            a, b, final = b, a, {"a": "b", "b": "a", "tie": "tie"}[final]
        out.append(Pair.model_construct(id=f"p{i}", case_question=f"How long for request {i}?", facts=[fact], a=a, b=b,
                                        kind=kind, lang="en", ann1=final, ann2=final, final=final, note=None))
    return out


def main() -> None:
    from assay.judge.calibration import calibrate
    from assay.judge.fake import PRESETS
    from assay.judge.prompts import load_prompt

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    pairs = synthetic_pairs(n)
    prompt = load_prompt("data/prompts/pairwise_v2.md")
    for name in ("mixed", "clean"):
        start = time.perf_counter()
        rec = calibrate(pairs, PRESETS[name], prompt, swap=True)
        seconds = time.perf_counter() - start
        print(f"calibrate {n:,} pairs, both orders ({2 * n:,} verdicts), fake preset {name}: "
              f"{seconds:.2f} s (agreement {rec.agreement:.3f}, kappa {rec.kappa:.3f})")


if __name__ == "__main__":
    main()
