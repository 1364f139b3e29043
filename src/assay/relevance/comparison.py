"""Paired comparison of modes over queries: paired t tests with Holm's correction across the pairs.

For every measure and every pair of modes (name order), the paired t test of the per-query values
(``scipy.stats.ttest_rel``) over the queries both modes were scored on; p-values of one measure are
adjusted together across the pairs with Holm's step-down method (statsmodels ``multipletests``).
A pair whose differences are all zero has p = 1 (no evidence of a difference) rather than nan.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import pandas as pd


def paired_tests(per_query: dict[str, pd.DataFrame], measures: list[str], alpha: float = 0.05) -> list[dict]:
    """Rows ``{measure, a, b, n, mean_diff, t, p, p_holm, reject}`` (``mean_diff`` = a - b).

    Args:
        per_query: mode name -> DataFrame indexed by qid with one column per measure.
        measures: the measure names to compare.
        alpha: family-wise error rate for ``reject`` within one measure.
    """
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    rows = []
    for measure in measures:
        block: list[dict[str, Any]] = []
        for a, b in itertools.combinations(sorted(per_query), 2):
            both = per_query[a].index.intersection(per_query[b].index)
            x, y = per_query[a].loc[both, measure], per_query[b].loc[both, measure]
            diff = (x - y).to_numpy()
            if len(diff) < 2:
                t, p = math.nan, math.nan
            elif (diff == 0).all():
                t, p = 0.0, 1.0
            else:
                t, p = (float(v) for v in stats.ttest_rel(x, y))
            block.append({"measure": measure, "a": a, "b": b, "n": len(diff),
                          "mean_diff": float(diff.mean()) if len(diff) else math.nan, "t": t, "p": p})
        ps = [r["p"] for r in block if not math.isnan(r["p"])]
        adjusted = iter(multipletests(ps, alpha=alpha, method="holm")[1]) if ps else iter(())
        for r in block:
            r["p_holm"] = math.nan if math.isnan(r["p"]) else float(next(adjusted))
            r["reject"] = bool(r["p_holm"] <= alpha) if not math.isnan(r["p_holm"]) else False
        rows += block
    return rows
