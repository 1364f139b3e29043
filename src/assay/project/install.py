"""The requirement a new project pins assay with, and the constraints file that pins everything else.

``assay init`` reads how the running assay was installed (:func:`assay.core.install.installed_source`)
and writes the requirement that installs the same assay in CI and on a teammate's laptop:

==============  ==============================================================================
installed from  requirements.txt pins
==============  ==============================================================================
an index        ``assay-eval==X.Y.Z`` (a private index: add ``--extra-index-url``, see the README)
a git URL       ``assay-eval @ git+URL@COMMIT`` (the exact commit pip checked out, also for a tag)
a local wheel   ``assay-eval==X.Y.Z`` found through ``--find-links wheels``: the wheel is copied
                into the project's ``wheels/``, to be committed (CI installs from it)
a folder        ``assay-eval==X.Y.Z`` and a note: CI cannot reach that folder, so build a wheel
                into ``wheels/`` or publish to an index
==============  ==============================================================================

``constraints.txt`` pins every other distribution of the running environment with ``==`` (those
installed from a URL or a folder are listed as comments: an index cannot serve them), so CI's byte
comparison never meets a different library.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict

from assay import DISTRIBUTION
from assay.core.install import InstallSource, installed_source, parse_direct_url
from assay.core.pin import CONSTRAINTS_FILE, canonical, installed_versions

WHEELS = "wheels"


class InstallPin(BaseModel):
    """What ``init`` writes to pin assay, and what it must tell the user.

    Attributes:
        lines: requirements.txt's lines after its comment header (the option lines, then the assay line).
        wheel: a local file to copy into ``wheels/`` (the wheel or sdist assay was installed from), or ``None``.
        note: what CI will need that the project does not hold yet; empty when nothing is missing.
        source: how the running assay was installed.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    lines: tuple[str, ...]
    wheel: str | None = None
    note: str = ""
    source: InstallSource


def _without_password(url: str) -> str:
    """``url`` without a password (a user name such as ``git@`` stays): secrets are never written to a file.

    >>> _without_password("https://me:tok3n@host/r.git"), _without_password("ssh://git@host/r.git")
    ('https://host/r.git', 'ssh://git@host/r.git')
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit((parts.scheme, parts.hostname or "", parts.path, parts.query, parts.fragment))


def install_pin(source: InstallSource | None = None) -> InstallPin:
    """The pin for assay as ``source`` says it was installed (default: the running assay).

    >>> install_pin(parse_direct_url(None, "1.2.0")).lines
    ('-c constraints.txt', 'assay-eval==1.2.0')
    >>> install_pin(parse_direct_url('{"url": "https://h/a.git", "vcs_info": {"vcs": "git", "commit_id": "0a1b2c3d"}}',
    ...                               "1.2.0")).lines[-1]
    'assay-eval @ git+https://h/a.git@0a1b2c3d'
    """
    src = source or installed_source()
    constrained = f"-c {CONSTRAINTS_FILE}"
    exact = f"{DISTRIBUTION}=={src.version}"
    if src.kind == "index":
        return InstallPin(lines=(constrained, exact), source=src)
    if src.kind == "vcs" and src.url and src.commit:
        return InstallPin(lines=(constrained, f"{DISTRIBUTION} @ git+{_without_password(src.url)}@{src.commit}"), source=src)
    if src.kind == "archive" and src.path and Path(src.path).is_file():
        name = Path(src.path).name
        return InstallPin(lines=(f"--find-links {WHEELS}", constrained, exact), wheel=src.path, source=src,
                          note=f"assay was installed from the local file {name}: it is copied to {WHEELS}/{name}, "
                               f"where requirements.txt finds it; commit {WHEELS}/ so CI can install it (or publish "
                               "the wheel to an index and delete the --find-links line)")
    if src.kind == "archive" and src.url and not src.url.startswith("file:"):
        return InstallPin(lines=(constrained, f"{DISTRIBUTION} @ {_without_password(src.url)}"), source=src)
    where = src.path or src.url or "a source folder"
    return InstallPin(lines=(f"--find-links {WHEELS}", constrained, exact), source=src,
                      note=f"assay {src.version} was installed from {where}, which CI cannot reach: build its wheel "
                           f"into this project (`pip wheel --no-deps -w {WHEELS} {src.path or 'PATH'}`) and commit "
                           f"{WHEELS}/, or publish it to an index, or pin a git URL at a tag "
                           f"(`{DISTRIBUTION} @ git+https://HOST/REPO.git@vX.Y.Z`) in requirements.txt")


def constraints_text() -> str:
    """constraints.txt for the running environment: every distribution but assay, ``name==version``, sorted.

    A distribution installed from a URL or a local folder (PEP 610 ``direct_url.json``) is written as
    a comment: an index cannot serve it, and pip refuses a constraint it cannot meet.
    """
    from importlib.metadata import PackageNotFoundError, distribution

    lines = ["# Every package of the environment `assay init` ran in, at the version it had. requirements.txt",
             "# applies this file (-c), so CI installs exactly these; every stage depends on it. To move on:",
             f"# `pip install -U NAME`, then `pip freeze --exclude {DISTRIBUTION} > {CONSTRAINTS_FILE}` and `dvc repro`."]
    for name, version in sorted(installed_versions().items()):
        if name == canonical(DISTRIBUTION):
            continue
        try:
            direct = distribution(name).read_text("direct_url.json")
        except PackageNotFoundError:
            direct = None
        if direct:
            lines.append(f"# {name}=={version}: installed from {parse_direct_url(direct, version).kind}, not pinned here")
        else:
            lines.append(f"{name}=={version}")
    return "\n".join(lines) + "\n"


__all__ = ["WHEELS", "InstallPin", "constraints_text", "install_pin"]
