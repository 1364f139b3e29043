"""End-to-end: the DVC tables the README tells users to print fit in 80 columns, after the README's experiment.

The README's "Comparing versions" section runs `dvc exp run -S ...`, then `make exp` (`dvc exp show --md`
on the headline columns) and `make metrics` (`dvc metrics show --md` of metrics/headline.json). This
runs the same experiment on a copy of the reproduced demo, asks make for the exact commands
(`make -n`), runs them, and measures every line.
"""

import re
import subprocess

import pytest

from conftest import BIN, ROOT, run

pytestmark = pytest.mark.e2e
DVC = str(BIN / "dvc")
WIDTH = 80


def readme_commands() -> list[str]:
    """Every `$ command` line in the README's code blocks."""
    return re.findall(r"^\$ (.+)$", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.M)


def make_commands(root, target: str) -> list[str]:
    """The dvc commands `make <target>` runs, with this interpreter's bin folder."""
    dry = subprocess.run(["make", "-n", target, f"BIN={BIN}"], cwd=root, capture_output=True, text=True, check=True)
    return [line for line in dry.stdout.splitlines() if line.startswith(f"{BIN}/dvc ")]


def test_the_readme_tables_fit_in_80_columns_after_its_experiment(repro_copy):
    commands = readme_commands()
    experiment = next(c for c in commands if c.startswith("dvc exp run -S "))
    assert {"make exp", "make metrics"} <= set(commands)
    run([DVC, *experiment.split()[1:]], repro_copy)
    for target in ("exp", "metrics"):
        (command,) = make_commands(repro_copy, target)
        out = run(["bash", "-c", command], repro_copy).stdout
        lines = out.rstrip("\n").splitlines()
        assert len(lines) >= 3, out
        assert max(len(line) for line in lines) <= WIDTH, f"make {target}:\n{out}"
        if target == "exp":  # the experiment is a row of its own beside the workspace and the commit
            assert len([line for line in lines if line.startswith("| ")]) >= 4, out
            assert re.search(r"^\| \S.*\[[\w-]+\]", out, flags=re.M), out
        else:
            assert lines[2].startswith("| metrics/headline.json "), out
