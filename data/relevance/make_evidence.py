"""Generate the SYNTHETIC evidence folder of the relevance study demo: no person judged anything here.

Run from the repository root: ``python data/relevance/make_evidence.py``. It writes into the
evidence root of ``data/relevance/study.yaml`` (``$ASSAY_EVIDENCE_ROOT`` when set, else the study's
``demo_evidence``, ``data/relevance/evidence.synthetic/``) and refuses a study that is not marked
``synthetic: true``, so it can never fill a real study's folder. Deterministic: re-running rewrites
the same bytes.

What it writes, per split (development, sealed_holdout):

* the coordinator's files, through the same library steps as the stages ``study_split`` and
  ``study_pool`` (queries, pool, both packets), after a fixed synthetic ``salt.json``;
* ``judgments_A.jsonl`` and ``judgments_B.jsonl``: for every packet pair, the grade of
  ``qrels.synthetic.trec`` (0 when unjudged); each annotator independently moves a grade one step
  on the scale -1 < 0 < 1 < 2 with probability :data:`NOISE` (seeded per split and annotator), so
  A and B disagree on roughly twice that share of pairs. The other fields follow the annotator's
  own grade: ``abstention_correct`` is true for an abstain query and for a candidate graded below
  2 (it is not enough to answer from), ``acceptable_citation_ids`` names the document when it is
  graded 2 on a query that has an answer, and ``temporal_classification`` is historical for a
  superseded document, unknown for a support note, current otherwise. Each annotator also flips
  ``abstention_correct`` and says ``unknown`` for the temporal class, each with probability
  :data:`FIELD_NOISE`, so every field has some disagreements of its own;
* ``decisions.jsonl``: a first version of arbiter C's decisions, one per pair where A and B differ
  on any field (compared as the library compares them): for each disputed field the noiseless
  value (the synthetic grade and the fields it implies), and one reason: ``temporal`` when the
  temporal class is disputed or a superseded document's grade is, ``partial`` when one disputed
  grade is 1, ``provenance`` when the citations are disputed, else ``scope``.

Then, once for the root: ``opening.json``, the coordinator's recorded decision to open the sealed
holdout (by ``CRD-01`` at the fixed time :data:`OPENED_AT`, pre-registering the thresholds file as
it is; an earlier opening record is replaced, and the opening's line is appended to ``access.log``),
and, in the repository, the received-evidence lock ``data/relevance/received.json`` of those files
(what ``assay study intake`` writes).

JSONL rows keep the exact formats (no extra key), so the SYNTHETIC label lives beside them: a
``README.md`` and ``synthetic.json`` (``{"synthetic": true, "files": {name: sha256}}``) list every
file the generator wrote.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path

NOISE = 0.06
FIELD_NOISE = 0.02
SEED = 2026
OPENED_AT = dt.datetime(2026, 12, 1, 3, 46, 38, tzinfo=dt.timezone.utc)
OPENING_REASON = "demo: the synthetic release candidate is frozen"
QRELS = "data/relevance/qrels.synthetic.trec"
GRADES = (-1, 0, 1, 2)
README = """# SYNTHETIC evidence of the relevance study demo

Everything in this folder was written by `data/relevance/make_evidence.py` and the study's stages.
No person judged anything: the judgments of "annotators" A and B are the synthetic qrels with
seeded noise, the arbiter's decisions follow a fixed rule, and the opening of the sealed holdout
was recorded by the generator at a fixed time.
Nothing measured on them is evidence of retrieval quality. `synthetic.json` lists every file the
generator wrote, with its SHA-256.
"""


def shifted(grade: int, rng: random.Random) -> int:
    """``grade`` moved one step up or down the scale -1 < 0 < 1 < 2 (inward at either end)."""
    i = GRADES.index(grade)
    step = rng.choice((-1, 1)) if 0 < i < len(GRADES) - 1 else (1 if i == 0 else -1)
    return GRADES[i + step]


def labels(grade: int, task: str, doc, document_id: str) -> dict:
    """The fields an annotator who gave ``grade`` writes beside it (see the module docstring)."""
    return {"relevance": grade, "abstention_correct": task == "abstain" or grade < 2,
            "acceptable_citation_ids": [document_id] if grade == 2 and task != "abstain" else [],
            "temporal_classification": "historical" if doc.superseded else "unknown" if doc.kind == "note" else "current"}


def judge(packet, pool, queries, documents, truth, rng: random.Random) -> list[dict]:
    """One annotator's synthetic judgments of every packet row, in packet order."""
    real = {(p.query_id, p.document_id): p.doc_id for p in pool}
    rows = []
    for r in packet:
        doc = documents[real[(r.query_id, r.document_id)]]
        grade = truth.get((r.query_id, doc.doc_id), 0)
        if rng.random() < NOISE:
            grade = shifted(grade, rng)
        row = {"query_id": r.query_id, "document_id": r.document_id,
               **labels(grade, queries[r.query_id].task, doc, r.document_id)}
        if rng.random() < FIELD_NOISE:
            row["abstention_correct"] = not row["abstention_correct"]
        if rng.random() < FIELD_NOISE:
            row["temporal_classification"] = "unknown"
        rows.append(row)
    return rows


