"""Where a study's raw evidence lives, and how to name it without revealing it.

The evidence root is the folder named by the environment variable :data:`ENV` (``ASSAY_EVIDENCE_ROOT``).
Its value is a secret of the same kind as an API key: it is never written to a file, log, report or
error. Code that shows a path under the root shows it through :meth:`EvidenceRoot.show`, which
writes ``$ASSAY_EVIDENCE_ROOT/...`` instead, and :func:`redact` scrubs the root from any message.

Layout under the root, one folder per split (:data:`SPLITS`); each file's name is a constant of this
module, and what a row holds is :mod:`assay.study.formats`::

    <root>/<split>/queries.jsonl        the split's queries (sealed_holdout: never in the repository)
    <root>/<split>/pool.jsonl           coordinator's key: opaque document_id -> real doc_id, per query
    <root>/<split>/packet_A.jsonl       blind packet for annotator A (identical bytes to packet_B)
    <root>/<split>/packet_B.jsonl
    <root>/<split>/judgments_A.jsonl    annotator A's judgments, one row per (query_id, document_id)
    <root>/<split>/judgments_B.jsonl
    <root>/<split>/receipt.json         agreement receipt, written before any discussion
    <root>/<split>/bundle.jsonl         disagreements only, blind to who said what
    <root>/<split>/decisions.jsonl      arbiter C's final value of each disputed field and a reason code per bundle row
    <root>/<split>/qrels_frozen.jsonl   A, B, C and final value of every judged field side by side
    <root>/<split>/qrels.trec           final grades in TREC qrels form
    <root>/<split>/manifest.json        SHA-256 of every file above, protocol version, runtime
    <root>/split.json                   the family split (the coordinator's)
    <root>/salt.json                    the key of the opaque document ids
    <root>/<split>/runs/<mode>.trec     each mode's run of the split's documents (and runs/<mode>.json)
    <root>/opening.json                 the recorded decision to open the sealed holdout
    <root>/access.log                   one appended line per read of sealed data

What people hand in (judgments, decisions, the opening) is locked by SHA-256 in the committed
``data/relevance/received.json`` (:mod:`assay.study.received`); what the stages write, by the
records under ``reports/relevance/study/`` (:mod:`assay.study.records`).

Edge cases: an unset or empty variable, or a root that is not a directory, is an
:class:`EvidenceRootError` (exit 2) whose message names the variable, never a value.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from assay.core.errors import AssayError

ENV = "ASSAY_EVIDENCE_ROOT"
SPLITS = ("development", "sealed_holdout")
SEALED = "sealed_holdout"


# Every file under the root, named once (the layout above); modules import the names from here.
#: A split's queries.
QUERIES = "queries.jsonl"
#: The family split (under the root itself): ``{"families": {family: side}, "synthetic"}``.
SPLIT_FILE = "split.json"
#: The coordinator's key of the pool: opaque document id -> corpus doc_id, per query.
POOL = "pool.jsonl"
#: The two annotators, each with a packet and a judgments file.
ANNOTATORS = ("A", "B")
#: The key of the opaque document ids (under the root itself).
SALT = "salt.json"
#: The agreement receipt of a split.
RECEIPT = "receipt.json"
#: The arbiter's bundle (disagreements only) and the arbiter's decisions.
BUNDLE = "bundle.jsonl"
DECISIONS = "decisions.jsonl"
#: Every person's value of every judged field side by side, and the final grades in TREC form.
FROZEN = "qrels_frozen.jsonl"
TREC = "qrels.trec"
#: The hashes of a split's files.
MANIFEST = "manifest.json"
#: The recorded decision to open the sealed holdout, and the log of reads after it (under the root itself).
OPENING = "opening.json"
ACCESS_LOG = "access.log"


def run_names(mode: str) -> tuple[str, str]:
    """The pooled run of one mode in a split folder: its TREC run and its side file (latency, heuristic,
    runtime manifest), as the retrieve stage writes them for the whole corpus.

    >>> run_names("hybrid")
    ('runs/hybrid.trec', 'runs/hybrid.json')
    """
    return f"runs/{mode}.trec", f"runs/{mode}.json"


def packet_name(annotator: str) -> str:
    """``packet_A.jsonl`` or ``packet_B.jsonl``."""
    return f"packet_{annotator}.jsonl"


def judgments_name(annotator: str) -> str:
    """``judgments_A.jsonl`` or ``judgments_B.jsonl``."""
    return f"judgments_{annotator}.jsonl"


class EvidenceRootError(AssayError):
    """The evidence root is not set or not a folder; the message names the variable, not its value."""

    exit_code = 2


class EvidenceRoot:
    """The evidence folder named by :data:`ENV`, with paths that print without revealing it."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EvidenceRoot:
        """The root named by ``ASSAY_EVIDENCE_ROOT``.

        Raises:
            EvidenceRootError: the variable is unset or empty, or does not name a directory.
        """
        value = (os.environ if environ is None else environ).get(ENV, "")
        if not value.strip():
            raise EvidenceRootError(f"{ENV} is not set: set it to the folder that holds the study's evidence "
                                    "(outside the repository); its value is never written anywhere")
        root = cls(value)
        if not root.path.is_dir():
            raise EvidenceRootError(f"{ENV} does not name a folder: create it or point the variable at the "
                                    "study's evidence folder")
        return root

    def split(self, name: str) -> Path:
        """The folder of one split (``development`` or ``sealed_holdout``)."""
        if name not in SPLITS:
            raise ValueError(f"unknown split {name!r}: use one of {', '.join(SPLITS)}")
        return self.path / name

    def file(self, split: str, name: str) -> Path:
        """A file of one split, e.g. ``file("development", "packet_A.jsonl")``."""
        return self.split(split) / name

    def show(self, path: str | os.PathLike) -> str:
        """``path`` as ``$ASSAY_EVIDENCE_ROOT/<relative>`` when under the root, else unchanged.

        >>> EvidenceRoot("/secret/vault").show("/secret/vault/development/packet_A.jsonl")
        '$ASSAY_EVIDENCE_ROOT/development/packet_A.jsonl'
        """
        p = Path(path)
        try:
            return f"${ENV}/{p.relative_to(self.path).as_posix()}"
        except ValueError:
            return str(p)

    def redact(self, text: str) -> str:
        """``text`` with every occurrence of the root's path replaced by ``$ASSAY_EVIDENCE_ROOT``.

        >>> EvidenceRoot("/secret/vault").redact("cannot read /secret/vault/x.jsonl")
        'cannot read $ASSAY_EVIDENCE_ROOT/x.jsonl'
        """
        for form in {str(self.path), str(self.path.resolve()), self.path.as_posix()}:
            if form and form != ".":
                text = text.replace(form, f"${ENV}")
        return text


