"""Speed of calibration at scale: 100,000 synthetic pairs, judged in both orders by the fake judge,
with Wilson intervals for the agreement and every slice. Target: under 5 seconds on 2 cores.

Run: .venv/bin/python benchmarks/bench_calibration.py [n_pairs]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import pair_rows  # noqa: E402


def synthetic_pairs(n: int, seed: int = 0) -> list:
    """``n`` pairs cycling through the six kinds, with distinct numbers so every answer text differs
    (the scale run's generator, :func:`bench_scale.pair_rows`)."""
    from assay.data.pairs import Pair

    return [Pair.model_construct(**row, note=None) for row in pair_rows(n, seed)]


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
