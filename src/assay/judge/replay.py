"""A judge that answers from stored replies: what calibrate, probe and sensitivity use.

:class:`ReplayJudge` satisfies :class:`~assay.judge.base.Judge`. It looks every item up by its
request key (:func:`assay.judge.replies.reply_key`: judge identity, prompt sha, item) in the
replies the ``judge`` stage committed, and returns the stored verdict. It never contacts anything,
so those stages run without the API, its key or the network, and give the same bytes each time.

Its identity is the identity of the judge that produced the replies (read from ``judge.json``).
Like a real judge it learns the server's ``model_version`` from the replies it serves: when the
stored identity has a ``model_version`` field, it is filled with the versions the served rows name
(sorted, joined by ``", "``), exactly as :class:`~assay.judge.openai.OpenAIJudge` does.

A request with no stored reply (a new pair, an edited prompt, another judge) is an error that names
the pair, the order and the prompt, and says to run ``dvc repro judge``; it is never a silent tie.

Memory: a replies file is read one line at a time into columns (:class:`StoredColumns`: the keys as
sorted 32-byte digests, the winner and status as small codes, the rare reason and model version
apart), about 40 bytes per reply instead of a validated row object each; a batch of requests is
looked up with one binary search. Verdicts with the same content are one shared object.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, get_args

import numpy as np
from pydantic import ValidationError

from assay.core.errors import InputError, MissingArtifact, Problem, raise_problems, shown
from assay.core.io import iter_jsonl
from assay.core.records import check_rows
from assay.judge.base import STATUSES, JudgeIdentity, JudgeItem, Verdict, Winner
from assay.judge.orders import AnswerPair
from assay.judge.matchup import STAGE as COMPARE_STAGE
from assay.judge.replies import IDENTITY_FILE, REPLIES_DIR, STAGE, StoredReply, replies_file, reply_key

if TYPE_CHECKING:
    from assay.judge.prompts import PromptVersion

#: Every stage that asks a judge: each stores its replies (committed, ``cache: false``) and everything
#: after it replays them (``judge`` for calibrate, probe and sensitivity; ``judge_compare`` for ppi and the
#: queue's compare source). Verifying a real judge's run takes these stages' outputs as committed, so it
#: needs no key and sends no request (:func:`assay.release.verify.replayed_stages`).
ASKING_STAGES: tuple[str, ...] = (STAGE, COMPARE_STAGE)
MAX_NAMED = 5
_FIX = f"run `dvc repro {STAGE}` to ask the judge, then commit {REPLIES_DIR}/"


class MissingReply(MissingArtifact):
    """A request calibrate, probe or sensitivity needs has no stored reply (exit code 2)."""


def _judge_name(identity: JudgeIdentity) -> str:
    if "model" in identity:
        return f"{identity.get('provider', 'judge')} model {identity['model']}"
    return f"{identity.get('kind', 'judge')} preset {identity.get('preset')}"


class ReplayJudge:
    """Stored replies behind the Judge interface.

    Args:
        identity: the identity of the judge that produced the replies (as it was before any reply).
        folder: the folder holding one ``<prompt name>_v<version>.jsonl`` per prompt version; a
            file is read the first time its version is asked about.
        pairs: the labelled pairs (or compared cases), used only to name a missing request by id and order.
        fix: what a missing reply's message says to do (the judge stage by default).

    Use :meth:`open` to read the identity from ``<folder>/judge.json`` (``{"judge": identity,
    "judge_keys": [its keys in the judge's order], ...}``; reports list the identity in that order).
    """

    def __init__(self, identity: JudgeIdentity, folder: str | Path = REPLIES_DIR, pairs: Sequence[AnswerPair] = (),
                 fix: str = _FIX):
        self._identity = dict(identity)
        self.fix = fix
        self.folder = Path(folder)
        self._rows: dict[Path, StoredColumns] = {}
        self._models: set[str] = set()
        self._pairs = pairs  # searched only to name a missing request
        self._verdicts: dict[tuple[int, int, str | None, str | None], Verdict] = {}

    @classmethod
    def open(cls, folder: str | Path = REPLIES_DIR, pairs: Sequence[AnswerPair] = (), fix: str = _FIX) -> ReplayJudge:
        """The replay judge for the replies in ``folder``, with the identity from ``<folder>/judge.json``.

        Raises:
            MissingReply: ``judge.json`` does not exist (the judge stage has not run).
            InputError: ``judge.json`` is not a JSON object with a ``judge`` object.
        """
        path = Path(folder) / IDENTITY_FILE
        if not path.is_file():
            raise MissingReply(f"ReplayJudge: {path} not found: the judge has not been asked yet (fix: {fix})")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise InputError([Problem(str(path), None, None, f"not valid JSON ({error})", fix)]) from None
        if not isinstance(data, dict) or not isinstance(data.get("judge"), dict):
            raise InputError([Problem(str(path), None, "judge", "expected an object naming the judge", fix)])
        identity = data["judge"]
        order = data.get("judge_keys")  # the judge's own key order (the file is written with sorted keys)
        if isinstance(order, list) and sorted(order) == sorted(identity):
            identity = {k: identity[k] for k in order}
        return cls(identity, folder, pairs, fix)

    @property
    def identity(self) -> JudgeIdentity:
        """The producing judge's identity, with ``model_version`` learned from the replies served so far."""
        if "model_version" not in self._identity or not self._models:
            return dict(self._identity)
        return {**self._identity, "model_version": ", ".join(sorted(self._models))}

    def _replies(self, prompt: PromptVersion) -> StoredColumns:
        path = replies_file(self.folder, prompt)
        if path not in self._rows:
            if not path.is_file():
                raise MissingReply(f"ReplayJudge: {path} not found: no stored replies for prompt {prompt.label} "
                                   f"(fix: {self.fix})")
            self._rows[path] = StoredColumns.read(path, self.fix)
        return self._rows[path]

    def _describe(self, item: JudgeItem) -> str:
        facts = list(item.facts)
        for p in self._pairs:
            if p.case_question == item.question and list(p.facts) == facts:
                if (p.a, p.b) == (item.first, item.second):
                    return f"pair {p.id} order ab"
                if (p.b, p.a) == (item.first, item.second):
                    return f"pair {p.id} order ba"
        return f"an item not in the pairs file (question {item.question[:60]!r})"

    def _verdict(self, columns: StoredColumns, row: int) -> Verdict:
        """The verdict of stored row ``row``: one shared object per distinct content (treat as immutable)."""
        model = columns.models[columns.model[row]]
        content = (int(columns.winner[row]), int(columns.status[row]), columns.reasons.get(row), model)
        verdict = self._verdicts.get(content)
        if verdict is None:
            verdict = self._verdicts[content] = Verdict(
                WINNERS[content[0]], STATUSES[content[1]], content[2], {"model_version": model, "replayed": True})
        return verdict

    def judge_many(self, items: list[JudgeItem], prompt: PromptVersion) -> list[Verdict]:
        """The stored verdicts for ``items``, in order; ``[]`` for no items.

        ``extra`` of each verdict carries ``model_version`` (or ``None``) and ``replayed: True``.

        Raises:
            MissingReply: some items have no stored reply for this judge and prompt; the message
                names up to five of them (pair id and order) and the prompt.
            InputError: a row of the replies file is malformed (file, line and field named).
        """
        if not items:
            return []
        columns = self._replies(prompt)
        found = columns.find([reply_key(self._identity, prompt.sha, item) for item in items])
        if (found < 0).any():
            missing = [items[k] for k in np.flatnonzero(found < 0)]
            named = "; ".join(self._describe(item) for item in missing[:MAX_NAMED])
            more = f" and {len(missing) - MAX_NAMED} more" if len(missing) > MAX_NAMED else ""
            raise MissingReply(
                f"ReplayJudge: {len(missing)} of {len(items)} requests have no stored reply in "
                f"{replies_file(self.folder, prompt)} for {_judge_name(self._identity)} and prompt {prompt.label} "
                f"(sha {prompt.short_sha}): {named}{more}. The pairs, the prompt or the judge changed since the "
                f"judge stage ran (fix: {self.fix})")
        self._models.update(m for m in (columns.models[k] for k in np.unique(columns.model[found]).tolist()) if m)
        return [self._verdict(columns, row) for row in found.tolist()]


WINNERS: tuple[Winner, ...] = get_args(Winner)


@dataclass(frozen=True)
class StoredColumns:
    """One replies file as columns, rows sorted by key (what :class:`ReplayJudge` looks requests up in).

    Attributes:
        digests: the keys as 32-byte SHA-256 digests, sorted (numpy ``S32``).
        winner: index into :data:`WINNERS` per row (int8).
        status: index into :data:`~assay.judge.base.STATUSES` per row (int8).
        model: index into ``models`` per row (int32); ``models[0]`` is ``None``.
        models: the distinct model versions, ``None`` first.
        reasons: the rows (sorted positions) whose ``reason`` is not ``None``, and the reason.

    A key that is not 64 lowercase hex digits can never equal a :func:`~assay.judge.replies.reply_key`,
    so its row is checked but not stored (it could never be served).
    """

    digests: np.ndarray
    winner: np.ndarray
    status: np.ndarray
    model: np.ndarray
    models: list[str | None]
    reasons: dict[int, str]

    @classmethod
    def read(cls, path: Path, fix: str = _FIX) -> StoredColumns:
        """Read and check ``path`` one line at a time.

        Pairs with the same content under different ids are asked once (:func:`assay.judge.orders.distinct`)
        and each keeps its own rows carrying the shared reply, so a key may appear once per pair and
        order that holds it: it is stored once. Rows that share a key must serve the same verdict
        (winner, status, reason, model version); one that differs (an edited or merged file) is an
        error naming both lines, with ``fix``, never a silent pick.

        Raises:
            InputError: every bad row (not JSON, a field that does not fit
                :class:`~assay.artifacts.rows.StoredReply`, a repeated key that is not a hex digest, a
                shared key serving another verdict), named by file, line and field.
        """
        digests, lines = bytearray(), array("i")
        winner, status, model = array("b"), array("b"), array("i")
        models: dict[str | None, int] = {None: 0}
        reasons: dict[int, str] = {}
        problems: list[Problem] = []
        odd: dict[str, int] = {}  # keys that are not lowercase hex: checked for repeats only
        for line, raw in iter_jsonl(path):
            if isinstance(raw, Problem):
                problems.append(raw)
                continue
            try:
                row = StoredReply.model_validate(raw)
            except ValidationError:  # check_rows names every problem of the row as other files' readers do
                problems += check_rows(str(path), [(line, raw)], StoredReply, key="key")[1]
                continue
            digest = _digest(row.key)
            if digest is None:  # a lowercase hex key needs none of check_rows' id checks
                problems += check_rows(str(path), [(line, raw)], StoredReply, key="key")[1]
                if row.key in odd:
                    problems.append(_repeat(path, line, row.key, odd[row.key]))
                odd.setdefault(row.key, line)
                continue
            if row.reason is not None:
                reasons[len(lines)] = row.reason
            digests += digest
            lines.append(line)
            winner.append(WINNERS.index(row.winner))
            status.append(STATUSES.index(row.status))
            model.append(models.setdefault(row.model_version, len(models)))
        keys = np.frombuffer(bytes(digests), dtype="S32")
        order = np.argsort(keys, kind="stable")  # a repeated key: its first line first
        keys = keys[order]
        at = np.asarray(lines, dtype=np.int64)[order]
        served: dict[str, np.ndarray] = {"winner": np.asarray(winner, dtype=np.int8)[order],
                                         "status": np.asarray(status, dtype=np.int8)[order],
                  "model_version": np.asarray(model, dtype=np.int32)[order]}
        where = np.empty(len(order), dtype=np.int64)
        where[order] = np.arange(len(order))
        reason_at = {int(where[row]): reason for row, reason in reasons.items()}
        repeated = np.flatnonzero(keys[1:] == keys[:-1]) + 1  # sorted positions whose key an earlier row holds
        starts = np.ones(len(keys), dtype=bool)
        starts[1:] = keys[1:] != keys[:-1]
        firsts = np.maximum.accumulate(np.where(starts, np.arange(len(keys)), 0))
        for k in repeated.tolist():  # pairs of equal content share a key: they must serve the same verdict
            first = int(firsts[k])
            differ = [name for name, column in served.items() if column[k] != column[first]]
            differ += ["reason"] if reason_at.get(k) != reason_at.get(first) else []
            if differ:
                problems.append(_differs(path, int(at[k]), keys[k].hex(), int(at[first]), differ, fix))
        raise_problems(problems)
        keep = np.ones(len(keys), dtype=bool)
        keep[repeated] = False
        position = np.cumsum(keep) - 1
        return cls(keys[keep], served["winner"][keep], served["status"][keep], served["model_version"][keep],
                   list(models), {int(position[k]): reason for k, reason in reason_at.items() if keep[k]})

    def find(self, keys: Sequence[str]) -> np.ndarray:
        """The sorted row of every key (hex), ``-1`` where no row has it."""
        query = np.array([_digest(k) or b"" for k in keys], dtype="S32")
        if not len(self.digests):
            return np.full(len(keys), -1, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.digests, query), len(self.digests) - 1)
        return np.where(self.digests[pos] == query, pos, -1)


def _digest(key: str) -> bytes | None:
    """The 32 bytes a 64-digit lowercase hex key stands for; ``None`` for any other text."""
    if len(key) != 64 or key != key.lower():
        return None
    try:
        digest = bytes.fromhex(key)
    except ValueError:
        return None
    return digest if len(digest) == 32 else None


def _differs(path: Path, line: int, key: str, first: int, fields: list[str], fix: str) -> Problem:
    return Problem(str(path), line, fields[0], f"the same request as line {first} (key {key[:12]}) with a different "
                   f"reply ({', '.join(fields)} differ)", fix)


def _repeat(path: Path, line: int, key: str, first: int) -> Problem:
    return Problem(str(path), line, "key", f"duplicate key {shown(key)} (first on line {first})",
                   "give every row a unique key")
