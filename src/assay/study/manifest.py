"""The study manifest of one split and its validation (``assay study validate``).

``<root>/<split>/manifest.json`` binds the exact bytes of the study by SHA-256::

    {"protocol_version", "split", "sealed", "synthetic", "status": "adjudicated",
     "corpus": {"path": <repository-relative path>, "sha256"},
     "files": {<name under the split folder>: sha256, ...},     # queries, pool, packets, judgments,
                                                               # receipt, bundle, decisions, qrels
     "thresholds_sha256", "thresholds": {<the seven keys>: value},
     "runtime": {library: version}, "steps": {<step>: "complete"}}

:func:`validate_manifest` re-hashes every file, checks the status, the seven thresholds' values and
hash against the registered thresholds file, and each step's
completeness: the two packets are identical bytes; the receipt names the judgment files as they
are; every disagreement has a decision with a reason; every judged field of every frozen row has a
final value that is the agreed value or the arbiter's. A sealed-holdout manifest is refused (exit 2) unless ``allow_sealed`` is
given and the holdout has been opened; an allowed read is appended to the access log.
"""

from __future__ import annotations

import json
from pathlib import Path

from assay.core.errors import AssayError, InputError, Problem
from assay.core.io import sha256_file
from assay.study.bundle import check_decisions
from assay.study.evidence import (BUNDLE, DECISIONS, FROZEN, MANIFEST, POOL, QUERIES, RECEIPT, SEALED, SPLITS, TREC,
                                  EvidenceRoot, judgments_name, packet_name)
from assay.study.formats import FIELDS, digest
from assay.study.opening import HoldoutRefused, record_access, require_open
from assay.study.received import per_split

FILES = (QUERIES, POOL, packet_name("A"), packet_name("B"), judgments_name("A"), judgments_name("B"),
         RECEIPT, BUNDLE, DECISIONS, FROZEN, TREC)
STEPS = ("packets", "judgments", "receipt", "adjudication", "qrels")
#: what a manifest binds, by where its SHA-256 is kept: the received-evidence lock's groups, and the
#: records of the stages that wrote the rest (manifests included); stages check these before reading
BOUND_RECEIVED = ("decisions", "judgments")
BOUND_WRITTEN = {"split": per_split(QUERIES), "pool": per_split(POOL, packet_name("A"), packet_name("B")),
                 "receipt": per_split(RECEIPT), "bundle": per_split(BUNDLE), "qrels": per_split(FROZEN, TREC, MANIFEST)}


class ManifestBroken(AssayError):
    """A manifest whose hashes do not match the files, or a file it names is missing: exit 2."""

    exit_code = 2


def build_manifest(root: EvidenceRoot, split: str, protocol_version: str, synthetic: bool, corpus: str,
                   thresholds: str) -> dict:
    """The manifest of ``split`` once every step's file exists (see the module docstring)."""
    from assay.relevance.manifest import library_versions
    from assay.relevance.thresholds import load_thresholds

    return {"protocol_version": protocol_version, "split": split, "sealed": split == SEALED, "synthetic": synthetic,
            "status": "adjudicated", "corpus": {"path": corpus, "sha256": sha256_file(corpus)},
            "files": {name: digest(root, root.file(split, name)) for name in FILES},
            "thresholds_sha256": sha256_file(thresholds),
            "thresholds": {k: t.value for k, t in load_thresholds(thresholds).items()},
            "runtime": library_versions(), "steps": dict.fromkeys(STEPS, "complete")}


def _read(path: Path, shown: str) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestBroken(f"{shown}: file not found") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ManifestBroken(f"{shown}: not JSON ({error})") from None
    if not isinstance(data, dict):
        raise ManifestBroken(f"{shown}: expected a JSON object")
    return data


def registered_thresholds(repo: str | Path = ".") -> Path:
    """The pre-registered thresholds file of the study in ``repo``: the study file's ``thresholds``
    (``data/relevance/study.yaml``), or :data:`~assay.relevance.thresholds.DEFAULT_PATH` without a study file.

    Raises:
        InputError: the study file does not validate.
    """
    from assay.relevance.thresholds import DEFAULT_PATH
    from assay.study.protocol import STUDY_FILE, load_study

    base = Path(repo)
    if not (base / STUDY_FILE).is_file():
        return base / DEFAULT_PATH
    named = Path(load_study(base / STUDY_FILE).thresholds)
    return named if named.is_absolute() else base / named


