"""DVC stage `plan`: validate data/plan.yaml and report what it leaves unguarded."""

from assay.core.errors import PlanProblems
from assay.core.io import sha256_file, write_json, write_text
from assay.core.params import load_section
from assay.data.plan import PlanParams, load_plan, plan_markdown, plan_problems
from assay.core.provenance import provenance
from assay.core.stage import run_stage


def main() -> None:
    params = load_section("plan", PlanParams)
    plan = load_plan(params.path)
    problems = plan_problems(plan)
    if params.strict and problems:
        raise PlanProblems(f"{params.path}: {len(problems)} problem(s) and plan.strict is true:\n- " + "\n- ".join(problems))
    write_json("metrics/plan.json", {
        "problems": len(problems), "failures": len(plan.failures), "metrics": len(plan.metrics),
        "blocking": sum(m.gate == "block" for m in plan.metrics), **provenance(plan=sha256_file(params.path))})
    write_text("reports/plan.md", plan_markdown(plan, problems))


if __name__ == "__main__":
    run_stage("plan", main)
