"""Generate the relevance demo: a de-identified NodiNet help-centre corpus, queries and SYNTHETIC qrels.

Run from the repository root: ``python data/relevance/make_demo.py``. Deterministic (no random
numbers: every choice comes from the family index), so re-running rewrites the same bytes.

Writes under ``data/relevance/``:

* ``corpus.jsonl``: 330 documents in 55 families (11 services x 5 attributes). A family holds three
  dated versions of one policy (the two older ones carry ``valid_to`` and ``superseded_by``), a
  paraphrase of the current version, the source notice that set the current value, and a support
  note that names another family's policy.
* ``queries.jsonl``: 86 queries over the study's five tasks: ``current`` (current operational
  fact), ``historical`` (the fact in force at a date), ``trace`` (the source of a claim),
  ``abstain`` (nothing in the corpus answers) and ``link`` (a link between notes).
* ``qrels.synthetic.trec``: SYNTHETIC judgments derived from the generator's own structure
  (2 directly supports, 1 useful context, 0 not supporting, -1 stale or misleading). They stand in
  until the human study (two annotators and an arbiter) freezes real qrels; nothing measured on
  them is evidence of retrieval quality.

Nothing here names a real person, customer, host or path.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

SERVICES = [  # (name, paraphrase of the name)
    ("home fibre installation", "setting up fibre broadband at home"),
    ("mobile roaming day pass", "using your phone abroad for a day"),
    ("eSIM activation", "turning on a digital SIM profile"),
    ("router replacement", "swapping a faulty modem box"),
    ("number porting", "keeping your phone number when switching"),
    ("late bill payment", "paying an invoice after the due date"),
    ("static IP address", "a fixed public internet address"),
    ("parental controls", "limiting what children can browse"),
    ("student discount", "the reduced price for learners"),
    ("outage credit", "money back after a service cut"),
    ("moving home transfer", "taking the connection to a new flat"),
]
ATTRIBUTES = [  # (name, paraphrase, unit, three values old -> current)
    ("fee", "charge", "BDT", (500, 650, 400)),
    ("processing time", "turnaround", "working days", (10, 7, 3)),
    ("monthly data cap", "allowance per month", "GB", (40, 60, 100)),
    ("maximum number of lines", "most connections allowed", "lines", (2, 3, 5)),
    ("cancellation notice period", "warning needed before ending", "days", (30, 21, 14)),
]
VERSION_STARTS = (dt.date(2023, 1, 1), dt.date(2024, 3, 1), dt.date(2025, 6, 1))
ABSENT = [  # services NodiNet does not offer: the abstain queries ask about them
    "satellite television", "pet insurance", "home security cameras", "smart watch repair",
    "cloud photo backup", "gaming console rental", "solar panel leasing", "car wifi hotspot",
    "landline intercom", "drone delivery", "fax forwarding", "hotel lounge access",
]
NOTICE = "TN"


def family_dates(i: int) -> tuple[dt.date, dt.date, dt.date]:
    """The three version start dates of family ``i``, shifted by a few days so families differ."""
    shift = dt.timedelta(days=(i * 7) % 28)
    return tuple(d + shift for d in VERSION_STARTS)


def month(d: dt.date) -> str:
    return d.strftime("%B %Y")


def build() -> tuple[list[dict], list[dict], list[tuple[str, str, int]]]:
    """Documents, queries and synthetic judgments ``(qid, docno, grade)``."""
    docs, queries, qrels = [], [], []
    families = [(s, a) for s in SERVICES for a in ATTRIBUTES]
    n = len(families)
    for i, ((service, service_alt), (attr, attr_alt, unit, values)) in enumerate(families):
        fam = f"f{i + 1:03d}"
        starts = family_dates(i)
        ids = [f"{fam}-v{v + 1}" for v in range(3)]
        source_id, para_id, note_id = f"{fam}-src", f"{fam}-para", f"{fam}-note"
        linked = (i * 17 + 5) % n
        if linked == i:
            linked = (i + 1) % n
        linked_current = f"f{linked + 1:03d}-v3"
        (l_service, _), (l_attr, *_rest) = families[linked]
        for v in range(3):
            end = starts[v + 1] if v < 2 else None
            text = (f"The {attr} for {service} is {values[v]} {unit}. This rule applies from {month(starts[v])}. "
                    f"Ask about {service} in the NodiNet app or at any NodiNet shop.")
            if end is not None:
                text += f" This version was replaced in {month(end)}; see the newer {service} {attr} policy."
            else:
                text += f" The value was set by notice {NOTICE}-{i + 1:03d}."
            docs.append({"doc_id": ids[v], "family": fam, "kind": "policy", "title": f"{service.capitalize()}: {attr}",
                         "text": text, "valid_from": starts[v].isoformat(),
                         "valid_to": end.isoformat() if end else None,
                         "superseded_by": ids[v + 1] if v < 2 else None,
                         "sources": [source_id] if v == 2 else [], "mentions": []})
        docs.append({"doc_id": para_id, "family": fam, "kind": "paraphrase",
                     "title": f"Help: {service_alt}",
                     "text": f"Question about {service_alt}? The {attr_alt} is now {values[2]} {unit}, "
                             f"since {month(starts[2])}.",
                     "valid_from": starts[2].isoformat(), "valid_to": None, "superseded_by": None,
                     "sources": [ids[2]], "mentions": []})
        docs.append({"doc_id": source_id, "family": fam, "kind": "source",
                     "title": f"Notice {NOTICE}-{i + 1:03d}",
                     "text": f"Notice {NOTICE}-{i + 1:03d}: the tariff committee decided that from {month(starts[2])} "
                             f"the {attr} of {service} becomes {values[2]} {unit}, replacing {values[1]} {unit}.",
                     "valid_from": starts[2].isoformat(), "valid_to": None, "superseded_by": None,
                     "sources": [], "mentions": []})
        docs.append({"doc_id": note_id, "family": fam, "kind": "note",
                     "title": f"Support note {i + 1:03d}",
                     "text": f"Support note: a customer asking about {service} {attr} often also needs "
                             f"{l_service} {l_attr}; agents check both before answering.",
                     "valid_from": starts[2].isoformat(), "valid_to": None, "superseded_by": None,
                     "sources": [], "mentions": [ids[2], linked_current]})

        tasks = [("current", "paraphrase"), ("historical", "v1"), ("trace", ""), ("link", ""), ("current", "")][i % 5:i % 5 + 1]
        if i % 3 == 0:  # a second query for every third family, cycling through the other tasks
            tasks.append([("historical", "v2"), ("trace", ""), ("link", "")][(i // 3) % 3])
        for task, variant in tasks:
            qn = len(queries) + 1
            if task == "current":
                words = (f"How big is the {attr_alt} for {service_alt} today?" if variant == "paraphrase"
                         else f"What is the {attr} for {service} now?")
                q = {"text": words, "as_of": None, "acceptable_citation_ids": [ids[2], para_id]}
                grades = {ids[2]: 2, para_id: 2, source_id: 1, ids[0]: -1, ids[1]: -1, note_id: 0}
            elif task == "historical":  # the fact in force 60 days after version 1 or 2 started
                v = 0 if variant == "v1" else 1
                at = starts[v] + dt.timedelta(days=60)
                q = {"text": f"What was the {attr} for {service} in {month(at)}?", "as_of": at.isoformat(),
                     "acceptable_citation_ids": [ids[v]]}
                grades = {ids[v]: 2, ids[1 - v]: -1, ids[2]: -1, para_id: -1, source_id: 0}
            elif task == "trace":
                q = {"text": f"Which notice set the {service} {attr} to {values[2]} {unit}?", "as_of": None,
                     "acceptable_citation_ids": [source_id]}
                grades = {source_id: 2, ids[2]: 1, para_id: 1, ids[1]: 0}
            else:  # link
                q = {"text": f"Which other topic do support notes connect with {service} {attr}?", "as_of": None,
                     "acceptable_citation_ids": [note_id]}
                grades = {note_id: 2, linked_current: 1, ids[2]: 0}
            queries.append({"query_id": f"q-{qn:03d}", "family": fam, "task": task, **q})
            qrels += [(f"q-{qn:03d}", d, g) for d, g in grades.items()]
    for j, absent in enumerate(ABSENT):  # abstain: the pool holds only near misses, judged 0
        qn = len(queries) + 1
        attr = ATTRIBUTES[j % len(ATTRIBUTES)][0]
        queries.append({"query_id": f"q-{qn:03d}", "family": None, "task": "abstain",
                        "text": f"What is the {attr} for {absent}?", "as_of": None, "acceptable_citation_ids": []})
        near = f"f{(j * 5 + j % 5) % n + 1:03d}-v3"
        qrels.append((f"q-{qn:03d}", near, 0))
    return docs, queries, qrels


def main() -> None:
    docs, queries, qrels = build()
    dump = lambda rows: "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in rows)  # noqa: E731
    (HERE / "corpus.jsonl").write_text(dump(docs), encoding="utf-8", newline="\n")
    (HERE / "queries.jsonl").write_text(dump(queries), encoding="utf-8", newline="\n")
    head = ("# SYNTHETIC qrels generated by data/relevance/make_demo.py from the corpus structure; not human judgments.\n"
            "# Grades: 2 directly supports, 1 useful context, 0 does not support, -1 stale or misleading.\n")
    body = "".join(f"{q} 0 {d} {g}\n" for q, d, g in sorted(qrels))
    (HERE / "qrels.synthetic.trec").write_text(head + body, encoding="utf-8", newline="\n")
    print(f"{len(docs)} documents, {len(queries)} queries, {len(qrels)} synthetic judgments")


if __name__ == "__main__":
    main()
