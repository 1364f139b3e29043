"""Where queue items come from: a pipeline output (``calibration``, ``compare``) or a JSONL file.

Every source becomes a list of :class:`SourceItem` copies; the queue stores those copies, so
editing or deleting the source later changes nothing in the queue.

- ``calibration``: each labelled pair in the pairs file (``inputs.pairs``) with the judge's label from
  ``reports/judge_dimensions.jsonl`` (written by the calibrate stage). The pairs carry no model
  names, so the models are named by their place in the pairs file ("pairs.jsonl answer a"). The
  human label is the annotators' final label.
- ``compare``: each case's baseline and candidate replies from ``data/derived/runs/NAME.parquet``,
  the models being the two version names of params ``compare`` (``a`` the baseline, ``b`` the
  candidate). The verdict is the judge's from the ``judge_compare`` stage's stored replies (replayed:
  both orders, a flip is a tie and an order flip, a failed reply no verdict) when that stage has
  run; without it, the pipeline's rule-based pass/fail (a wins when only a passes; tie when both
  pass or both fail), its identity saying ``rule``, not an LLM. A case that passes in one version
  only is a version flip. A random fill of this source is the labelled sample of the ``ppi`` stage
  (:mod:`assay.queue.labelled`); a hard fill is refused there.
  Each item carries the case's facts and cited documents (title and text from the corpus) as its
  reference; a calibration pair carries its facts.
- a JSONL file of judged pairs, one :class:`~assay.queue.items.SourceItem` per line, or of
  conversations ``{"id": ..., "messages": [...], "model": ...}``: each assistant turn becomes a
  single-response item in its conversation (the turns before it are its context).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay.artifacts.registry import JUDGE_COMPARE_IDENTITY, JUDGE_COMPARE_REPLIES, JUDGE_DIMENSIONS, RUN_TABLE, RUN_TABLES
from assay.core.errors import InputError, Problem
from assay.core.io import read_jsonl, sha256_file
from assay.core.paths import input_paths
from assay.core.records import validate_rows
from assay.queue.items import CitedDocument, Conversation, JudgeOpinion, Reference, SourceItem

if TYPE_CHECKING:
    from collections.abc import Sequence

    from assay.data.cases import CaseRecord
    from assay.data.corpus import Document

PIPELINE_SOURCES = ("calibration", "compare")


def _from_conversations(path: str, rows: list[tuple[int, dict]]) -> list[SourceItem]:
    items = []
    for line, conv in validate_rows(path, rows, Conversation):
        for turn, message in enumerate(conv.messages):
            if message.role != "assistant":
                continue
            before = conv.messages[:turn]
            users = [m.content for m in before if m.role == "user"]
            if not users:
                raise InputError([Problem(path, line, f"messages.{turn}", "an assistant turn with no user turn before it",
                                          "start the conversation with a user message")])
            items.append(SourceItem(id=f"{conv.id}#{turn}", kind="response", question=users[-1],
                                    answers={"a": message.content}, models={"a": conv.model or "dataset"},
                                    context=before))
    return items


def from_jsonl(path: str | Path) -> list[SourceItem]:
    """Items from a JSONL file of judged pairs or of conversations (decided by the first line).

    Raises:
        InputError: every bad line (field, value, fix), or an empty file.
    """
    rows = read_jsonl(path)
    if not rows:
        raise InputError([Problem(str(path), None, None, "no items", "write one item per line")])
    if "messages" in rows[0][1]:
        return _from_conversations(str(path), rows)
    return [item for _, item in validate_rows(str(path), rows, SourceItem)]


def from_calibration(root: Path) -> list[SourceItem]:
    """Judged pairs from the calibrate stage's outputs (see the module docstring)."""
    from assay.data.pairs import load_pairs, pair_kinds

    pairs = load_pairs(root / input_paths(root / "params.yaml").pairs, pair_kinds(root / "params.yaml"))
    path = JUDGE_DIMENSIONS.path(root)
    if not path.exists():
        raise InputError([Problem(str(path), None, None, "not found", f"run `dvc repro {JUDGE_DIMENSIONS.stage}` first")])
    judged = {row.id: row.judge for row in JUDGE_DIMENSIONS.read(root)}
    return [SourceItem(id=p.id, question=p.case_question, answers={"a": p.a, "b": p.b},
                       models={"a": "pairs.jsonl answer a", "b": "pairs.jsonl answer b"},
                       judge=JudgeOpinion(verdict=judged.get(p.id), identity="params judge (calibrate stage)"),
                       human=p.final, reference=Reference(facts=list(p.facts)) if p.facts else None)
            for p in pairs if p.id in judged]


