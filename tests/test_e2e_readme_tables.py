"""End-to-end: what DVC prints after the experiment in docs/rag-change.md is readable.

docs/rag-change.md ("Try a setting as an experiment") runs `dvc exp run -S ...`, then `dvc exp show --md`
on the headline columns and `dvc metrics show --md` of metrics/headline.json (`make exp`, `make metrics` here). This
runs the same experiment on a copy of the reproduced demo, runs the page's two commands (checking
that `make -n` gives the same ones), and measures every line. After the same params change, `dvc metrics diff`
must list numbers only (and `dvc exp diff` no "diff not supported" row for a hash or a name), and `dvc plots show`
must leave git clean (its `dvc_plots/` folder is ignored).
"""

import json
import numbers
import re
import subprocess

import pytest

from conftest import BIN, ROOT, run

pytestmark = pytest.mark.e2e
DVC = str(BIN / "dvc")
WIDTH = 80


def readme_commands() -> list[str]:
    """Every `$ command` line in the code blocks of docs/rag-change.md."""
    return re.findall(r"^\$ (.+)$", (ROOT / "docs/rag-change.md").read_text(encoding="utf-8"), flags=re.M)


def make_commands(root, target: str) -> list[str]:
    """The dvc commands `make <target>` runs, with this interpreter's bin folder."""
    dry = subprocess.run(["make", "-n", target, f"BIN={BIN}"], cwd=root, capture_output=True, text=True, check=True)
    return [line for line in dry.stdout.splitlines() if line.startswith(f"{BIN}/dvc ")]


def test_after_the_docs_experiment_tables_fit_metrics_diff_is_numeric_and_plots_leave_git_clean(repro_copy):
    commands = readme_commands()
    experiment = next(c for c in commands if c.startswith("dvc exp run -S "))
    shown_by = {target: next(c for c in commands if c.startswith(f"dvc {target} show ")) for target in ("exp", "metrics")}
    run([DVC, *experiment.split()[1:]], repro_copy)
    for target in ("exp", "metrics"):
        command = f"{BIN}/{shown_by[target]}"  # what a generated project types, as the page shows it
        assert make_commands(repro_copy, target) == [command]  # this repository's make target is the same command
        out = run(["bash", "-c", command], repro_copy).stdout
        lines = out.rstrip("\n").splitlines()
        assert len(lines) >= 3, out
        assert max(len(line) for line in lines) <= WIDTH, f"make {target}:\n{out}"
        if target == "exp":  # the experiment is a row of its own beside the workspace and the commit
            assert len([line for line in lines if line.startswith("| ")]) >= 4, out
            assert re.search(r"^\| \S.*\[[\w-]+\]", out, flags=re.M), out
        else:
            assert lines[2].startswith("| metrics/headline.json "), out

    rows = {(path, key): row for path, diff in json.loads(run([DVC, "metrics", "diff", "--json"], repro_copy).stdout).items()
            for key, row in diff.items()}
    assert ("metrics/headline.json", "after") in rows, sorted(rows)  # the experiment changed the headline
    for (path, key), row in rows.items():
        values = [v for v in (row["old"], row["new"]) if v is not None]  # None: the key is absent on that side
        assert values and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values), (path, key, row)
        assert len(values) < 2 or isinstance(row.get("diff"), numbers.Real), (path, key, row)
    shown = run([DVC, "exp", "diff"], repro_copy).stdout  # DVC's own words for a change between non-numbers
    assert "headline.json" in shown and "diff not supported" not in shown, shown

    before = run(["git", "status", "--porcelain"], repro_copy).stdout  # the experiment's changes
    run([DVC, "plots", "show"], repro_copy)
    assert (repro_copy / "dvc_plots" / "index.html").is_file()
    assert run(["git", "status", "--porcelain"], repro_copy).stdout == before
