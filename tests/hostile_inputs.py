"""The red team's hostile inputs (issues 22 and 31), each run as a user meets it, and sorted into
what happened: ``clean`` (refused with one message naming where, or answered correctly, in time),
``traceback``, ``silently accepted``, ``hang`` (past the time limit), ``leak`` (a form of the API
key printed or written) or ``unclear`` (refused, but the message does not say where).

Each input runs in its own process (``assay ...`` or a short Python program), in a fresh folder,
with a memory cap, against the ``src`` folder given, so the same list measures a fix and the code
before it (``benchmarks/bench_hostile.py --src <old checkout>/src``). tests/test_hostile_input.py runs
them all and requires every one to be clean.
"""

from __future__ import annotations

import base64
import codecs
import json
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIME_LIMIT_S = 30  # each one ends in about a second when handled; the limit only catches a hang
MEMORY_LIMIT = 2 << 30  # an alias bomb reached 3.8 GB: the cap turns it into a MemoryError (a traceback)
CATEGORIES = ("clean", "traceback", "silently accepted", "hang", "leak", "unclear")
KEY = "sk-" + secrets.token_hex(14)
KEY_FORMS = [KEY, KEY[::-1], codecs.encode(KEY, "rot13"), base64.b64encode(KEY[::-1].encode()).decode(),
             *(KEY[i:i + 7] for i in range(0, len(KEY) - 6, 7))]
CLI = "import sys; from assay.cli import main; sys.exit(main())"


@dataclass(frozen=True)
class Hostile:
    """One hostile input: the files it needs, the command, and what a clean ending looks like.

    ``argv`` starts with ``assay`` (the CLI) or ``python`` (a program given as the next item).
    ``expect`` is ``refused`` (non-zero exit, ``where`` in the message) or ``answers`` (exit 0, ``where``
    in stdout). ``files`` maps a relative path to its bytes; ``links`` a relative path to the one it
    points to; ``server`` runs a 401-answering server that plays the key back (its URL replaces
    ``{url}`` in ``argv``).
    """

    name: str
    argv: list[str]
    where: str
    expect: str = "refused"
    files: dict[str, bytes] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    server: bool = False


def _bomb(top: str) -> bytes:
    """Nine nested aliases of nine items each: 387 million values in 400 bytes; the last line holds ``top``."""
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for i in range(1, 10):
        prev, name = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]")
    return ("\n".join(lines) + f"\n{top}: *j\n").encode()


def _case(**over: object) -> bytes:
    row = {"id": "t1", "question": "Is there an outage in Mirpur?", "task": "unanswerable", "set": "golden",
           "lang": "en", "expect": "abstain", "why": "a tool case for the hostile-input run", **over}
    return (json.dumps(row) + "\n").encode()


TOOLS = (ROOT / "data/tools.yaml").read_bytes()
assert TOOLS.count(b"    permission: refunds.authorise\n") == 1  # where the hostile thresholds go
BIG = "9" * 5000
QRELS, RUN = b"a 0 d1 2\na 0 d2 0\n", b"a Q0 d2 1 2.0 t\na Q0 d1 2 1.0 t\n"
REVIEW = """
import json, sys, tempfile
from starlette.testclient import TestClient
from assay.queue.app import create_app
from assay.queue.store import open_store
from queue_helpers import body, make_queue
store = open_store(tempfile.mkdtemp() + "/q.sqlite")
make_queue(store, n=1)
auth = {"Authorization": "Bearer " + store.issue_token("reviewer", "q", "ana")}
client = TestClient(create_app(store), raise_server_exceptions=False)
item = client.post("/api/queues/q/next", headers=auth).json()
base = {k: v for k, v in body("A").items() if k != "note"}  # the fragment adds a note (or repeats a key)
raw = json.dumps(base)[:-1] + ", " + sys.argv[1] + "}"
r = client.post("/api/items/" + item["item_id"] + "/review", headers=auth, content=raw.encode())
print("HTTP", r.status_code)
sys.exit(0 if r.status_code != 500 else 3)
"""
# the runtime limit, for a pattern that reached the matcher without validation (validate refuses this one)
PATTERN = ("from assay.data.tools import ExpectedValue\n"
           "print('matched', ExpectedValue.model_construct(pattern='(a+)+$').matches('a' * 33 + '!'))")

