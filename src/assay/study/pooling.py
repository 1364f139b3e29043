"""Pooled candidates with opaque ids (seed 003, step 3): never the top results of one mode alone.

For each query of a split, the pool is the union of the top ``k`` documents of every mode plus
``random`` documents that no mode retrieved at all (not anywhere in its run), drawn at random; when
fewer such documents exist, the rest are drawn from the documents outside the top-``k`` union and
the shortfall is counted. The candidates are then shuffled. Both the draw and the shuffle use
``random.Random(f"{seed}:{split}:{query_id}")``, so a query's pool does not depend on the other
queries, and re-running gives the same bytes.

A document's opaque id is ``doc-`` and the first 10 hex digits of ``HMAC-SHA256(salt, doc_id)``
(:func:`opaque_id`): the same document has the same id in every query of the study, so citations
compare across queries, and without the salt (kept in the evidence root, :data:`SALT`) nobody can
map an id back to the corpus. Two documents with the same opaque id are refused.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from assay.core.errors import AssayError
from assay.core.io import parse_json_line, read_text, write_json
from assay.relevance.measures import order
from assay.relevance.study import StudyDocument, StudyQuery
from assay.relevance.trec import Run
from assay.study.formats import PoolRow


class PoolError(AssayError):
    """Two documents got the same opaque id, or the salt file is unusable (exit 2)."""

    exit_code = 2


def opaque_id(salt: str, doc_id: str) -> str:
    """``doc-`` and 10 hex digits of HMAC-SHA256 keyed by ``salt``.

    >>> opaque_id("s", "f001-v1")
    'doc-e0a886b9cd'
    """
    return "doc-" + hmac.new(salt.encode("utf-8"), doc_id.encode("utf-8"), hashlib.sha256).hexdigest()[:10]


def load_salt(path: Path, create: bool = True) -> str:
    """The study's salt from ``path`` (JSON ``{"salt": ...}``), made with :mod:`secrets` when absent and ``create``.

    Raises:
        PoolError: the file exists but holds no usable salt, or is absent and ``create`` is false.
    """
    if not path.exists():
        if not create:
            raise PoolError(f"{path.name} is missing from the evidence root (fix: run `dvc repro study_pool`)")
        write_json(path, {"salt": secrets.token_hex(32)})
    data, _ = parse_json_line(read_text(path))
    salt = data.get("salt") if isinstance(data, dict) else None
    if not isinstance(salt, str) or len(salt) < 16:
        raise PoolError(f"{path.name} in the evidence root holds no salt of 16 or more characters "
                        "(fix: delete it before any packet is handed out, then re-run study_pool)")
    return salt


def ranked_ids(run: Run) -> dict[str, list[str]]:
    """Each query's document ids in trec_eval order (score descending, then docno descending)."""
    t = run.table.iloc[order(run.table)]
    out: dict[str, list[str]] = {}
    for qid, docno in zip(t["qid"], t["docno"], strict=True):
        out.setdefault(qid, []).append(docno)
    return out


@dataclass
class Pool:
    """The pool of one split: rows in (query, position) order and what filled it."""

    rows: list[PoolRow] = field(default_factory=list)
    from_modes: int = 0
    from_random: int = 0
    random_shortfall: int = 0
    queries: int = 0

    def summary(self) -> dict[str, int]:
        """Counts only (nothing per query): queries, candidates, pooled from modes, random, shortfall."""
        return {"queries": self.queries, "candidates": len(self.rows), "from_modes": self.from_modes,
                "from_random": self.from_random, "random_shortfall": self.random_shortfall}


def build_pool(split: str, documents: list[StudyDocument], queries: list[StudyQuery], runs: dict[str, Run],
               k: int, n_random: int, seed: int, salt: str) -> Pool:
    """The pool of one split (see the module docstring); ``runs`` maps each mode to its run on ``documents``.

    Raises:
        PoolError: two documents of ``documents`` share an opaque id.
    """
    ids: dict[str, str] = {}
    for d in documents:
        oid = opaque_id(salt, d.doc_id)
        if oid in ids:
            raise PoolError(f"documents {ids[oid]!r} and {d.doc_id!r} share an opaque id (fix: delete the salt file "
                            "before any packet is handed out, then re-run study_pool)")
        ids[oid] = d.doc_id
    opaque = {doc: oid for oid, doc in ids.items()}
    corpus = sorted(d.doc_id for d in documents)
    rankings = {mode: ranked_ids(run) for mode, run in sorted(runs.items())}
    pool = Pool()
    for q in sorted(queries, key=lambda q: q.query_id):
        top = {d for r in rankings.values() for d in r.get(q.query_id, [])[:k]}
        retrieved = {d for r in rankings.values() for d in r.get(q.query_id, [])}
        rng = random.Random(f"{seed}:{split}:{q.query_id}")
        never = [d for d in corpus if d not in retrieved]
        picks = rng.sample(never, min(n_random, len(never)))
        if len(picks) < n_random:
            rest = [d for d in corpus if d not in top and d not in picks]
            picks += rng.sample(rest, min(n_random - len(picks), len(rest)))
        candidates = sorted(top | set(picks))
        rng.shuffle(candidates)
        pool.rows += [PoolRow(query_id=q.query_id, document_id=opaque[d], doc_id=d, position=i)
                      for i, d in enumerate(candidates, start=1)]
        pool.queries += 1
        pool.from_modes += len(top)
        pool.from_random += len(picks)
        pool.random_shortfall += n_random - len(picks)
    return pool
