"""Calibration against human labels: a hand-computed tiny set, kappa against scikit-learn, the seed's
numbers, usability reasons, metrics without lists, and staleness."""

import json
import math

import pytest
from sklearn.metrics import cohen_kappa_score

from assay.judge.calibration import (calibrate, calibration_run, judge_settings, labels_hash, outputs, pair_rows,
                               report_markdown, staleness, usability)
from assay.core.io import dumps_json
from assay.judge.base import Verdict
from assay.judge.fake import PRESETS, SELF_MARK
from assay.data.pairs import LABELS, Pair, load_pairs
from assay.judge.prompts import load_prompt, prompt_path
from assay.stats.bootstrap import bootstrap_ci

from conftest import ROOT

PAIRS = load_pairs(ROOT / "data" / "pairs.jsonl")
PROMPT = load_prompt(prompt_path(ROOT / "data" / "prompts", 2))
TO_WINNER = {"a": "first", "b": "second", "tie": "tie"}


class Scripted:
    """Returns a fixed a/b/tie label per pair (forward order only), or a given non-ok status."""

    identity = {"kind": "scripted"}

    def __init__(self, labels, status="ok"):
        self.labels, self.status = labels, status

    def judge_many(self, items, prompt):
        if self.status != "ok":
            return [Verdict("tie", self.status) for _ in items]
        return [Verdict(TO_WINNER[x]) for x in self.labels]


def pair(id, final, kind="clear", lang="en", a="x", b="y"):
    return Pair(id=id, case_question="q", facts=["x"], a=a, b=b, kind=kind, lang=lang, ann1=final, ann2=final,
                final=final)


TINY = [pair("1", "a"), pair("2", "b", a="x x x x", b="x"), pair("3", "tie", kind="tie", lang="bn"),
        pair("4", "a", kind="cite"), pair("5", "tie", kind="self", a="y [source: kb-1]", b=f"{SELF_MARK} y")]
TINY_JUDGE = ["a", "a", "tie", "tie", "b"]


def test_tiny_set_by_hand():
    rec = calibrate(TINY, Scripted(TINY_JUDGE), PROMPT, swap=False, resamples=500, seed=3)
    # hits: 1 yes, 2 no (b vs a), 3 yes, 4 no (a vs tie), 5 no (tie vs b) -> 2/5
    assert rec["n"] == 5 and rec["agreement"] == pytest.approx(0.4)
    # human a2 b1 tie2, judge a2 b1 tie2: pe = (2*2 + 1*1 + 2*2) / 25 = 0.36; kappa = (0.4 - 0.36) / 0.64 = 0.0625
    assert rec["kappa"] == pytest.approx(0.0625)
    assert rec["confusion"] == {"a": {"a": 1, "b": 0, "tie": 1}, "b": {"a": 1, "b": 0, "tie": 0},
                                "tie": {"a": 0, "b": 1, "tie": 1}}
    assert rec["by_kind"] == {"cite": {"correct": 0, "n": 1, "agreement": 0.0},
                              "clear": {"correct": 1, "n": 2, "agreement": 0.5},
                              "self": {"correct": 0, "n": 1, "agreement": 0.0},
                              "tie": {"correct": 1, "n": 1, "agreement": 1.0}}
    assert rec["by_lang"] == {"bn": {"correct": 1, "n": 1, "agreement": 1.0},
                              "en": {"correct": 1, "n": 4, "agreement": 0.25}}
    # wrong decisive: pair 2 (picked a: longer, shown first) and pair 5 (picked b: longer, uncited, own style);
    # pair 4 is a judge tie where people decided
    assert rec["errors"] == {"wrong_decisive": 2, "picked_longer": 2, "picked_first": 1, "picked_uncited": 1,
                             "picked_own_style": 1, "missed_decisive": 1}
    assert (rec["agreement_ci_low"], rec["agreement_ci_high"]) == bootstrap_ci([1, 0, 1, 0, 0], 500, 3)
    assert rec["usable"] == 0
    assert rec["reasons"] == ["kappa 0.062 < 0.6", "slice cite 0/1 < 0.6", "slice clear 1/2 < 0.6",
                              "slice self 0/1 < 0.6"]
    assert (rec["order_disagreements"], rec["invalid"], rec["refused"], rec["failed"]) == (0, 0, 0, 0)


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("swap", [False, True])
def test_kappa_and_confusion_match_scikit_learn(name, swap):
    run = calibration_run(PAIRS, PRESETS[name], PROMPT, swap=swap, resamples=200)
    finals = [p.final for p in PAIRS]
    assert run.record["kappa"] == pytest.approx(cohen_kappa_score(finals, run.labels))
    from sklearn.metrics import confusion_matrix
    table = confusion_matrix(finals, run.labels, labels=list(LABELS))
    assert [[run.record["confusion"][h][j] for j in LABELS] for h in LABELS] == table.tolist()
    assert run.record["agreement"] == pytest.approx(sum(f == j for f, j in zip(finals, run.labels)) / len(PAIRS))
    assert run.record["agreement_ci_low"] <= run.record["agreement"] <= run.record["agreement_ci_high"]