HOSTILE: list[Hostile] = [
    Hostile("alias bomb in tools.yaml", ["assay", "validate", "tools.yaml"], "tools.yaml:11:",
            files={"tools.yaml": _bomb("tools")}),
    Hostile("alias bomb in plan.yaml", ["assay", "validate", "plan.yaml"], "plan.yaml:11:",
            files={"plan.yaml": _bomb("task")}),
    Hostile("5000-digit integer in a case", ["assay", "validate", "cases.jsonl", "--kind", "cases"], "cases.jsonl:1:",
            files={"cases.jsonl": _case()[:-2] + f', "x": {BIG}}}\n'.encode()}),
    Hostile("lone surrogate in a case", ["assay", "validate", "cases.jsonl", "--kind", "cases"], "cases.jsonl:1:",
            files={"cases.jsonl": _case(why="a lone \\ud800 surrogate here").replace(b"\\\\ud800", b"\\ud800")}),
    Hostile("equals: 1e999 in a case", ["assay", "validate", "cases.jsonl", "--tools", "tools.yaml"], "cases.jsonl:1:",
            files={"tools.yaml": TOOLS, "cases.jsonl": _case(expected_tools=[
                {"name": "issue_refund", "args": {"amount": {"equals": 1}}}]).replace(b'"equals": 1}', b'"equals": 1e999}')}),
    Hostile("a case expects and forbids one tool", ["assay", "validate", "cases.jsonl", "--tools", "tools.yaml"],
            "cases.jsonl:1:", files={"tools.yaml": TOOLS, "cases.jsonl": _case(
                expected_tools=[{"name": "check_outage"}], forbidden_tools=["check_outage"])}),
    Hostile("permission_above: .nan", ["assay", "validate", "tools.yaml"], "tools.yaml:",
            files={"tools.yaml": TOOLS.replace(b"    permission: refunds.authorise\n", b"    permission: refunds.authorise\n"
                                               b"    permission_above: {argument: amount, value: .nan}\n")}),
    Hostile("tool name OpenAI rejects", ["assay", "validate", "tools.yaml"], "tools.yaml:",
            files={"tools.yaml": TOOLS.replace(b"name: check_outage", b"name: check outage!")}),
    Hostile("5000-digit integer in tools.yaml", ["assay", "validate", "tools.yaml"], "tools.yaml:",
            files={"tools.yaml": TOOLS.replace(b"    permission: refunds.authorise\n", b"    permission: refunds.authorise\n"
                                               + f"    permission_above: {{argument: amount, value: {BIG}}}\n".encode())}),
    Hostile("1 MB value in plan.yaml", ["assay", "validate", "plan.yaml"], "plan.yaml:",
            files={"plan.yaml": (ROOT / "data/plan.yaml").read_bytes().replace(
                b"gate: block", ("gate: " + "b" * 1_000_000).encode(), 1)}),
    Hostile("pattern (a+)+$ on 33 characters", ["python", PATTERN], "matched False", expect="answers"),
    Hostile("pattern (a+)+$ in a case", ["assay", "validate", "cases.jsonl", "--tools", "tools.yaml"],
            "cases.jsonl:1: field 'expected_tools.0.args.area.pattern': pattern '(a+)+$' nests quantifiers",
            files={"tools.yaml": TOOLS, "cases.jsonl": _case(
                expected_tools=[{"name": "check_outage", "args": {"area": {"pattern": "(a+)+$"}}}])}),
    Hostile("power detectable --n 100000000000", ["assay", "power", "detectable", "--n", "100000000000",
                                                  "--discordance", "0.2"], "--n"),
    Hostile("power kappa --reps 100000000", ["assay", "power", "kappa", "--reps", "100000000", "--expected", "0.8",
                                             "--min-kappa", "0.6", "--prevalences", "0.45,0.45,0.1"], "--reps"),
    Hostile("judge doctor --timeout nan", ["assay", "judge", "doctor", "--timeout", "nan"], "--timeout"),
    Hostile("review API: 5000-digit score", ["python", REVIEW, f'"x": {BIG}'], "HTTP 422", expect="answers"),
    Hostile("review API: lone surrogate in a note", ["python", REVIEW, '"note": "a \\ud800 b"'], "HTTP 422",
            expect="answers"),
    Hostile("review API: NUL in a note", ["python", REVIEW, '"note": "a\\u0000b"'], "HTTP 422", expect="answers"),
    Hostile("review API: duplicate key", ["python", REVIEW, '"choice": "B"'], "HTTP 422", expect="answers"),
    Hostile("ir-eval: sealed_holdout is a symlink to vault", ["assay", "ir-eval", "ev/vault/q.trec", "ev/vault/r.trec"],
            "is sealed-holdout data", files={"ev/vault/q.trec": QRELS, "ev/vault/r.trec": RUN},
            links={"ev/sealed_holdout": "vault"}),
    Hostile("ir-eval: 5000-digit grade", ["assay", "ir-eval", "q.trec", "r.trec"], "q.trec:1:",
            files={"q.trec": f"a 0 d1 {BIG}\n".encode(), "r.trec": RUN}),
    Hostile("judge doctor: a 401 body carrying the key", [
        "assay", "judge", "doctor", "--base-url", "{url}", "--model", "m", "--api-key-env", "HOSTILE_KEY",
        "--parallel", "2", "--timeout", "5"], "401",
        files={"params.yaml": (ROOT / "params.yaml").read_bytes(),
               **{f"data/prompts/{p.name}": p.read_bytes() for p in (ROOT / "data/prompts").iterdir()}}, server=True),
]


