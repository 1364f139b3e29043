"""One judge prompt version as a value: its name, number, text, sha and sections.

It sits below both :mod:`assay.judge.base` (the :class:`~assay.judge.base.Judge` interface takes one)
and :mod:`assay.judge.prompts` (which reads, renders and parses with one), so neither imports the
other for it.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class PromptVersion(BaseModel):
    """One judge prompt version.

    Attributes:
        name: the file name's stem before ``_v`` (``pairwise``).
        version: the number after ``_v``.
        path: where it was read from (for messages only; not part of the identity).
        text: the full file text.
        sha: SHA-256 of the file bytes; ``short_sha`` is its first 10 characters.
        criteria: the numbered criteria of the system section, in order.
        system: the system message (the rubric).
        user: the user message template with ``{{question}}``, ``{{first}}``, ``{{second}}``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    version: int
    path: str
    text: str
    sha: str
    criteria: tuple[str, ...]
    system: str
    user: str

    @property
    def short_sha(self) -> str:
        """The first 10 hex digits of ``sha``."""
        return self.sha[:10]

    @property
    def label(self) -> str:
        """``pairwise v2`` style name for messages."""
        return f"{self.name} v{self.version}"
