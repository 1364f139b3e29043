"""How the running assay was installed, as the installed distribution's metadata records it.

pip writes PEP 610's ``direct_url.json`` into a distribution's ``.dist-info`` when it installs from
anything but an index: a VCS URL (with the commit it checked out), a local archive (a wheel or an
sdist) or a local folder (editable or not). Without that file the distribution came from an index.
:func:`installed_source` reads it; ``assay init`` writes the matching requirement, and the pin check
compares a VCS pin's commit with the installed one.
"""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, distribution
from typing import Literal
from urllib.parse import unquote, urlparse

from pydantic import BaseModel, ConfigDict

from assay import DISTRIBUTION, __version__

SourceKind = Literal["index", "vcs", "archive", "directory", "editable"]


class InstallSource(BaseModel):
    """Where the installed assay came from.

    Attributes:
        kind: ``index`` (no direct URL recorded), ``vcs``, ``archive`` (a local or remote wheel/sdist),
            ``directory`` (a local folder, copied) or ``editable`` (``pip install -e``).
        version: the installed version.
        url: the direct URL pip recorded (``None`` for an index install).
        commit: the VCS commit (``vcs`` only).
        requested_revision: the branch or tag the user asked for (``vcs`` only, when given).
        path: the local file or folder behind a ``file://`` URL (``archive``/``directory``/``editable``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: SourceKind
    version: str
    url: str | None = None
    commit: str | None = None
    requested_revision: str | None = None
    path: str | None = None


def parse_direct_url(text: str | None, version: str) -> InstallSource:
    """The :class:`InstallSource` a ``direct_url.json`` text gives; ``None`` or empty text means an index.

    An unreadable or unrecognised file reads as an index install (nothing better is known).

    >>> parse_direct_url(None, "1.0").kind
    'index'
    >>> s = parse_direct_url('{"url": "https://h/r.git", "vcs_info": {"vcs": "git", "commit_id": "abc", '
    ...                      '"requested_revision": "v1.0"}}', "1.0")
    >>> s.kind, s.commit, s.requested_revision
    ('vcs', 'abc', 'v1.0')
    >>> parse_direct_url('{"url": "file:///w/a%20b/x.whl", "archive_info": {}}', "1.0").path
    '/w/a b/x.whl'
    >>> parse_direct_url('{"url": "file:///src", "dir_info": {"editable": true}}', "1.0").kind
    'editable'
    """
    try:
        data = json.loads(text) if text else None
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("url"), str):
        return InstallSource(kind="index", version=version)
    url: str = data["url"]
    parsed = urlparse(url)
    path = unquote(parsed.path) if parsed.scheme == "file" else None
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict):
        return InstallSource(kind="vcs", version=version, url=url, commit=str(vcs.get("commit_id") or "") or None,
                             requested_revision=vcs.get("requested_revision") or None)
    folder = data.get("dir_info")
    if isinstance(folder, dict):
        return InstallSource(kind="editable" if folder.get("editable") else "directory", version=version, url=url, path=path)
    return InstallSource(kind="archive", version=version, url=url, path=path)


def installed_source() -> InstallSource:
    """How the running assay was installed (a source tree never installed reads as ``directory``, no URL)."""
    try:
        dist = distribution(DISTRIBUTION)
    except PackageNotFoundError:
        return InstallSource(kind="directory", version=__version__)
    return parse_direct_url(dist.read_text("direct_url.json"), dist.version)


__all__ = ["InstallSource", "installed_source", "parse_direct_url"]
