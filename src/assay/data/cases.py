"""Versioned evaluation cases: the record, loading with clear errors, coverage and a content hash.

A case (one line of ``data/cases.jsonl``)::

    {"id": "g01", "question": "...", "task": "lookup", "set": "golden", "lang": "en",
     "expect": "answer", "doc_ids": ["kb-returns"], "facts": ["30 days"], "why": "...", "group": "returns"}

Rules: an answer case has doc_ids and facts, an abstain case has neither; task ``unanswerable``
goes with expect ``abstain``; ids are unique; every doc_id names a corpus document.

A tool case also carries ``expected_tools`` (``[]``: call no tool), optionally ``forbidden_tools``
and the user's ``permissions``; they are checked against the tool catalogue (:mod:`assay.data.tools`).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ConfigDict, Field, model_validator

from assay.core.fmt import md_words
from assay.core.errors import Problem, raise_problems
from assay.core.io import scan_jsonl
from assay.core.records import NonBlank, check_rows
from assay.core.records import InputModel
from assay.data.langtag import LangTag
from assay.data.tools import CATALOGUE_PATH, ExpectedCall, ToolCatalogue, tool_problems

if TYPE_CHECKING:
    import pyarrow as pa

    from assay.artifacts.data import DatasetMetrics

TASKS = ("lookup", "exact_term", "paraphrase", "multi_fact", "unanswerable")
SETS = ("golden", "adversarial", "production_like")


class CaseRecord(InputModel):
    """One evaluation case. ``group`` (optional) keeps variants of one question on one side of the split."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: NonBlank
    question: NonBlank
    task: Literal["lookup", "exact_term", "paraphrase", "multi_fact", "unanswerable"]
    set: Literal["golden", "adversarial", "production_like"]
    lang: LangTag
    expect: Literal["answer", "abstain"]
    doc_ids: list[NonBlank] = []
    facts: list[NonBlank] = []
    why: str = Field(min_length=10)
    group: str | None = None
    expected_tools: list[ExpectedCall] | None = None
    forbidden_tools: list[NonBlank] = []
    permissions: list[NonBlank] = []

    @property
    def tool_case(self) -> bool:
        """Whether the case states tool behaviour (``expected_tools`` given, possibly empty)."""
        return self.expected_tools is not None

    @model_validator(mode="after")
    def _consistent(self) -> CaseRecord:
        if (self.forbidden_tools or self.permissions) and self.expected_tools is None:
            raise ValueError("forbidden_tools and permissions go with expected_tools (write [] for \"call no tool\")")
        both = sorted({c.name for c in self.expected_tools or ()} & set(self.forbidden_tools))
        if both:
            raise ValueError(f"tool(s) {', '.join(both)} are both expected and forbidden: no reply can pass; "
                             "keep each tool in one of expected_tools and forbidden_tools")
        if (self.expect == "answer") != bool(self.doc_ids and self.facts):
            raise ValueError("an answer case needs doc_ids and facts; an abstain case has neither")
        if (self.task == "unanswerable") != (self.expect == "abstain"):
            raise ValueError("task unanswerable and expect abstain go together")
        return self


def parse_cases(path: str | Path, rows: Iterable[tuple[int, dict]], doc_ids: Iterable[str] | None = None,
                problems: Iterable[Problem] = (), tools: ToolCatalogue | None = None,
                tools_path: str = CATALOGUE_PATH, check_tools: bool = False) -> list[CaseRecord]:
    """Validate ``(line, dict)`` rows into cases; with ``doc_ids`` also check every doc_id exists.

    With ``tools`` (the catalogue) or ``check_tools``, the tool fields of the rows that parsed are
    checked (:func:`assay.data.tools.tool_problems`; with ``check_tools`` and no catalogue, a case
    with tool fields is a problem). Without either, tool fields are only checked for their shape:
    readers that do not use them (the queue, input hashes) need no catalogue.

    Every check runs on every row, and all problems are reported at once: ``problems`` (for
    example the unreadable lines found by :func:`assay.core.io.scan_jsonl`), schema errors,
    duplicate ids and unknown doc_ids (the last two on every row that parsed as JSON, even one
    with a schema error).

    Raises:
        InputError: one Problem per bad row (wrong type, unknown field, blank text, inconsistent
            row, duplicate id, unknown doc_id), each naming file, line, field and fix, sorted by
            line; or a whole-file Problem when there are no rows at all.
    """
    rows = list(rows)
    good, found = check_rows(str(path), rows, CaseRecord)
    problems = [*problems, *found, *(tool_problems(str(path), good, tools, tools_path) if tools is not None or check_tools else [])]
    if doc_ids is not None:
        known = set(doc_ids)
        problems += [Problem(str(path), line, "doc_ids", f"{d!r} is not a document in the corpus",
                             "name a file in data/corpus/ without .md")
                     for line, raw in rows if isinstance(raw.get("doc_ids"), list)
                     for d in raw["doc_ids"] if isinstance(d, str) and d.strip() and d not in known]
    if not rows and not problems:
        problems.append(Problem(str(path), None, None, "holds no cases",
                                "add at least one case, one JSON object per line"))
    raise_problems(problems)
    return [c for _, c in good]


