"""Statistics with no knowledge of the pipeline: intervals for proportions and means, agreement
between raters (Cohen's kappa), tests for paired outcomes.

The public intervals, each with the method the pipeline uses by default (a ``method`` argument
chooses another):

- :func:`proportion_ci` ``(k, n, method="wilson", level=0.95) -> (low, high)``: Wilson score or
  Clopper-Pearson.
- :func:`kappa_ci` ``(a, b, weights=None, labels=None, level=0.95) -> (low, high)``: the union of
  the large-sample interval and Wilson's for observed agreement mapped through kappa.
- :func:`mean_ci` ``(values, level=0.95, bounds=None) -> (low, high)``: the betting interval of
  Waudby-Smith and Ramdas within ``bounds`` (the running intersection over the values, by Ville's
  inequality), Student's t without.
- :func:`paired_diff_ci` ``(both, only_first, only_second, neither, level=0.95) -> (diff, low, high)``:
  Tango's score interval for ``p_second - p_first``.

Also public: :func:`ppi_mean_ci` (prediction-powered means, PPI++ with the power-tuned lambda, and
its helpers :func:`win_values` and :func:`rubric_values`), the release decision's statistics
(:func:`one_sided_bound`, :func:`pass_probability`, :func:`least_n`, :func:`look_alpha`), and sample sizes and power
(:func:`holdout_size`, :func:`detectable_change`, :func:`paired_power`, :func:`kappa_pairs`,
:func:`ppi_labels`, :func:`threshold_check`, :func:`threshold_power`, :func:`threshold_size`).

They are imported on first use (PEP 562, no import at module level), so ``import assay.stats``
does not pay for numpy.
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "assay.stats.agreement": ["kappa_ci"],
    "assay.stats.decision": ["least_n", "look_alpha", "one_sided_bound", "pass_probability"],
    "assay.stats.mean": ["mean_ci"],
    "assay.stats.paired": ["paired_diff_ci"],
    "assay.stats.proportion": ["proportion_ci"],
    "assay.stats.ppi": ["PPIEstimate", "PPIError", "ppi_mean_ci", "rubric_values", "win_values"],
    "assay.stats.power": ["DetectableChange", "HoldoutPower", "JudgeMoments", "KappaPairs", "KappaRule", "PPILabels",
                          "PowerError", "ThresholdCheck", "ThresholdPower", "detectable_change", "holdout_size",
                          "kappa_pairs", "paired_power", "ppi_labels", "threshold_check", "threshold_detectable",
                          "threshold_power", "threshold_size"],
})
