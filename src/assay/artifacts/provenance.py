"""The provenance file every stage writes beside its metrics: where its numbers came from.

``reports/provenance/<stage>.json`` holds the assay version, the SHA-256 of each input by name
(what :mod:`assay.release.input_hashes` recomputes to call a stage's outputs stale), the settings the
stage ran with (params, judge identity, prompt) and details that are not numbers (names, statuses,
reasons). Metrics files never carry these, so ``dvc metrics diff`` shows numbers only.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from assay.artifacts.base import Record


class Provenance(Record):
    """One stage's provenance. ``inputs`` maps input names to hex SHA-256 digests."""

    assay_version: str
    inputs: dict[str, str] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    details: dict[str, Any] = Field(default_factory=dict)

    def head(self) -> dict[str, Any]:
        """The assay version and the input hashes: what a report that carries its own provenance
        (:class:`assay.artifacts.reports.Provenanced`) holds; settings and details are left out.

        >>> provenance(corpus="cd" * 32, settings={"k": 1}).head() == {
        ...     "assay_version": provenance().assay_version, "inputs": {"corpus": "cd" * 32}}
        True
        """
        return {"assay_version": self.assay_version, "inputs": dict(self.inputs)}


def provenance(*, settings: dict | None = None, details: dict | None = None, **inputs: str) -> Provenance:
    """A :class:`Provenance` for the running assay version with the given input hashes.

    >>> provenance(plan="ab" * 32).inputs["plan"][:4]
    'abab'
    """
    import assay

    return Provenance(assay_version=assay.__version__, inputs=dict(inputs), settings=dict(settings or {}),
                      details=dict(details or {}))
