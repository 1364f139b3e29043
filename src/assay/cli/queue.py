"""`assay queue`: blind review queues (create, reviewers, the web app, rubric, status, export).

Every subcommand takes ``--db URL`` (default: ``$ASSAY_QUEUE_DB`` or ``.assay/queue.sqlite``).
``add-reviewer`` and ``coordinator-token`` print the token alone on stdout, so scripts can capture it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def _db(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", default=None, metavar="URL",
                   help="database: a SQLite path or URL, or postgresql://user@host:port/name "
                        "(default: $ASSAY_QUEUE_DB or .assay/queue.sqlite)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("queue", help="blind review queues: check the judge against people in a browser",
                       description="Create review queues from a pipeline output or a JSONL file, issue tokens, serve "
                                   "the review web app and export reviews as byte-stable snapshots for the pipeline.")
    qs = p.add_subparsers(dest="queue_command", required=True, metavar="SUBCOMMAND")

    c = qs.add_parser("create", help="create a queue: copy items from SOURCE (calibration, compare or a JSONL file)",
                      description="Copy items into a new queue. --fill random is a seeded uniform sample (the only "
                                  "fill that estimates overall agreement); --fill hard takes disagreements, order "
                                  "flips, small margins and version flips and is flagged as biased.")
    c.add_argument("name", metavar="NAME", help=POSITIONAL_HELP["name"])
    c.add_argument("--from", dest="source", required=True, metavar="SOURCE",
                   help="calibration, compare, or a JSONL file of judged pairs or conversations")
    c.add_argument("--fill", choices=("random", "hard"), required=True, help="random sample or hard cases")
    c.add_argument("--n", type=int, required=True, help="number of items (all eligible ones when fewer)")
    c.add_argument("--seed", type=int, required=True, help="seed of the sample and of the blind A/B order")
    c.add_argument("--rubric", default="data/rubric.yaml", metavar="FILE", help="rubric YAML (default: data/rubric.yaml)")
    c.add_argument("--reviewers-per-item", type=int, default=1, metavar="K",
                   help="independent reviews wanted per item, each reviewer blind to the others (default 1)")
    c.add_argument("--small-margin", type=float, default=0.1, metavar="X",
                   help="hard fill: a judge margin below X counts as small (default 0.1)")
    _db(c)
    c.set_defaults(func=run_create)

    _sub(qs, "add-reviewer", run_add_reviewer, "add a reviewer (a pseudonym) to a queue; prints the token alone",
         "Issue a token for PSEUDONYM on queue NAME and print it alone on stdout. Use a pseudonym, no personal "
         "data. Issuing again replaces the old token.", "name", "pseudonym")
    _sub(qs, "coordinator-token", run_coordinator_token, "issue the coordinator's token; prints it alone",
         "Issue a new coordinator token (results and export) and print it alone on stdout; the previous "
         "coordinator token stops working.")
    s = _sub(qs, "serve", run_serve, "serve the review web app and its JSON API",
             "Serve the review page and the JSON API with uvicorn.")
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    s.add_argument("--lease-seconds", type=float, default=600.0,
                   help="how long a taken item stays with its reviewer (default 600)")
    e = _sub(qs, "export", run_export, "write the byte-stable review snapshot data/reviews/NAME.jsonl",
             "Write every saved review of queue NAME to a byte-stable JSONL snapshot that the pipeline's review "
             "and training stages read; commit it.", "name")
    e.add_argument("--out", default=None, metavar="PATH", help="output path (default: data/reviews/NAME.jsonl)")
    e.add_argument("--synthetic", action="store_true",
                   help="label the snapshot as synthetic (reviews written by a script, for demos)")
    e.add_argument("--key-file", default=None, metavar="FILE",
                   help="the queue server's private signing key, kept outside the repository (default: the "
                        "environment variable ASSAY_QUEUE_SIGNING_KEY); the snapshot is signed with it")
    k = qs.add_parser("keygen", help="make the queue server's Ed25519 signing key pair",
                      description="Write a new private signing key to FILE (outside the project; mode 0600) and the "
                                  "public key the pipeline checks snapshots against to data/reviews/queue_key.pub.json. "
                                  "Keep the private key with the queue server (or in ASSAY_QUEUE_SIGNING_KEY); commit "
                                  "the public key on its own, so CI takes it from the base branch.")
    k.add_argument("private", metavar="FILE", help="where to write the private key (must not exist; outside the project)")
    k.add_argument("--public", default="data/reviews/queue_key.pub.json", metavar="PATH",
                   help="where to write the public key (default: data/reviews/queue_key.pub.json)")
    k.set_defaults(func=run_keygen)
    _sub(qs, "rubric", run_rubric, "replace a queue's rubric while nothing is reviewed yet",
         "Replace the rubric of queue NAME with FILE. Refused once anything is reviewed: start a new queue.",
         "name", "rubric")
    _sub(qs, "status", run_status, "counts and fill of every queue (JSON)",
         "Print each queue's counts (items, reviewed, leased) and fill as JSON; the results are on the "
         "coordinator's page and, after export, in the review stage.")


POSITIONAL_HELP = {
    "name": "the queue's name; export writes its snapshot to data/reviews/NAME.jsonl",
    "pseudonym": "the reviewer's pseudonym, for example rev-ana (no personal data)",
    "rubric": "the new rubric YAML, in the format of data/rubric.yaml",
}


def _sub(qs: argparse._SubParsersAction[argparse.ArgumentParser], name: str, func: Callable[[argparse.Namespace], int],
         help: str, description: str, *positional: str) -> argparse.ArgumentParser:
    """Add subcommand ``name`` with its positional arguments (``rubric`` is shown as FILE) and ``--db``."""
    p = qs.add_parser(name, help=help, description=description)
    for arg in positional:
        p.add_argument(arg, metavar="FILE" if arg == "rubric" else arg.upper(), help=POSITIONAL_HELP[arg])
    _db(p)
    p.set_defaults(func=func)
    return p


def run_create(args: argparse.Namespace) -> int:
    from assay.core.errors import InputError, Problem
    from assay.core.confinement import require_plain_name
    from assay.queue.fill import item_rows, sample
    from assay.queue.rubric import load_rubric
    from assay.queue.sources import load_source
    from assay.queue.store import open_store

    require_plain_name(args.name, "assay queue create", "NAME")  # it becomes data/reviews/NAME.jsonl
    if args.reviewers_per_item < 1:
        raise InputError([Problem("--reviewers-per-item", None, None, f"{args.reviewers_per_item} is below 1", "use 1 or more")])
    rubric = load_rubric(args.rubric)
    items, described = load_source(args.source)
    picked = sample(items, args.fill, args.n, args.seed, args.small_margin)
    store = open_store(args.db)
    store.create_queue(args.name, described, args.fill, args.seed, args.n, rubric,
                       item_rows(args.name, picked, args.seed, args.small_margin), args.reviewers_per_item)
    bias = "" if args.fill == "random" else " (hard fill: biased for overall agreement)"
    if args.source == "compare":
        bias += (" (the ppi stage refuses a hard fill as its labelled sample)" if args.fill == "hard" else
                 " (a labelled sample for the ppi stage: export it and list it in ppi.reviews)")
    print(f"queue {args.name}: {len(picked)} items from {args.source}, fill {args.fill}{bias}, rubric {rubric.sha256[:12]}")
    return 0


def run_add_reviewer(args: argparse.Namespace) -> int:
    from assay.queue.store import open_store

    print(open_store(args.db).issue_token("reviewer", args.name, args.pseudonym))
    return 0


def run_coordinator_token(args: argparse.Namespace) -> int:
    from assay.queue.store import open_store

    print(open_store(args.db).issue_token("coordinator"))
    return 0


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from assay.queue.app import create_app
    from assay.queue.store import open_store

    store = open_store(args.db)
    store.checkpoint_in_background()  # SQLite: no WAL checkpoint (and its fsync) inside a request
    app = create_app(store, lease_seconds=args.lease_seconds)
    # httptools and uvloop (both dependencies) are the fastest parser and loop; no per-request log line,
    # no Server header, and no X-Forwarded-For rewriting (the app never reads the client's address)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False, http="httptools",
                loop="uvloop", server_header=False, proxy_headers=False)
    return 0


def run_export(args: argparse.Namespace) -> int:
    from assay.core.confinement import require_inside, require_plain_name
    from assay.queue.signature import load_private_key, sign
    from assay.queue.snapshot import snapshot_rows, write_snapshot
    from assay.queue.store import open_store

    require_plain_name(args.name, "assay queue export", "NAME")
    out = args.out or f"data/reviews/{args.name}.jsonl"
    require_inside(out, "assay queue export", "--out")
    key = load_private_key(args.key_file)  # before reading anything: no unsigned snapshot is written
    snap = snapshot_rows(open_store(args.db), args.name)
    if args.synthetic:
        snap.queue.synthetic = True
        snap.queue.note = "synthetic demo reviews written by a script, not by people"
    write_snapshot(sign(snap, key), out)
    print(f"{out}: {len(snap.reviews)} review(s) of queue {args.name} (fill {snap.queue.fill})")
    return 0


def run_keygen(args: argparse.Namespace) -> int:
    import base64
    import os
    from pathlib import Path

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    from assay.core.confinement import require_inside
    from assay.core.errors import AssayError
    from assay.core.io import write_text
    from assay.queue.signature import public_key_of

    require_inside(args.public, "assay queue keygen", "--public")
    private = Path(args.private).resolve()
    if private.is_relative_to(Path.cwd().resolve()):
        raise AssayError(f"assay queue keygen: {args.private} is inside the project; the private key must never be "
                         "committed (fix: give a path outside it, e.g. ~/.config/assay/queue.key)")
    key = Ed25519PrivateKey.generate()
    raw = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    try:
        fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as error:
        raise AssayError(f"assay queue keygen: cannot create {args.private} ({error.strerror}) (fix: give a new "
                         "path)") from None
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(base64.b64encode(raw).decode("ascii") + "\n")
    write_text(args.public, public_key_of(key).model_dump_json(indent=2) + "\n")
    print(f"wrote the private key to {args.private} (keep it with the queue server) and the public key to "
          f"{args.public} (commit it on its own)")
    return 0


def run_rubric(args: argparse.Namespace) -> int:
    from assay.queue.rubric import load_rubric
    from assay.queue.store import open_store

    rubric = load_rubric(args.rubric)
    open_store(args.db).set_rubric(args.name, rubric)
    print(f"queue {args.name}: rubric {rubric.sha256[:12]}")
    return 0


def run_status(args: argparse.Namespace) -> int:
    from assay.core.io import dumps_json
    from assay.queue.store import open_store

    store = open_store(args.db)
    out = []
    for name in store.queue_names():
        info = store.queue(name)
        out.append({"name": name, **store.counts(name), "fill": info.fill,
                    "biased_for_overall_agreement": not info.random_fill, "rubric_sha256": info.rubric.sha256})
    print(dumps_json({"queues": out}), end="")
    return 0
