"""Leakage: near-duplicate questions across the split and against other sources, at corpus scale.

Modules, each one concept:

* :mod:`~assay.data.leakage.tokens`: word sets (what the exact detector compares) and their ids.
* :mod:`~assay.data.leakage.setjoin`: the exact, sub-quadratic set-similarity join.
* :mod:`~assay.data.leakage.sources`: sources read as a stream of bounded chunks, bad lines named.
* :mod:`~assay.data.leakage.engine`: where chunks are joined: this process, or a Dask cluster.
* :mod:`~assay.data.leakage.paraphrase`: the optional second detector (character n-grams, a plug-in).
* :mod:`~assay.data.leakage.report`: params, the report and its metrics.

What word overlap cannot see: a paraphrase ("send the router back" vs "return the router") scores low and
passes, and nothing here knows what a hosted model saw in training.

Imports numpy and pydantic; scikit-learn only when the paraphrase detector runs, ``distributed``
only with the dask engine.
"""

from assay.data.leakage.report import LeakageParams, leakage_metrics, leakage_report
from assay.data.leakage.setjoin import near_duplicates
from assay.data.leakage.sources import SourceFolder, load_sources
from assay.data.leakage.tokens import jaccard, words

__all__ = ["LeakageParams", "SourceFolder", "jaccard", "leakage_metrics", "leakage_report", "load_sources",
           "near_duplicates", "words"]
