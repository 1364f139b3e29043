"""Stored judge replies: what the ``judge`` stage asks, and the rows it commits.

The ``judge`` stage is the only place a judge is asked anything. It asks every request that
calibrate, probe and sensitivity will need and writes the replies, one file per prompt version,
under ``data/derived/judge/`` (committed to git, ``cache: false``)::

    data/derived/judge/judge.json          the judge's identity (before any reply), its key order, input hashes
    data/derived/judge/pairwise_v2.jsonl   one row per (pair, order) under prompt pairwise v2

Two pairs of equal content (a copied row under a new id) are one request: the judge is asked once
and both pairs' rows carry its key and reply, so a key can appear on several rows, always with the
same reply (:func:`assay.judge.replay.shared_replies` checks it).

Those three stages then replay the rows (:mod:`assay.judge.replay`), so they are pure functions
of stored replies and labels: re-running them, or verifying them in CI, needs no API, no key
and no network. The request cache (:mod:`assay.judge.cache`) only saves money inside the judge
stage; it is not an input.

What is asked (:func:`requested`): every pair under the prompt version in use in both orders (the
bias probes always need both), and under each version that sensitivity compares, in both orders
with ``swap`` and in the (a, b) order only without it.

A row::

    {"key": "<sha256>", "pair": "clear-1", "order": "ab", "prompt_version": 2, "prompt_sha": "<sha256>",
     "status": "ok", "winner": "first", "reason": "cites the policy", "reply": "<sha256 of the reply text>",
     "model_version": "gpt-...-2026-01"}

``response_id`` and ``system_fingerprint`` are what the server returned with the reply (written
only when it gave them): a forger cannot easily make up a response id the provider's logs hold.
``order`` ``ab`` shows answer a first, ``ba`` shows b first; ``winner`` is ``first``/``second``/``tie``
as the judge saw them (``tie`` whenever ``status`` is not ``ok``).

Only parsed fields are kept from a reply (:func:`kept_reply`): ``winner``, ``status`` and ``reason``,
cut to :data:`REASON_CHARS` characters and redacted (:func:`assay.judge.openai.redact`; the judge
client has already scrubbed the key in every form it knows). The raw reply text is never written:
``reply`` is its SHA-256 (hex, of the text as the client kept it, UTF-8), as the response cache
keeps the body's hash, so a committed file cannot carry what a server echoed (a key in a form no
redactor knows), yet a changed reply still changes the row (``assay ci`` re-asks every row that
changed against the base). ``reply`` is ``None`` for the fake judge, which writes no text, and for a
request that failed. The rejudge audit (:mod:`assay.judge.audit`) compares winner and status, never
the text.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from assay.artifacts.registry import JUDGE_IDENTITY, JUDGE_REPLIES
from assay.artifacts.rows import StoredReply
from assay.core.fmt import md_text
from assay.judge.base import STATUSES, JSONObject, Judge, JudgeIdentity, JudgeItem, Verdict
from assay.judge.orders import AnswerPair, ask_items

if TYPE_CHECKING:
    from assay.artifacts.files import JsonlFile
    from assay.artifacts.judge import JudgeClientMetrics, JudgeRunMetrics
    from assay.judge.prompts import PromptVersion

STAGE = "judge"
REPLIES_DIR = JUDGE_REPLIES.relpath()
IDENTITY_FILE = JUDGE_IDENTITY.path().name
#: the most characters of a reply's parsed ``reason`` a row keeps
REASON_CHARS = 500
ORDERS = ("ab", "ba")


def reply_key(identity: JudgeIdentity, prompt_sha: str, item: JudgeItem) -> str:
    """The key of one request: SHA-256 of the judge identity, the prompt's sha and the item.

    The item is everything a judge is shown or scored on (question, facts, first and second
    answer), so together with the prompt bytes it fixes the rendered request. Key order inside
    ``identity`` does not matter; a change to any value gives a new key.

    >>> item = JudgeItem("q", ("f",), "x", "y")
    >>> reply_key({"a": 1, "b": 2}, "s", item) == reply_key({"b": 2, "a": 1}, "s", item)
    True
    >>> reply_key({"a": 1}, "s", item) == reply_key({"a": 1}, "s", JudgeItem("q", ("f",), "y", "x"))
    False
    """
    body = {"judge": identity, "prompt": prompt_sha,
            "item": {"question": item.question, "facts": list(item.facts), "first": item.first, "second": item.second}}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def requested(prompt_version: int, sensitivity_versions: Sequence[int], swap: bool) -> dict[int, bool]:
    """Which prompt versions to ask, each with whether to ask both orders, sorted by version.

    >>> requested(2, (1, 2), swap=False)
    {1: False, 2: True}
    >>> requested(3, (1, 2), swap=True)
    {1: True, 2: True, 3: True}
    """
    wanted = {v: bool(swap) for v in sensitivity_versions}
    wanted[prompt_version] = True  # the bias probes ask both orders whatever swap says
    return dict(sorted(wanted.items()))


def kept_reply(verdict: Verdict) -> tuple[str | None, str | None]:
    """What a row keeps of a reply: its reason, cut and redacted, and the SHA-256 of its raw text.

    The reason is cut to :data:`REASON_CHARS` characters (``…`` marks a cut) after redaction;
    ``None`` stays ``None``. The text is ``verdict.extra["reply"]``; no text (the fake judge, a
    failed request) gives ``None``, and an empty text the SHA-256 of the empty string.

    >>> from assay.judge.base import Verdict
    >>> kept_reply(Verdict("first", "ok", "Bearer abc123 said so", {"reply": "{}"}))
    ('*** said so', '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a')
    >>> kept_reply(Verdict("tie", "failed", None, {}))
    (None, None)
    """
    from assay.judge.openai import redact

    reason = None
    if verdict.reason is not None:
        cleaned = redact(verdict.reason)
        reason = cleaned if len(cleaned) <= REASON_CHARS else cleaned[:REASON_CHARS - 1] + "…"
    text = verdict.extra.get("reply")
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() if isinstance(text, str) else None
    return reason, digest


def replies_file(folder: str | Path, prompt: PromptVersion) -> Path:
    """``<folder>/<prompt name>_v<version>.jsonl``: the replies to one prompt version."""
    return Path(folder) / f"{prompt.name}_v{prompt.version}.jsonl"


def ask(judge: Judge, identity: JudgeIdentity, pairs: Sequence[AnswerPair], prompt: PromptVersion, both_orders: bool) -> list[StoredReply]:
    """Ask ``judge`` about every pair under ``prompt`` in one ``judge_many`` call; one row per request.

    Args:
        judge: the configured judge.
        identity: ``judge.identity`` taken before the judge was asked anything (what params alone
            determine; a real judge adds the server's model version after replying).
        pairs: the labelled pairs (ids must be unique, as :func:`assay.data.pairs.load_pairs` ensures).
            Pairs of equal content under different ids are one request, asked once
            (:func:`assay.judge.orders.distinct`); each pair still gets its rows, carrying the shared
            key and reply.
        prompt: an ``assay.judge.prompts.PromptVersion``.
        both_orders: also ask every pair as (b, a).

    Returns:
        Rows sorted by pair id, then order; ``[]`` for no pairs.

    Raises:
        JudgeContractError: the judge returned the wrong number of verdicts.
        Whatever the judge raises (for example ``JudgeFailures`` when too many requests failed).
    """
    if not pairs:
        return []
    items, verdicts = ask_items(judge, pairs, prompt, both_orders)
    orders = [ORDERS[k // len(pairs)] for k in range(len(items))]
    rows = []
    for k, (item, verdict, order) in enumerate(zip(items, verdicts, orders, strict=True)):
        reason, reply = kept_reply(verdict)
        rows.append(StoredReply(
            key=reply_key(identity, prompt.sha, item), pair=pairs[k % len(pairs)].id, order=order,
            prompt_version=prompt.version, prompt_sha=prompt.sha, status=verdict.status, winner=verdict.winner,
            reason=reason, reply=reply,
            model_version=verdict.extra.get("model_version"), response_id=verdict.extra.get("response_id"),
            system_fingerprint=verdict.extra.get("system_fingerprint")))
    return sorted(rows, key=lambda r: (r.pair, r.order))


def ask_in_batches(judge: Judge, identity: JudgeIdentity, pairs: Sequence[AnswerPair], prompt: PromptVersion,
                   both_orders: bool, batch: int | None = None) -> Iterator[StoredReply]:
    """:func:`ask`, one batch of pairs at a time: the same rows in the same order (pair id, then order),
    yielded as each batch is answered, so a caller that writes them as they come holds one batch.

    Args:
        batch: pairs per :func:`ask` (default :func:`assay.core.bulk.batch_rows`); outputs do not
            depend on it. A judge that checks its failure share per call checks it per batch.
    """
    from assay.core.bulk import batch_rows, batched, bulk

    with bulk():  # rows and items hold no reference cycles: see assay.core.bulk
        for chunk in batched(sorted(pairs, key=lambda p: p.id), batch or batch_rows()):
            yield from ask(judge, identity, chunk, prompt, both_orders)


def write_replies(file: JsonlFile[StoredReply], path: Path, rows: Iterable[StoredReply], prompt: str) -> Counter[str]:
    """Write ``rows`` to ``path`` as ``file`` declares them for ``prompt`` (the file's stem, as in its
    messages) and return how many rows had each status. Checked, atomic, one row at a time."""
    counts: Counter[str] = Counter()

    def counted() -> Iterator[StoredReply]:
        for row in rows:
            counts[row.status] += 1
            yield row

    file.write_to(path, counted(), prompt=prompt)
    return counts


#: The client counts :func:`client_counts` takes from a judge that has ``counts()``; 0 for one that asks no server.
CLIENT_COUNTS = ("requests", "cache_hits", "http_attempts", "failures")
#: Of those, the ones a cached re-run reproduces (committed in metrics/judge.json by :func:`run_counts`).
STABLE_CLIENT_COUNTS = ("requests", "failures")


def client_counts(judge: Judge) -> JudgeClientMetrics:
    """``requests``, ``cache_hits``, ``http_attempts`` and ``failures`` from ``judge.counts()`` when the
    judge has it (the OpenAI client, summed over every call), else all 0 (the fake judge asks no server).

    >>> client_counts(object())
    JudgeClientMetrics(requests=0, cache_hits=0, http_attempts=0, failures=0)
    """
    from assay.artifacts.judge import JudgeClientMetrics

    counts = getattr(judge, "counts", None)
    client = counts() if callable(counts) else {}
    return JudgeClientMetrics(**{k: int(client.get(k, 0)) for k in CLIENT_COUNTS})


def run_counts(judge: Judge, statuses: Mapping[str, int]) -> JudgeRunMetrics:
    """The judge stage's counts for ``metrics/judge.json`` (:class:`~assay.artifacts.judge.JudgeRunMetrics`).

    ``items`` and one count per status come from ``statuses``, the stored rows' status counts
    (:func:`write_replies`, or ``Counter(r.status for r in rows)``); ``requests`` and ``failures``
    from :func:`client_counts`. Cache hits and HTTP attempts are left out: a re-run answered by the
    response cache gives the same counts, byte for byte.

    >>> run_counts(object(), {})
    JudgeRunMetrics(items=0, requests=0, failures=0, ok=0, invalid=0, refused=0, failed=0)
    """
    from assay.artifacts.judge import JudgeRunMetrics

    client = client_counts(judge)
    return JudgeRunMetrics(items=sum(statuses.values()), requests=client.requests, failures=client.failures,
                           **{s: statuses.get(s, 0) for s in ("ok", "invalid", "refused", "failed")})


def client_line(counts: JudgeClientMetrics) -> str:
    """``168 requests: 120 from the cache, 50 HTTP attempts (retries included), 0 failed``, for the stage's log.

    >>> from assay.artifacts.judge import JudgeClientMetrics
    >>> client_line(JudgeClientMetrics(requests=3, cache_hits=1, http_attempts=4, failures=0))
    '3 requests: 1 from the cache, 4 HTTP attempts (retries included), 0 failed'
    """
    return (f"{counts.requests} requests: {counts.cache_hits} from the cache, {counts.http_attempts} HTTP "
            f"attempts (retries included), {counts.failures} failed")


def invalid_sample(judge: Judge) -> list[JSONObject]:
    """``judge.invalid_samples()`` (truncated, secrets redacted) when the judge keeps one, else ``[]``."""
    sample = getattr(judge, "invalid_samples", None)
    return list(sample()) if callable(sample) else []


def run_report(counts: JudgeRunMetrics, samples: Sequence[JSONObject]) -> str:
    """reports/judge.md: the judge stage's counts and a sample of the replies that did not parse.

    Each sample shows its status, the parse failure and the reply as :func:`assay.judge.openai.invalid_replies`
    keeps it (at most 300 characters, secrets replaced by ``***``); "No invalid or refused reply." when none.

    >>> from assay.artifacts.judge import JudgeRunMetrics
    >>> counts = JudgeRunMetrics(items=2, requests=0, failures=0, ok=1, invalid=1, refused=0, failed=0)
    >>> print(run_report(counts, [{"status": "invalid", "reason": "not JSON", "reply": "I think A", "chars": 9}]))
    # Judge run
    <BLANKLINE>
    | count | value |
    |---|---|
    | items | 2 |
    | requests | 0 |
    | failures | 0 |
    | ok | 1 |
    | invalid | 1 |
    | refused | 0 |
    | failed | 0 |
    <BLANKLINE>
    ## Invalid or refused replies (a sample)
    <BLANKLINE>
    1. invalid (not JSON), 9 characters:
    <BLANKLINE>
           I think A
    <BLANKLINE>
    """
    lines = ["# Judge run", "", "| count | value |", "|---|---|", *(f"| {k} | {v} |" for k, v in counts.model_dump().items()), "",
             "## Invalid or refused replies (a sample)", ""]
    if not samples:
        lines += ["No invalid or refused reply.", ""]
    for n, s in enumerate(samples, 1):
        text = "\n".join("       " + line for line in str(s.get("reply", "")).splitlines()) or "       (empty reply)"
        lines += [f"{n}. {s.get('status')} ({md_text(s.get('reason'))}), {s.get('chars')} characters:", "", text, ""]
    return "\n".join(lines)


def status_line(prompt: PromptVersion, statuses: Mapping[str, int]) -> str:
    """``pairwise v2: 84 replies (ok 84, invalid 0, refused 0, failed 0)``, for the stage's log; ``statuses``
    as for :func:`run_counts`."""
    shown = ", ".join(f"{s} {statuses.get(s, 0)}" for s in STATUSES)
    return f"{prompt.label}: {sum(statuses.values())} replies ({shown})"