def test_seed_usability_exercise():
    # seed 000 ("hard" exercise, no swap): only clean passes; verbosity agrees 0.833 with kappa 0.75 yet fails
    # its own slice. Here: human a14 b14 tie14; the verbosity judge turns the 7 verbose ties into 3 a + 4 b, so
    # judge a17 b18 tie7, po = 35/42 = 0.833, pe = 14 * (17 + 18 + 7) / 42**2 = 1/3, kappa = (5/6 - 1/3) / (2/3) = 0.75
    reasons = {n: calibrate(PAIRS, PRESETS[n], PROMPT, swap=False)["reasons"] for n in PRESETS}
    verbosity = calibrate(PAIRS, PRESETS["verbosity"], PROMPT, swap=False)
    assert round(verbosity["agreement"], 3) == 0.833 and verbosity["kappa"] == pytest.approx(0.75)
    assert reasons["clean"] == []
    assert reasons["verbosity"] == ["slice verbose_tie 0/7 < 0.6"]
    assert reasons["self"] == ["slice self 0/7 < 0.6"]
    assert reasons["mixed"][0].startswith("kappa 0.214 < 0.6") and "slice self 1/7 < 0.6" in reasons["mixed"]


def test_swap_turns_position_flips_into_ties():
    one = calibrate(PAIRS, PRESETS["position"], PROMPT, swap=False)
    both = calibrate(PAIRS, PRESETS["position"], PROMPT, swap=True)
    # 28 equal-fact pairs flip (see test_probe); without swap the 14 human ties among them become 'a'
    assert (one["order_disagreements"], both["order_disagreements"]) == (0, 28)
    assert both["confusion"]["tie"] == {"a": 0, "b": 0, "tie": 14}
    assert one["confusion"]["tie"] == {"a": 14, "b": 0, "tie": 0}


def test_non_ok_verdicts_are_counted_ties():
    rec = calibrate(TINY, Scripted(None, status="invalid"), PROMPT, swap=True, resamples=200)
    assert (rec["invalid"], rec["refused"], rec["failed"], rec["order_disagreements"]) == (10, 0, 0, 0)
    assert rec["confusion"]["a"] == {"a": 0, "b": 0, "tie": 2}


def test_no_pairs():
    rec = calibrate([], PRESETS["clean"], PROMPT, resamples=200)
    assert rec["n"] == 0 and math.isnan(rec["agreement"]) and math.isnan(rec["kappa"])
    assert rec["usable"] == 0 and rec["reasons"] == ["no pairs to calibrate on"]


def test_undefined_kappa_is_a_reason():
    rec = {"n": 3, "kappa": None, "by_kind": {}}
    assert usability(rec, 0.6, 0.6) == ["kappa undefined (one label everywhere on both sides)"]


