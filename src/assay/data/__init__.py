"""The evaluation's data and its checks: cases, corpus, labelled pairs, the plan, the split, leakage.
"""

from assay.core.lazy import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "assay.data.cases": ["coverage", "dataset_hash", "load_cases"],
    "assay.data.corpus": ["load_corpus", "load_dataset"],
    "assay.data.pairs": ["AgreementParams", "load_pairs"],
    "assay.data.plan": ["PlanParams", "load_plan", "plan_problems"],
    "assay.data.split": ["SplitParams", "assign", "read_split"],
    "assay.data.leakage.report": ["LeakageParams", "leakage_report"],
})
