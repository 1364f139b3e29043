"""Exact coverage of Tango's paired interval (the compare stage's) for every n from 10 to 300.

Run by hand: ``.venv/bin/python benchmarks/bench_tango.py [STEP]``. Method: exact enumeration of
the discordant counts (tests/tango_enumeration.py; Tango depends only on them) over a grid of
discordant probabilities: improvements only (0.25% to 20% of cases in steps of STEP, default
0.0025) and mixed (the same share split evenly between improving and regressing). Regressions only
mirror improvements only (the interval of (c, b) is minus that of (b, c)), so their two-sided
coverage is the same and their lower bound's is improvements' upper bound's. Prints the worst cells.
About 15 minutes of CPU on a loaded machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from tango_enumeration import coverage  # noqa: E402


def main(step: float) -> None:
    rows = []
    shares = [round(step * i, 6) for i in range(1, int(round(0.2 / step)) + 1)]
    for n in range(10, 301):
        for s in shares:
            for kind, (improve, regress) in (("improve", (s, 0.0)), ("mixed", (s / 2, s / 2))):
                c = coverage(n, improve, regress)
                rows.append((n, kind, s, c))
    print(f"Tango's 95% interval, exact coverage, n 10-300, {len(shares)} discordant shares x 2 patterns")
    for title, key in (("two-sided", lambda r: r[3].two_sided), ("lower bound (improve) / upper (mirror: regress's lower)",
                                                                 lambda r: min(r[3].lower, r[3].upper))):
        print(f"worst 6 by {title}\n{'n':>5} {'pattern':<8}{'share':>7}{'2-sided':>9}{'lower':>8}{'upper':>8}")
        for n, kind, s, c in sorted(rows, key=key)[:6]:
            print(f"{n:5d} {kind:<8}{s:7.4f}{c.two_sided:9.4f}{c.lower:8.4f}{c.upper:8.4f}")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 0.0025)
