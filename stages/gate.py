"""DVC stage `gate`: decide whether the candidate may ship; write metrics/gate.json and reports/summary.md.

The stage succeeds whatever the verdict, so `dvc repro` completes and the summary shows it;
`assay gate` is the command that fails CI. A verdict on a candidate configuration (its settings and
the bytes of its source) this holdout has not judged before is appended to data/holdout_ledger.jsonl;
the look's index sets the level its checks ran at (``gate.alpha / 2 ** k``), recorded in the provenance.
"""

from assay.artifacts.provenance import provenance
from assay.artifacts.reports import GateReport
from assay.artifacts.registry import GATE, GATE_REPORT, SUMMARY_PAGE, write_record
from assay.artifacts.release import GateMetrics
from assay.core.stage import run_stage
from assay.release.checks import STATUSES, Check, checks_dict, exit_code
from assay.release.gather import gather
from assay.release.ledger import LEDGER, looks, read_ledger, record_look
from assay.release.summary import summary_markdown


def main() -> None:
    checks, ev = gather(".")
    code = exit_code(checks)
    dataset = ev.dataset_hash
    rows = read_ledger(LEDGER)
    if code in (0, 1) and dataset is not None and ev.candidate_id is not None:
        rows = record_look(LEDGER, ev.candidate_id, dataset, "pass" if code == 0 else "fail")
    n_looks = looks(rows, dataset) if dataset is not None else 0
    if n_looks > ev.params.max_holdout_looks:
        checks.append(Check("holdout looks", "warn", f"{n_looks} candidates judged on this holdout "
                            f"(> gate.max_holdout_looks {ev.params.max_holdout_looks}): it is being tuned on"))
    counts = {s: sum(c.status == s for c in checks) for s in STATUSES}
    metrics = GateMetrics(passed=int(code == 0), failed=counts["fail"], missing=counts["missing"], stale=counts["stale"],
                          warnings=counts["warn"], holdout_candidates=n_looks,
                          checks={c.name: int(c.status == "pass") for c in checks})
    look = ({"alpha": ev.look.alpha, "look": ev.look.index, "level": ev.look.level} if ev.look is not None else {})
    write_record(GATE, metrics, provenance(settings={"baseline": ev.versions.baseline, "candidate": ev.versions.candidate, **look},
                                           details={"statuses": {c.name: c.status for c in checks}}))
    SUMMARY_PAGE.write(summary_markdown(ev, checks, n_looks))
    GATE_REPORT.write(GateReport.model_validate({"checks": checks_dict(checks)}))


if __name__ == "__main__":
    run_stage("gate", main)