def load_cases(path: str | Path, doc_ids: Iterable[str] | None = None,
               tools: ToolCatalogue | None = None, tools_path: str = CATALOGUE_PATH,
               check_tools: bool = False) -> list[CaseRecord]:
    """Read and validate a cases JSONL file (see :func:`parse_cases`); every bad line is reported in one run."""
    rows, problems = scan_jsonl(path)
    return parse_cases(path, rows, doc_ids, problems, tools, tools_path, check_tools)


TOOL_FIELDS = ("expected_tools", "forbidden_tools", "permissions")


def _dump(case: CaseRecord) -> tuple[dict[str, Any], dict[str, Any]]:
    """The case's fields but the tool fields, and the tool fields it sets (defaults left out at any
    depth; ``{}`` for a case without tool behaviour): what :func:`case_digest` hashes and
    :func:`cases_table` stores, so a case read back from the table hashes the same."""
    return (case.model_dump(exclude=set(TOOL_FIELDS)),
            case.model_dump(include=set(TOOL_FIELDS), exclude_defaults=True))


def case_digest(case: CaseRecord) -> bytes:
    """SHA-256 of one case's canonical JSON (sorted keys, every field including defaults).

    The tool fields are written without their defaults (at any depth: an expectation's unused
    ``one_of``/``pattern`` is left out, as is ``forbidden_tools: []``), so a case without tool
    behaviour hashes as it did before tool fields existed (recorded dataset hashes stay valid), and a
    tool case hashes as its JSON line is written when it spells no default out.
    """
    plain, tools = _dump(case)
    row = plain | tools
    text = json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).digest()


def dataset_hash(cases: Iterable[CaseRecord]) -> str:
    """Order-independent content hash of a case set (hex SHA-256).

    Hashes the sorted per-case digests, so reordering lines keeps the hash and any edit to any
    field of any case, an added case or a removed case changes it. The empty set has a hash too.

    >>> a = CaseRecord(id="x1", question="q?", task="unanswerable", set="golden", lang="en", expect="abstain", why="not covered")
    >>> b = a.model_copy(update={"id": "x2"})
    >>> dataset_hash([a, b]) == dataset_hash([b, a])
    True
    """
    h = hashlib.sha256()
    for digest in sorted(case_digest(c) for c in cases):
        h.update(digest)
    return h.hexdigest()


def coverage(cases: Iterable[CaseRecord], min_cases: int = 2) -> dict:
    """Task x set matrix of case counts, the cells below ``min_cases`` and the empty cells.

    Returns ``{"matrix": {task: {set: n}}, "gaps": [(task, set, n)], "empty": [(task, set)],
    "by_lang": {lang: n}, "tools": {"set": {set: n}, "lang": {lang: n}}}``; gaps include empty
    cells; ``tools`` counts the tool cases (see :attr:`CaseRecord.tool_case`). Every task and set
    appears, even at zero; the languages are those of the cases (any BCP 47 tag), most cases first,
    ties by tag, and ``tools["lang"]`` lists each of them, even at zero.

    >>> a = CaseRecord(id="x1", question="¿Qué?", task="unanswerable", set="golden", lang="es", expect="abstain", why="not covered")
    >>> coverage([a, a.model_copy(update={"id": "x2"}), a.model_copy(update={"id": "x3", "lang": "de"})])["by_lang"]
    {'es': 2, 'de': 1}
    """
    cases = list(cases)
    counts = Counter(c.lang for c in cases)
    langs = sorted(counts, key=lambda lang: (-counts[lang], lang))
    matrix = {t: {s: 0 for s in SETS} for t in TASKS}
    by_lang = {lang: counts[lang] for lang in langs}
    tools = {"set": {s: 0 for s in SETS}, "lang": {lang: 0 for lang in langs}}
    for c in cases:
        matrix[c.task][c.set] += 1
        if c.tool_case:
            tools["set"][c.set] += 1
            tools["lang"][c.lang] += 1
    gaps = [(t, s, matrix[t][s]) for t in TASKS for s in SETS if matrix[t][s] < min_cases]
    return {"matrix": matrix, "gaps": gaps, "empty": [(t, s) for t, s, n in gaps if n == 0], "by_lang": by_lang,
            "tools": tools}