def threshold_problems(data: dict, thresholds: Path) -> list[str]:
    """What is wrong with a manifest's ``status``, ``thresholds_sha256`` and ``thresholds`` against
    the registered thresholds file; ``[]`` when they match.

    The status must be ``adjudicated`` (what :func:`build_manifest` writes once every step is done;
    ``draft`` or any other word is refused); the hash must be the file's SHA-256 (a zeroed or
    edited hash is refused); the values must be exactly the seven registered ones (compared as
    numbers: ``0.5`` and ``0.50`` agree, ``recall_at_10: 0.1`` against a registered 0.5 does not).

    Raises:
        InputError: the registered thresholds file is missing or invalid.
    """
    from assay.relevance.thresholds import FIGURES, load_thresholds

    wrong = []
    if data.get("status") != "adjudicated":
        wrong.append(f"status {data.get('status')!r} is not 'adjudicated' (the manifest of a split whose every step "
                     "is complete)")
    if data.get("thresholds_sha256") != sha256_file(thresholds):
        wrong.append(f"thresholds_sha256 {str(data.get('thresholds_sha256'))[:16]!r}... is not the SHA-256 of the "
                     f"registered thresholds file {thresholds.as_posix()}")
    given = data["thresholds"] if isinstance(data["thresholds"], dict) else {}
    if sorted(given) != sorted(FIGURES):
        wrong.append(f"thresholds: keys {sorted(given)} are not exactly {', '.join(FIGURES)}")
    registered = {k: t.value for k, t in load_thresholds(thresholds).items()}
    for key in (k for k in FIGURES if k in given):
        value = given[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or float(value) != registered[key]:
            wrong.append(f"thresholds.{key}: {value!r} is not the registered {registered[key]:g}")
    return wrong


def validate_manifest(path: str | Path, allow_sealed: bool = False, repo: str | Path = ".",
                      thresholds: str | Path | None = None) -> list[str]:
    """Check a split's manifest; return one line per verified item.

    The evidence root is the manifest's grandparent (``<root>/<split>/manifest.json``), so messages
    name files as ``$ASSAY_EVIDENCE_ROOT/...`` whatever the variable holds. ``thresholds`` is the
    pre-registered thresholds file (default :func:`registered_thresholds` of ``repo``): the
    manifest's status, thresholds hash and seven values are checked against it
    (:func:`threshold_problems`).

    Raises:
        HoldoutRefused: a sealed-holdout manifest without ``allow_sealed``, or before the opening.
        ManifestBroken: a hash differs, a named file is missing, a field is absent, the status is not
            ``adjudicated``, or the thresholds (values or hash) are not the registered ones.
        InputError: the registered thresholds file is missing or invalid, or a step is incomplete
            (each problem names file and line where there is one).
    """
    path = Path(path)
    root = EvidenceRoot(path.resolve().parent.parent)
    path = path.resolve()
    shown = root.show(path)
    data = _read(path, shown)
    split = data.get("split")
    if split not in SPLITS or path.parent.name != split:
        raise ManifestBroken(f"{shown}: split {split!r} is not the folder's ({path.parent.name}); "
                             f"a manifest lives in <root>/<split>/ with split one of {', '.join(SPLITS)}")
    if split == SEALED or data.get("sealed"):
        if not allow_sealed:
            raise HoldoutRefused(f"{shown} is the sealed holdout's manifest: checking it reads sealed data, which is "
                                 "an explicit decision; pass --allow-sealed (after `assay study open-holdout`)")
        require_open(root, "validate --allow-sealed")
        record_access(root, "validate --allow-sealed", f"{split}/{MANIFEST}")
    broken = [f for f in ("protocol_version", "corpus", "files", "thresholds", "runtime", "steps") if f not in data]
    if broken:
        raise ManifestBroken(f"{shown}: missing {', '.join(broken)}; rebuild it with `dvc repro`")
    lines, wrong = [], []
    files = dict(data["files"])
    for name in FILES:
        if name not in files:
            wrong.append(f"{name}: not in the manifest")
            continue
        target = root.file(split, name)
        if not target.is_file():
            wrong.append(f"{root.show(target)}: missing")
        elif sha256_file(target) != files[name]:
            wrong.append(f"{root.show(target)}: SHA-256 differs from the manifest")
        else:
            lines.append(f"sha256 ok  {root.show(target)}")
    corpus = Path(repo) / str(data["corpus"].get("path", ""))
    if not corpus.is_file() or sha256_file(corpus) != data["corpus"].get("sha256"):
        wrong.append(f"corpus {data['corpus'].get('path')}: missing or SHA-256 differs from the manifest")
    else:
        lines.append(f"sha256 ok  {data['corpus']['path']}")
    wrong += threshold_problems(data, Path(thresholds) if thresholds is not None else registered_thresholds(repo))
    if wrong:
        raise ManifestBroken(f"{shown}: " + "; ".join(wrong) + " (the evidence does not match its manifest: find what "
                             "changed; never edit evidence after submission)")
    lines += [f"step ok    {step}" for step in _steps(root, split, data)]
    return lines


def _steps(root: EvidenceRoot, split: str, data: dict) -> list[str]:
    """Check each step's completeness beyond the hashes; return the steps that hold."""
    files = data["files"]
    problems = []
    if files[packet_name("A")] != files[packet_name("B")]:
        problems.append(Problem(root.show(root.file(split, packet_name("B"))), None, None,
                                "packet B differs from packet A", "give both annotators identical packets"))
    receipt = json.loads(root.file(split, RECEIPT).read_text(encoding="utf-8"))
    for who in ("A", "B"):
        name = judgments_name(who)
        if receipt.get("inputs", {}).get(name) != files[name]:
            problems.append(Problem(root.show(root.file(split, RECEIPT)), None, "inputs",
                                    f"does not name {name} as the manifest does", "compute the receipt on these files"))
    try:
        check_decisions(root, split)
    except InputError as error:
        problems += error.problems
    frozen = [json.loads(line) for line in root.file(split, FROZEN).read_text(encoding="utf-8").splitlines() if line]
    for line, r in enumerate(frozen, start=1):
        for f in FIELDS:
            side = r.get(f) if isinstance(r.get(f), dict) else {}
            expected = side.get("a") if side.get("a") == side.get("b") else side.get("c")
            if side.get("final") is None or side.get("final") != expected:
                problems.append(Problem(root.show(root.file(split, FROZEN)), line, f"{f}.final",
                                        f"{side.get('final')!r} is neither the agreed value nor the arbiter's",
                                        "rebuild the frozen qrels from the judgments and decisions"))
    if len(frozen) != receipt.get("pairs"):
        problems.append(Problem(root.show(root.file(split, FROZEN)), None, None,
                                f"{len(frozen)} rows for {receipt.get('pairs')} judged pairs", "rebuild the frozen qrels"))
    if problems:
        raise InputError(problems)
    return list(STEPS)