def from_compare(root: Path) -> list[SourceItem]:
    """Baseline-versus-candidate pairs from the evaluate stage's run tables (see the module docstring)."""
    import pandas as pd

    from assay.core.io import read_yaml
    from assay.data.cases import load_cases

    section = (read_yaml(root / "params.yaml") or {}).get("compare") or {}
    names = (section.get("baseline", "baseline"), section.get("candidate", "candidate"))
    runs = []
    for name in names:
        path = RUN_TABLE.path(root, version=name)
        if not path.exists():
            raise InputError([Problem(str(path), None, None, "not found", f"run `dvc repro evaluate@{name}` first")])
        frame = pd.read_parquet(path)  # a version with repeats: each case's first run, as the judge compares it
        frame = frame[frame["repeat"] == 0] if "repeat" in frame.columns else frame
        runs.append(frame[["id", "reply", "passed"]].set_index("id"))
    case_list = load_cases(root / input_paths(root / "params.yaml").cases)
    cases = {c.id: c for c in case_list}
    corpus = _corpus(root)
    both = sorted(set(runs[0].index) & set(runs[1].index))
    judged = _judged(root, case_list, {i: str(runs[0].at[i, "reply"]) for i in both}, {i: str(runs[1].at[i, "reply"]) for i in both})
    items = []
    for case_id in both:
        pa, pb = bool(runs[0].at[case_id, "passed"]), bool(runs[1].at[case_id, "passed"])
        verdict = "tie" if pa == pb else ("a" if pa else "b")
        opinion = judged.get(case_id) if judged is not None else JudgeOpinion(verdict=verdict, identity=RULE)
        case = cases.get(case_id)
        items.append(SourceItem(id=case_id, question=case.question if case else case_id,
                                answers={"a": str(runs[0].at[case_id, "reply"]), "b": str(runs[1].at[case_id, "reply"])},
                                models={"a": names[0], "b": names[1]}, judge=opinion or JudgeOpinion(),
                                version_flip=pa != pb, reference=_reference(case, corpus)))
    return items


RULE = "rule: passed (evaluate stage)"
JUDGE_COMPARE = "params judge (judge_compare stage)"


def _judged(root: Path, cases: Sequence[CaseRecord], baseline: dict[str, str], candidate: dict[str, str]) -> dict[str, JudgeOpinion] | None:
    """The judge's opinion per compared case from the judge_compare stage's stored replies; None when it has not run.

    Raises:
        MissingReply: the replies do not cover the current runs (run ``dvc repro judge_compare``).
    """
    from assay.core.params import load_section
    from assay.judge.matchup import FIX, REPLIES_DIR, Matchup, asked, matchups
    from assay.judge.orders import judge_pairs
    from assay.judge.params import JudgeParams
    from assay.judge.prompts import load_prompt
    from assay.judge.replay import ReplayJudge

    folder = root / REPLIES_DIR
    if not JUDGE_COMPARE_IDENTITY.path(root).is_file() or not baseline:
        return None
    params = load_section("judge", JudgeParams, root / "params.yaml")
    prompt = load_prompt(params.prompt_file(root / input_paths(root / "params.yaml").prompts))
    items: list[Matchup] = matchups(cases, baseline, candidate, str(RUN_TABLES.path(root)))
    ask = asked(items)
    out = {m.id: JudgeOpinion(verdict="tie", reason="both versions gave the same reply", identity=JUDGE_COMPARE)
           for m in items if m.a == m.b}
    for m, j in zip(ask, judge_pairs(ReplayJudge.open(folder, ask, FIX), ask, prompt, swap=True), strict=True):
        failed = [s for s in j.statuses if s != "ok"]
        out[m.id] = JudgeOpinion(verdict=None if failed else j.label,
                                 reason=f"judge reply {', '.join(failed)}" if failed else None,
                                 order_flip=j.order_disagreement, identity=JUDGE_COMPARE)
    return out


def _corpus(root: Path) -> dict[str, Document]:
    """The corpus documents by id, or none when the corpus folder is missing (the reference then names ids only)."""
    from assay.data.corpus import load_corpus

    folder = root / input_paths(root / "params.yaml").corpus
    return load_corpus(folder) if folder.is_dir() else {}


def _reference(case: CaseRecord | None, corpus: dict[str, Document]) -> Reference | None:
    """A case's facts and cited documents (title and text from the corpus when there); ``None`` when it has neither."""
    if case is None or not (case.facts or case.doc_ids):
        return None
    documents = [CitedDocument(id=d, title=corpus[d].title, text=corpus[d].text) if d in corpus else CitedDocument(id=d)
                 for d in case.doc_ids]
    return Reference(facts=list(case.facts), documents=documents)


def load_source(source: str, root: str | Path = ".") -> tuple[list[SourceItem], str]:
    """The items of ``source`` and a description naming its files and their SHA-256.

    Raises:
        InputError: an unknown source name that is not a file, a missing pipeline output, a bad line.
    """
    root = Path(root)
    if source == "calibration":
        files = [input_paths(root / "params.yaml").pairs, JUDGE_DIMENSIONS.relpath()]
        items = from_calibration(root)
    elif source == "compare":
        items = from_compare(root)
        files = [input_paths(root / "params.yaml").cases]
        files += sorted(str(f.relative_to(root)) for f in JUDGE_COMPARE_REPLIES.path(root).glob("*.jsonl"))
    elif Path(source).is_file():
        return from_jsonl(source), f"{source} sha256:{sha256_file(source)}"
    else:
        raise InputError([Problem(source, None, None, "not a pipeline output or a file",
                                  f"use one of {', '.join(PIPELINE_SOURCES)} or a JSONL path")])
    return items, f"{source} (" + ", ".join(f"{f} sha256:{sha256_file(root / f)}" for f in files) + ")"