def test_metrics_hold_numbers_and_provenance_names_the_inputs():
    rec = calibrate(PAIRS, PRESETS["mixed"], PROMPT)

    def walk(x):
        assert isinstance(x, (int, float, dict)) or x is None, x
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
    numbers, prov = outputs(rec)
    walk(numbers.model_dump())
    assert numbers.usable == 0 and prov.details["reasons"] == rec["reasons"] and rec["reasons"]
    assert prov.inputs == {"prompt": PROMPT.sha, "labels": labels_hash(PAIRS),
                           "judge_settings": prov.settings["judge_settings_hash"]}
    assert prov.settings["prompt"] == {"name": "pairwise", "version": 2, "sha": PROMPT.sha}
    assert prov.settings["judge"]["preset"] == "mixed" and prov.assay_version


def test_labels_hash_ignores_order_and_sees_every_edit():
    assert labels_hash(PAIRS) == labels_hash(list(reversed(PAIRS)))
    edited = [PAIRS[0].model_copy(update={"final": "tie"}), *PAIRS[1:]]
    assert labels_hash(edited) != labels_hash(PAIRS)
    reworded = [PAIRS[0].model_copy(update={"a": PAIRS[0].a + " "}), *PAIRS[1:]]
    assert labels_hash(reworded) != labels_hash(PAIRS)


def settings_for(judge, swap=True):
    return judge_settings(judge.identity, swap=swap, resamples=2000, seed=0, min_kappa=0.6, min_slice_agreement=0.6)


def test_staleness(tmp_path):
    rec = json.loads(dumps_json(outputs(calibrate(PAIRS, PRESETS["mixed"], PROMPT))[1].settings))  # as read back
    current = settings_for(PRESETS["mixed"])
    assert staleness(rec, PROMPT, current, labels_hash(PAIRS)) == []
    edited = tmp_path / "pairwise_v2.md"
    edited.write_text(PROMPT.text.replace("short sentence", "brief sentence"), encoding="utf-8")
    new_prompt = load_prompt(edited)
    assert staleness(rec, new_prompt, current, labels_hash(PAIRS)) == [
        f"prompt pairwise v2 sha {PROMPT.sha[:10]} -> {new_prompt.sha[:10]}"]
    v1 = load_prompt(prompt_path(ROOT / "data" / "prompts", 1))
    assert staleness(rec, v1, current, labels_hash(PAIRS)) == ["prompt pairwise v2 -> pairwise v1"]
    assert staleness(rec, PROMPT, settings_for(PRESETS["mixed"], swap=False), labels_hash(PAIRS)) == [
        "judge settings: swap True -> False"]
    assert staleness(rec, PROMPT, settings_for(PRESETS["self"]), labels_hash(PAIRS)) == [
        "judge settings: judge.bangla_blind True -> False; judge.position 0.15 -> 0.0; judge.preset 'mixed' -> 'self'; "
        "judge.self_pref 0.2 -> 0.4; judge.verbosity 0.2 -> 0.0"]
    relabelled = labels_hash([PAIRS[0].model_copy(update={"final": "tie"}), *PAIRS[1:]])
    assert staleness(rec, PROMPT, current, relabelled) == [f"labels {labels_hash(PAIRS)[:10]} -> {relabelled[:10]}"]


def test_reports():
    run = calibration_run(PAIRS, PRESETS["mixed"], PROMPT)
    rows = pair_rows(PAIRS, run.labels)
    assert rows[0] == {"id": "clear-1", "kind": "clear", "lang": "en", "final": "a", "judge": run.labels[0],
                       "correctness": "a", "evidence": "tie", "concision": "tie"}
    text = report_markdown(run.record)
    assert "**Not usable.** Reasons: kappa 0.357 < 0.6; slice cite 0/7 < 0.6; slice self 0/7 < 0.6." in text
    assert "| bn | 1 | 7 | 0.143 |" in text and "order disagreements (a flip between the two orders, scored as tie): 28" in text
