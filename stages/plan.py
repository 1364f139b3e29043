"""DVC stage `plan`: validate data/plan.yaml whole (against params ``parts``) and report what it leaves unguarded."""

from assay.artifacts.data import PlanMetrics
from assay.artifacts.provenance import provenance
from assay.artifacts.registry import PLAN, PLAN_PAGE, write_record
from assay.core.errors import PlanProblems
from assay.core.io import sha256_file
from assay.core.params import load_section
from assay.core.paths import input_paths
from assay.core.stage import run_stage
from assay.data.plan import PlanParams, load_plan, plan_markdown, plan_problems
from assay.pipeline.parts import project_parts


def main() -> None:
    params = load_section("plan", PlanParams)
    path = input_paths().plan
    plan = load_plan(path, project_parts())
    problems = plan_problems(plan)
    if params.strict and problems:
        raise PlanProblems(f"{path}: {len(problems)} problem(s) and plan.strict is true:\n- " + "\n- ".join(problems))
    metrics = PlanMetrics(problems=len(problems), failures=len(plan.failures), metrics=len(plan.metrics),
                          blocking=sum(m.gate == "block" for m in plan.metrics))
    write_record(PLAN, metrics, provenance(plan=sha256_file(path), details={"problems": problems}))
    PLAN_PAGE.write(plan_markdown(plan, problems))


if __name__ == "__main__":
    run_stage("plan", main)
