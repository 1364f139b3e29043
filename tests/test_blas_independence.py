"""Committed numbers do not depend on the BLAS kernel OpenBLAS picks for the CPU.

OpenBLAS chooses its kernels by CPU, and ``OPENBLAS_CORETYPE`` overrides the choice; kernels differ
in the last digit of a float matrix product. The calibration record's kappa interval once came out
0.5552733700679827 on one machine and ...826 on CI, because the standard error used ``@`` on floats.
Each check runs the same computation in child processes under several kernels and asserts the exact
``repr`` of every float is the same (and, on x86-64, that the kernels really were different ones).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

CORETYPES = ("", "Haswell", "Nehalem", "Prescott")

PROGRAM = r"""
import json, threadpoolctl
import numpy as np
from assay.judge.base import JudgeItem
from assay.judge.fake import PRESETS
from assay.stats.agreement import contingency

rng = np.random.default_rng(7)
out = {"kernels": sorted({i.get("architecture") or "" for i in threadpoolctl.threadpool_info()
                          if i.get("internal_api") == "openblas"})}
for size in (2, 3, 4, 5):
    for trial in range(40):
        a = rng.integers(0, size, 60)
        b = np.where(rng.random(60) < 0.6, a, rng.integers(0, size, 60))
        tab = contingency(a.tolist(), b.tolist())
        for weights in (None, "linear", "quadratic"):
            out[f"{size}/{trial}/{weights}"] = [repr(tab.kappa_se(weights)), *map(repr, tab.kappa_ci(weights))]
words = ["14 days", "full refund", "[source: kb-1]", "thanks", "please", "cancel"]
items = [JudgeItem("q", ("14 days", "full refund"), " ".join(rng.choice(words, rng.integers(1, 30))),
                   " ".join(rng.choice(words, rng.integers(1, 30)))) for _ in range(500)]
for name, judge in sorted(PRESETS.items()):
    first, second = judge.scores(items)
    out[f"fake/{name}"] = [repr(x) for x in first.tolist() + second.tolist()]
print(json.dumps(out))
"""


def run_under(coretype: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBLAS_")}
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_agreement_intervals_and_fake_judge_scores_are_the_same_under_every_kernel():
    results = {c or "default": run_under(c) for c in CORETYPES}
    kernels = {tuple(r.pop("kernels")) for r in results.values()}
    if platform.machine() in ("x86_64", "AMD64"):
        assert len(kernels) >= 2, f"OPENBLAS_CORETYPE chose no other kernel ({kernels}); the check would prove nothing"
    reference = results.pop("default")
    for coretype, result in results.items():
        differing = [key for key in reference if result[key] != reference[key]]
        assert not differing, f"under OPENBLAS_CORETYPE={coretype}: {len(differing)} value(s) differ, first {differing[0]}"
