"""Filling a queue: seeded uniform samples, hard cases, sources copied, rubric files."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from assay.core.errors import InputError
from assay.queue.fill import hard_reasons, item_rows, sample
from assay.queue.items import JudgeOpinion, SourceItem
from assay.queue.rubric import load_rubric, parse_rubric
from assay.data.pairs import load_pairs
from assay.queue.sources import from_calibration, from_jsonl, load_source
from conftest import ROOT, write_jsonl
from queue_helpers import pair_items


def test_random_fill_is_seeded_and_the_same_for_the_same_seed():
    items = pair_items(50)
    a, b = sample(items, "random", 10, seed=3), sample(list(reversed(items)), "random", 10, seed=3)
    assert [i.id for i in a] == [i.id for i in b]  # independent of the source's order
    assert [i.id for i in a] != [i.id for i in sample(items, "random", 10, seed=4)]
    assert len(sample(items, "random", 500, seed=3)) == 50  # all of them when fewer


def test_random_fill_is_uniform():
    # each of 20 items is picked with probability 5/20 per draw; chi-square over 4000 seeds
    items = pair_items(20)
    counts = Counter(i.id for seed in range(4000) for i in sample(items, "random", 5, seed))
    observed = np.array([counts[i.id] for i in items])
    assert stats.chisquare(observed).pvalue > 1e-4
    assert observed.sum() == 4000 * 5


def test_hard_fill_takes_disagreements_order_flips_small_margins_and_version_flips():
    base = dict(question="q", answers={"a": "x", "b": "y"})
    items = [SourceItem(id="agree", judge=JudgeOpinion(verdict="a", margin=0.5), human="a", **base),
             SourceItem(id="disagree", judge=JudgeOpinion(verdict="a"), human="b", **base),
             SourceItem(id="flip", judge=JudgeOpinion(verdict="tie", order_flip=True), **base),
             SourceItem(id="margin", judge=JudgeOpinion(verdict="a", margin=0.05), **base),
             SourceItem(id="version", judge=JudgeOpinion(verdict="b"), version_flip=True, **base)]
    assert {i.id for i in sample(items, "hard", 10, 0)} == {"disagree", "flip", "margin", "version"}
    assert hard_reasons(items[1]) == ["judge_human_disagreement"]
    with pytest.raises(InputError, match="no item fits fill 'hard'"):
        sample(items[:1], "hard", 10, 0)


def test_blind_order_is_per_item_and_ids_say_nothing_about_models():
    rows = item_rows("q", pair_items(200), seed=1)
    swaps = [r.swap for r in rows]
    assert 60 < sum(swaps) < 140  # both orders occur (binomial(200, 1/2): outside this range p < 1e-5)
    assert rows == item_rows("q", pair_items(200), seed=1)
    assert all("model" not in r.id and len(r.id) == 24 for r in rows)


def test_items_are_copies_so_deleting_the_source_changes_nothing(tmp_path):
    path = write_jsonl(tmp_path / "src.jsonl", [json.loads(i.model_dump_json()) for i in pair_items(3)])
    rows = item_rows("q", from_jsonl(path), seed=0)
    path.unlink()
    assert json.loads(rows[0].payload)["answers"]["a"].startswith("answer a")


def test_conversations_become_single_response_items(tmp_path):
    path = write_jsonl(tmp_path / "conv.jsonl", [{"id": "c1", "model": "m", "messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "price?"}, {"role": "assistant", "content": "BDT 150"}]}])
    items = from_jsonl(path)
    assert [(i.id, i.kind, i.question, i.answers["a"], len(i.context)) for i in items] == [
        ("c1#1", "response", "hi", "hello", 1), ("c1#3", "response", "price?", "BDT 150", 3)]


def test_bad_source_lines_are_named(tmp_path):
    path = write_jsonl(tmp_path / "bad.jsonl", [{"id": "x", "question": "q", "answers": {"a": "only"}}])
    with pytest.raises(InputError, match=r"bad.jsonl:1.*needs answers a, b"):
        from_jsonl(path)
    with pytest.raises(InputError, match="not a pipeline output or a file"):
        load_source("nonsense")


def test_calibration_source_copies_pairs_with_the_judge_label():
    items = from_calibration(ROOT)
    assert len(items) == 42 and all(i.judge.verdict in ("a", "b", "tie") and i.human for i in items)
    facts = {p.id: p.facts for p in load_pairs(ROOT / "data/pairs.jsonl")}
    assert all((i.reference.facts if i.reference else []) == facts[i.id] for i in items)  # a tie pair may have none


def test_a_compare_item_carries_its_case_facts_and_cited_documents():
    from assay.data.cases import load_cases
    from assay.data.corpus import load_corpus
    from assay.queue.sources import _reference

    cases = {c.id: c for c in load_cases(ROOT / "data/cases.jsonl")}
    corpus = load_corpus(ROOT / "data/corpus")
    ref = _reference(cases["g01"], corpus)
    assert ref is not None and ref.facts == ["12 months"]
    assert [(d.id, d.title, d.text) for d in ref.documents] == [
        ("kb-plans-home-fibre", corpus["kb-plans-home-fibre"].title, corpus["kb-plans-home-fibre"].text)]
    assert _reference(cases["g01"], {}).documents[0].title is None  # no corpus: the ids alone
    abstain = next(c for c in cases.values() if not c.facts and not c.doc_ids)
    assert _reference(abstain, corpus) is None and _reference(None, corpus) is None


def test_rubric_is_hashed_over_its_exact_text_and_validated():
    r = load_rubric(ROOT / "data/rubric.yaml")
    assert r.spec.names == ["correctness", "helpfulness", "tone", "format"]
    assert (r.spec.scale.min, r.spec.scale.max) == (1, 5)
    assert parse_rubric(r.text + "\n").sha256 != r.sha256
    with pytest.raises(InputError, match="criterion names repeat: tone"):
        parse_rubric("criteria: [{name: tone, question: a}, {name: tone, question: b}]")
    with pytest.raises(InputError, match="criteria"):
        parse_rubric("criteria: []")


@pytest.mark.e2e
def test_compare_source_pairs_baseline_and_candidate_and_marks_version_flips(reproduced):
    from assay.queue.sources import JUDGE_COMPARE, from_compare

    items = from_compare(reproduced)
    report = json.loads((reproduced / "reports/compare.json").read_text(encoding="utf-8"))
    holdout = set(report["better"]) | set(report["worse"]) | set(report["unchanged"])  # compare reads the holdout only
    on_holdout = [i for i in items if i.id in holdout]
    assert len(on_holdout) == len(holdout) and len(items) > len(holdout)  # the queue offers every case
    assert {i.id for i in on_holdout if i.version_flip} == set(report["better"]) | set(report["worse"])
    assert all(i.models == {"a": "baseline", "b": "candidate"} for i in items)
    # the verdict is the judge's (the judge_compare stage ran in the reproduced clone), the flips the rule's
    assert all(i.judge.identity == JUDGE_COMPARE for i in items)
    hard = {i.id for i in sample(items, "hard", len(items), 0)}
    assert hard & holdout >= set(report["better"]) | set(report["worse"])
    assert hard == {i.id for i in items if i.version_flip or i.judge.order_flip}
