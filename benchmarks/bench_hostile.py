"""The hostile-input run of issue 31: every input of tests/hostile_inputs.py, and the count per category.

    python benchmarks/bench_hostile.py                 # this checkout's library
    python benchmarks/bench_hostile.py --src OLD/src   # another checkout's, e.g. the code before a fix

Each input runs in its own process with a 30 s limit and a 2 GB memory cap (about a minute in all
when every one is handled; several minutes against code that hangs).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hostile_inputs import CATEGORIES, run_all  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the src folder whose assay is run")
    args = parser.parse_args()
    tally = run_all(args.src.resolve(), lambda name, category, _: print(f"{category:<18} {name}", flush=True))
    print()
    for category in ("tried", *CATEGORIES):
        print(f"{category:<18} {tally[category]:>3}")


if __name__ == "__main__":
    main()
