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
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from assay.core.errors import InputError, MissingArtifact, Problem, raise_problems
from assay.core.io import read_jsonl
from assay.core.records import validate_rows
from assay.judge.base import JudgeIdentity, JudgeItem, Verdict
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


#: The fields of a stored reply that name the pair and order holding it; every other field is the reply itself.
_HOLDER: set[str] = {"pair", "order"}


def shared_replies(path: str, rows: Sequence[tuple[int, StoredReply]], fix: str = _FIX) -> dict[str, StoredReply]:
    """The stored replies of one file by key; rows sharing a key must hold the same reply.

    Pairs with the same content under different ids are asked once (:func:`assay.judge.orders.distinct`)
    and each keeps its own row carrying the shared reply, so a key appears once per pair and order
    that holds it. Those rows agree on everything but ``pair`` and ``order``; rows that share a key
    but differ in the reply (an edited or merged file) are an error, never a silent pick.

    Raises:
        InputError: one Problem per row whose reply differs from the first row of its key (both
            lines named).
    """
    first: dict[str, tuple[int, StoredReply]] = {}
    problems = []
    for line, row in rows:
        seen = first.setdefault(row.key, (line, row))
        if seen[1] is row:
            continue
        differ = sorted(k for k, v in row.model_dump(exclude=_HOLDER).items() if getattr(seen[1], k) != v)
        if differ:
            problems.append(Problem(path, line, differ[0], f"the same request as line {seen[0]} (key {row.key[:12]}) "
                                    f"with a different reply ({', '.join(differ)} differ)", fix))
    raise_problems(problems)
    return {key: row for key, (_, row) in first.items()}


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
        self._rows: dict[Path, dict[str, StoredReply]] = {}
        self._models: set[str] = set()
        self._names: dict[tuple, tuple[str, str]] = {}
        for p in pairs:
            self._names.setdefault((p.case_question, tuple(p.facts), p.a, p.b), (p.id, "ab"))
            self._names.setdefault((p.case_question, tuple(p.facts), p.b, p.a), (p.id, "ba"))

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

    def _replies(self, prompt: PromptVersion) -> dict[str, StoredReply]:
        path = replies_file(self.folder, prompt)
        if path not in self._rows:
            if not path.is_file():
                raise MissingReply(f"ReplayJudge: {path} not found: no stored replies for prompt {prompt.label} "
                                   f"(fix: {self.fix})")
            self._rows[path] = shared_replies(str(path), validate_rows(str(path), read_jsonl(path), StoredReply, key=None),
                                              self.fix)
        return self._rows[path]

    def _describe(self, item: JudgeItem) -> str:
        named = self._names.get((item.question, tuple(item.facts), item.first, item.second))
        if named is not None:
            return f"pair {named[0]} order {named[1]}"
        return f"an item not in the pairs file (question {item.question[:60]!r})"

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
        rows = self._replies(prompt)
        keys = [reply_key(self._identity, prompt.sha, item) for item in items]
        missing = [item for item, key in zip(items, keys, strict=True) if key not in rows]
        if missing:
            named = "; ".join(self._describe(item) for item in missing[:MAX_NAMED])
            more = f" and {len(missing) - MAX_NAMED} more" if len(missing) > MAX_NAMED else ""
            raise MissingReply(
                f"ReplayJudge: {len(missing)} of {len(items)} requests have no stored reply in "
                f"{replies_file(self.folder, prompt)} for {_judge_name(self._identity)} and prompt {prompt.label} "
                f"(sha {prompt.short_sha}): {named}{more}. The pairs, the prompt or the judge changed since the "
                f"judge stage ran (fix: {self.fix})")
        out = []
        for key in keys:
            row = rows[key]
            if row.model_version:
                self._models.add(row.model_version)
            out.append(Verdict(row.winner, row.status, row.reason,
                               {"model_version": row.model_version, "replayed": True}))
        return out
