"""The public intervals of assay.stats: exported in __all__, the pipeline's default method each, lazily imported."""

from __future__ import annotations

import subprocess
import sys

import pytest
from statsmodels.stats.proportion import proportion_confint

import assay.stats as stats
from assay.stats.agreement import contingency
from assay.stats.mean import mean_ci as mean_home
from assay.stats.paired import paired_diff_ci as paired_home


def test_all_names_the_four_intervals_ppi_and_the_power_functions():
    assert {"kappa_ci", "mean_ci", "paired_diff_ci", "proportion_ci", "ppi_mean_ci", "holdout_size",
            "detectable_change", "kappa_pairs", "ppi_labels"} <= set(stats.__all__)
    for name in stats.__all__:
        assert callable(getattr(stats, name)) and getattr(stats, name).__doc__
    with pytest.raises(AttributeError, match="no attribute 'bootstrap_ci'"):
        stats.bootstrap_ci  # noqa: B018


def test_each_uses_the_pipelines_default_method():
    # proportion: Wilson, equal to statsmodels'
    assert stats.proportion_ci(7, 10, "wilson", 0.95) == pytest.approx(proportion_confint(7, 10, method="wilson"), abs=1e-15)
    assert stats.proportion_ci(7, 10, "clopper-pearson", 0.95) == pytest.approx(proportion_confint(7, 10, method="beta"))
    # kappa: the hybrid the calibration record uses
    a, b = list("aabbcabc"), list("abbbcacc")
    assert stats.kappa_ci(a, b) == contingency(a, b).kappa_ci()
    assert stats.kappa_ci(a, b, weights=None, labels=list("abc"), level=0.95) == contingency(a, b, list("abc")).kappa_ci()
    # mean: betting within bounds, t without
    x = [0.2, 0.9, 1.0, 1.0, 0.0]
    assert stats.mean_ci(x, level=0.95, bounds=(0.0, 1.0)) == mean_home(x, 0.95, (0.0, 1.0), "betting")
    assert stats.mean_ci(x) == mean_home(x, method="t")
    # paired: Tango, (diff, low, high)
    assert stats.paired_diff_ci(5, 1, 3, 1, level=0.95) == paired_home(5, 1, 3, 1, method="tango")
    assert len(stats.paired_diff_ci(5, 1, 3, 1)) == 3


def test_importing_proportion_does_not_import_numpy():
    code = "import sys, assay.stats.proportion; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_signatures_are_the_documented_ones():
    import inspect

    def params(f):
        return [(p.name, p.default) for p in inspect.signature(f).parameters.values()][:5]

    empty = inspect.Parameter.empty
    assert params(stats.proportion_ci) == [("k", empty), ("n", empty), ("method", "wilson"), ("level", 0.95)]
    assert params(stats.kappa_ci) == [("a", empty), ("b", empty), ("weights", None), ("labels", None), ("level", 0.95)]
    assert params(stats.mean_ci)[:3] == [("values", empty), ("level", 0.95), ("bounds", None)]
    assert params(stats.paired_diff_ci) == [("both", empty), ("only_first", empty), ("only_second", empty),
                                            ("neither", empty), ("level", 0.95)]
    assert stats.proportion_ci(k=3, n=10, method="wilson", level=0.95) == stats.proportion_ci(3, 10)