@contextlib.contextmanager
def redacting(root: EvidenceRoot | None) -> Iterator[None]:
    """Re-raise any :class:`AssayError` raised inside with the root scrubbed from its message.

    An :class:`OSError` (permission denied, disk full) becomes an :class:`EvidenceRootError` with a
    scrubbed message, so no traceback prints the root.

    >>> try:
    ...     with redacting(EvidenceRoot("/secret/vault")):
    ...         raise AssayError("cannot read /secret/vault/salt.json")
    ... except AssayError as e:
    ...     print(e)
    cannot read $ASSAY_EVIDENCE_ROOT/salt.json
    """
    try:
        yield
    except AssayError as error:
        if root is not None:
            error.args = tuple(root.redact(a) if isinstance(a, str) else a for a in error.args)
        raise
    except OSError as error:  # a traceback would print the path; one clean, scrubbed line instead
        text = f"{type(error).__name__}: {error}"
        raise EvidenceRootError(root.redact(text) if root is not None else text) from None


def file_hashes(root: EvidenceRoot, names: list[str]) -> dict[str, str | None]:
    """``{relative name: SHA-256}`` of files under the root (``None`` for an absent one): what a hash file commits.

    Names are relative to the root (``development/packet_A.jsonl``), so no path above it is recorded.
    """
    from assay.core.io import sha256_file

    out: dict[str, str | None] = {}
    for name in sorted(names):
        f = root.path / name
        out[name] = sha256_file(f) if f.is_file() else None
    return out