def decisions(a: list[dict], b: list[dict], pool, queries, documents, truth) -> list[dict]:
    """The rule-based arbiter: one decision per pair where A and B differ on any field, deciding the disputed fields."""
    from assay.study.formats import JudgmentRow
    from assay.study.receipt import Paired

    real = {(p.query_id, p.document_id): p.doc_id for p in pool}
    paired = Paired([(x["query_id"], x["document_id"]) for x in a], [JudgmentRow(**x) for x in a],
                    [JudgmentRow(**y) for y in b])
    out = []
    for i, key in enumerate(paired.pairs):
        fields = paired.disputed(i)
        if not fields:
            continue
        doc = documents[real[key]]
        right = labels(truth.get((key[0], doc.doc_id), 0), queries[key[0]].task, doc, key[1])
        if "temporal_classification" in fields or (doc.superseded and "relevance" in fields):
            reason = "temporal"
        elif 1 in fields.get("relevance", ()):
            reason = "partial"
        elif "acceptable_citation_ids" in fields:
            reason = "provenance"
        else:
            reason = "scope"
        out.append({"query_id": key[0], "document_id": key[1], **{f: right[f] for f in fields}, "reason": reason})
    return out


def main() -> int:
    from assay.core.io import read_jsonl, sha256_bytes, sha256_file, write_json, write_jsonl, write_text
    from assay.core.params import load_section
    from assay.relevance.params import RelevanceParams
    from assay.relevance.corpus import load_documents, load_queries
    from assay.relevance.trec import read_qrels
    from assay.study.evidence import SPLITS
    from assay.study.evidence import POOL, QUERIES, SALT, judgments_name, packet_name
    from assay.study.formats import PacketRow, PoolRow
    from assay.study.pooling import pool_step
    from assay.study.split import split_step
    from assay.study.evidence import OPENING
    from assay.study.opening import open_holdout
    from assay.study.protocol import evidence_root, load_study
    from assay.study.received import LOCK, take_in

    study = load_study()
    if not study.synthetic:
        sys.exit("make_evidence: the study file is not synthetic: refusing to write made-up evidence into a real study")
    root = evidence_root(study)
    written: list[Path] = [root.path / SALT]
    write_json(written[0], {"salt": sha256_bytes(b"assay synthetic demo salt"), "synthetic": True})
    split_step(study, root)
    pool_step(study, root, load_section("relevance", RelevanceParams))
    documents = {d.doc_id: d for d in load_documents(str(study.resolve(study.corpus, root)))}
    t = read_qrels(QRELS).table
    truth = {(q, d): int(g) for q, d, g in zip(t["qid"], t["docno"], t["grade"])}
    for side in SPLITS:
        queries = {q.query_id: q for q in load_queries(str(root.file(side, QUERIES)))}
        pool = [PoolRow(**r) for _, r in read_jsonl(root.file(side, POOL))]
        packet = [PacketRow(**r) for _, r in read_jsonl(root.file(side, packet_name("A")))]
        by = {a: judge(packet, pool, queries, documents, truth, random.Random(f"{SEED}:{side}:{a}")) for a in "AB"}
        for a, rows in by.items():
            write_jsonl(root.file(side, judgments_name(a)), rows)
            written.append(root.file(side, judgments_name(a)))
        write_jsonl(root.file(side, "decisions.jsonl"), decisions(by["A"], by["B"], pool, queries, documents, truth))
        written.append(root.file(side, "decisions.jsonl"))
    (root.path / OPENING).unlink(missing_ok=True)
    open_holdout(root, study.roles.coordinator, OPENING_REASON, study.thresholds, now=OPENED_AT)
    written.append(root.path / OPENING)
    write_text(root.path / "README.md", README)
    files = {p.relative_to(root.path).as_posix(): sha256_file(p) for p in written}
    write_json(root.path / "synthetic.json", {"synthetic": True, "generator": "data/relevance/make_evidence.py",
                                              "files": files})
    take_in(study, root, LOCK)
    print(f"make_evidence: wrote {len(files) + 2} synthetic files into {root.show(root.path / 'README.md')}, "
          f"and {LOCK}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