def dataset_metrics(cases: list[CaseRecord], documents: int) -> tuple[DatasetMetrics, dict[str, Any], str]:
    """``(DatasetMetrics, coverage, dataset_hash)`` for the validate stage (see :func:`coverage`)."""
    from assay.artifacts.data import DatasetMetrics

    cov = coverage(cases)
    metrics = DatasetMetrics(cases=len(cases), documents=documents, gaps=len(cov["gaps"]), empty_cells=len(cov["empty"]),
                             by_lang=cov["by_lang"], by_set={s: sum(row[s] for row in cov["matrix"].values()) for s in SETS},
                             by_task={t: sum(row.values()) for t, row in cov["matrix"].items()},
                             tool_cases=sum(cov["tools"]["set"].values()))
    return metrics, cov, dataset_hash(cases)


CASE_COLUMNS = ("id", "question", "task", "set", "lang", "expect", "doc_ids", "facts", "why", "group", "tools")


def cases_table(cases: Iterable[CaseRecord]) -> pa.Table:
    """The cases as a pyarrow Table (one row per case, sorted by id, columns in ``CASE_COLUMNS``).

    Column ``tools`` holds the tool fields (:data:`TOOL_FIELDS`) as JSON text, null for a case
    without them, so :func:`read_cases_table` gives back cases with the same :func:`dataset_hash`.
    """
    import pyarrow as pa

    def row(case: CaseRecord) -> dict:
        out, tools = _dump(case)
        out["tools"] = json.dumps(tools, sort_keys=True, ensure_ascii=False) if tools else None
        return out

    rows = sorted((row(c) for c in cases), key=lambda r: r["id"])
    schema = pa.schema([(k, pa.list_(pa.string()) if k in ("doc_ids", "facts") else pa.string()) for k in CASE_COLUMNS])
    return pa.Table.from_pylist(rows, schema=schema)


def read_cases_table(path: str | Path) -> list[CaseRecord]:
    """Cases back from a Parquet file written with :func:`cases_table` (already validated, so no re-check)."""
    import pyarrow.parquet as pq

    # ParquetFile.read, not pq.read_table: the dataset reader behind read_table imports pandas
    cases = []
    for row in pq.ParquetFile(path).read().to_pylist():
        tools = row.pop("tools", None)
        # a tool case is validated again to rebuild its nested models; the rest are taken as they are
        cases.append(CaseRecord.model_construct(**row) if tools is None
                     else CaseRecord.model_validate({k: v for k, v in row.items() if v is not None} | json.loads(tools)))
    return cases


def coverage_markdown(cov: dict, dataset_hash_hex: str, n: int) -> str:
    """The task x set coverage matrix as Markdown, with gaps and empty cells spelled out."""
    lines = [f"# Coverage of {n} cases (dataset {dataset_hash_hex[:12]})", "",
             "| task | " + " | ".join(SETS) + " | total |", "|---|" + "---:|" * (len(SETS) + 1)]
    for task, row in cov["matrix"].items():
        lines.append(f"| {task} | " + " | ".join(str(row[s]) for s in SETS) + f" | {sum(row.values())} |")
    totals = [sum(cov["matrix"][t][s] for t in TASKS) for s in SETS]
    lines.append("| total | " + " | ".join(map(str, totals)) + f" | {n} |")
    lines += ["", "Languages: " + ", ".join(f"{md_words(k)} {v}" for k, v in cov["by_lang"].items()), ""]
    tools = cov.get("tools")
    if tools and sum(tools["set"].values()):
        lines += [f"Tool cases ({sum(tools['set'].values())}): "
                  + ", ".join(f"{md_words(k)} {v}" for k, v in (*tools["set"].items(), *tools["lang"].items()))
                  + ("" if all(tools["set"].values()) and all(tools["lang"].values())
                     else " (a set or language without a tool case leaves tool use unmeasured there)"), ""]
    if cov["gaps"]:
        lines.append(f"{len(cov['gaps'])} cell(s) hold fewer than two cases:")
        lines += [f"- {t} x {s}: {k}" + (" (empty)" if k == 0 else "") for t, s, k in cov["gaps"]]
    else:
        lines.append("Every cell holds at least two cases.")
    lines += ["", "A thin cell is not always wrong, but keep it on purpose: fill it before reading its pass rate."]
    return "\n".join(lines) + "\n"
