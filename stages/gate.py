"""DVC stage `gate`: decide whether the candidate may ship; write metrics/gate.json and reports/summary.md.

The stage succeeds whatever the verdict, so `dvc repro` completes and the summary shows it;
`assay gate` is the command that fails CI.
"""

from assay.release.checks import checks_dict, exit_code
from assay.core.io import write_json, write_text
from assay.core.provenance import provenance
from assay.release.summary import summary_markdown
from assay.core.stage import run_stage
from assay.release.gather import gather


def main() -> None:
    checks, metrics, versions = gather(".")
    counts = {s: sum(c.status == s for c in checks) for s in ("pass", "fail", "missing", "stale")}
    write_json("metrics/gate.json", {
        "passed": int(exit_code(checks) == 0), "failed": counts["fail"], "missing": counts["missing"],
        "stale": counts["stale"], "checks": {c.name: c.status for c in checks},
        "baseline": versions.baseline, "candidate": versions.candidate, **provenance()})
    write_text("reports/summary.md", summary_markdown(metrics, checks, versions.baseline, versions.candidate))
    write_json("reports/gate.json", {"checks": checks_dict(checks)})


if __name__ == "__main__":
    run_stage("gate", main)