class _Echo:
    """A server on 127.0.0.1 answering 401 with a body that plays the key back in every form."""

    def __enter__(self) -> str:
        body = json.dumps({"error": {"message": "Incorrect API key provided: " + " ".join(KEY_FORMS)}}).encode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(401)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_one(h: Hostile, src: Path, folder: Path) -> tuple[str, str]:
    """Run ``h`` in ``folder`` against the library in ``src``: its category and what it printed (cut short)."""
    for rel, data in h.files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    for rel, target in h.links.items():
        (folder / rel).symlink_to(target, target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(ROOT / "tests")]), "HOSTILE_KEY": KEY,
           "COLUMNS": "80"}
    env.pop("ASSAY_EVIDENCE_ROOT", None)
    with _Echo() if h.server else _Nothing() as url:
        argv = [a.replace("{url}", url or "") for a in h.argv]
        command = [sys.executable, "-c", CLI, *argv[1:]] if argv[0] == "assay" else [sys.executable, "-c", *argv[1:]]
        try:
            proc = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=TIME_LIMIT_S,
                                  preexec_fn=_cap_memory)
        except subprocess.TimeoutExpired:
            return "hang", ""
    printed = proc.stdout + proc.stderr
    written = b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    if any(form in printed or form.encode() in written for form in KEY_FORMS):
        return "leak", printed[-300:]
    if "Traceback" in proc.stderr:
        return "traceback", proc.stderr[-300:]
    if h.expect == "refused":
        if proc.returncode == 0:
            return "silently accepted", printed[-300:]
        return ("clean" if h.where in proc.stderr and len(proc.stderr) < 5000 else "unclear"), proc.stderr[-300:]
    if "HTTP 500" in proc.stdout:  # the server crashed on the input (its traceback stays in the server)
        return "traceback", printed[-300:]
    if proc.returncode != 0 or h.where not in proc.stdout:
        return ("silently accepted" if "HTTP 200" in proc.stdout else "unclear"), printed[-300:]
    return "clean", proc.stdout[-300:]


class _Nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        pass


def run_all(src: Path = ROOT / "src", report: Callable[[str, str, str], None] | None = None) -> Counter:
    """Run every input of :data:`HOSTILE`; the count per category (``tried`` is the total)."""
    tally: Counter = Counter({c: 0 for c in CATEGORIES})
    for h in HOSTILE:
        with tempfile.TemporaryDirectory() as folder:
            category, printed = run_one(h, src, Path(folder))
        tally[category] += 1
        if report is not None:
            report(h.name, category, printed)
    tally["tried"] = len(HOSTILE)
    return tally
