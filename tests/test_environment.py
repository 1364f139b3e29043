"""The environment `make` builds is the one constraints.txt pins, so committed bytes do not drift.

Parquet footers and dvc.lock carry library versions: a fresh clone reproduces the committed files only
with the pinned versions. `make setup` installs with `-c constraints.txt`; a dependency added to
pyproject.toml without `make lock` would install unpinned, and this test names it.
"""

import importlib.metadata
import re
import tomllib

from conftest import ROOT

# what `pip freeze` leaves out of the lock it writes (the installer itself, and the package under test)
UNPINNED = {"pip", "setuptools", "wheel", "distribute", "assay", "assay-eval"}


def canonical(name: str) -> str:
    """A distribution name as PEP 503 compares them: ``Typing_Extensions`` and ``typing-extensions`` are one."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins() -> dict[str, str]:
    """constraints.txt as {name: version}; every line that is not a comment must be ``name==version``."""
    found = {}
    for number, line in enumerate((ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line)
            assert match, f"constraints.txt:{number}: {line!r} is not name==version; refresh with `make lock`"
            found[canonical(match[1])] = match[2]
    return found


def test_every_installed_distribution_is_pinned_at_its_installed_version():
    pinned = pins()
    installed = {canonical(d.metadata["Name"]): d.version for d in importlib.metadata.distributions()}
    unpinned = sorted(set(installed) - set(pinned) - UNPINNED)
    assert not unpinned, f"installed but not in constraints.txt: {unpinned}; run `make lock` and commit it"
    moved = {name: (installed[name], pinned[name]) for name in set(installed) & set(pinned) if installed[name] != pinned[name]}
    assert not moved, f"installed version differs from constraints.txt (installed, pinned): {moved}; run `make setup`"
    assert "pyarrow" in pinned and "dvc" in pinned  # the two whose versions reach committed bytes


def test_every_declared_dependency_is_pinned():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = list(project["dependencies"]) + [d for extra in project.get("optional-dependencies", {}).values() for d in extra]
    names = {canonical(re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", d)[0]) for d in declared}
    assert names and not names - set(pins()), f"declared in pyproject.toml, not pinned: {sorted(names - set(pins()))}"
