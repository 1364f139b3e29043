"""The runtime manifest that binds every mode to one corpus and one runtime.

A manifest holds the SHA-256 of the corpus file, the queries file and the ``relevance`` params
(canonical JSON), and the versions of Python and of the libraries the modes use. Modes are
compared only when their manifests are identical; :func:`check_same` refuses the others by name.
"""

from __future__ import annotations

import json
import platform
from importlib import metadata

from assay.core.errors import AssayError
from assay.core.io import sha256_bytes, sha256_file

LIBRARIES = ("assay", "bm25s", "networkx", "numpy", "pandas", "scikit-learn", "scipy")


class ManifestMismatch(AssayError):
    """Two modes ran on different corpora, queries, params or library versions; they cannot be compared."""

    exit_code = 2


def library_versions() -> dict[str, str]:
    """Installed versions of :data:`LIBRARIES` plus Python's (``"absent"`` when not installed).

    ``assay`` is the running package's own version (its distribution is ``assay-eval``).
    """
    from assay import __version__

    out = {"python": platform.python_version()}
    for name in LIBRARIES:
        if name == "assay":
            out[name] = __version__
            continue
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def build_manifest(corpus: str, queries: str, params: dict) -> dict:
    """``{"corpus_sha256", "queries_sha256", "params_sha256", "libraries"}`` for this runtime."""
    canonical = json.dumps(params, sort_keys=True, separators=(",", ":"), default=str).encode("utf-8")
    from assay.relevance.corpus import corpus_sha256

    return {"corpus_sha256": corpus_sha256(corpus), "queries_sha256": sha256_file(queries),
            "params_sha256": sha256_bytes(canonical), "libraries": library_versions()}


def _flat(manifest: dict, prefix: str = "") -> dict[str, str]:
    out = {}
    for key, value in manifest.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def check_same(manifests: dict[str, dict]) -> dict:
    """The manifest every mode shares; refuse the comparison when any differs.

    The reference is the manifest most modes share (ties: the first mode in name order).

    Raises:
        ManifestMismatch: naming each differing mode and the keys where it differs.
    """
    if not manifests:
        raise ManifestMismatch("manifest: no mode to compare")
    names = sorted(manifests)
    keyed = {name: json.dumps(manifests[name], sort_keys=True) for name in names}
    reference = max(names, key=lambda n: (sum(keyed[m] == keyed[n] for m in names), -names.index(n)))
    ref = _flat(manifests[reference])
    lines = []
    for name in names:
        flat = _flat(manifests[name])
        keys = sorted(k for k in set(ref) | set(flat) if ref.get(k) != flat.get(k))
        if keys:
            lines.append(f"mode {name!r} differs from {reference!r} in {', '.join(keys)}")
    if lines:
        raise ManifestMismatch("manifest: refusing to compare modes run on different inputs or runtimes: "
                               + "; ".join(lines) + " (fix: re-run every mode with `dvc repro`)")
    return manifests[reference]
