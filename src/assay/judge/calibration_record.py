"""The typed record of a judge calibration: what :mod:`assay.judge.calibration` hands to the
usability rule (:mod:`assay.judge.usability`), the report writer and the metrics writer.

:class:`CalibrationResult` holds the numbers (agreement, kappa with its interval, confusion, slices,
error shape, flip pattern, reply failures): everything the usability rule reads.
:class:`Calibration` adds what the numbers are about (prompt, labels, judge settings, provenance
hashes) and the usability verdict. :class:`CalibrationIdentity` is the part of a calibration that
the staleness check compares, as written to and read back from ``reports/provenance/calibrate.json``.

Every model is frozen and refuses unknown fields. A share or interval is ``nan`` (never 0) when
it is undefined: for no pairs, or for kappa when one label is everywhere on both sides (the reason
is in ``kappa_undefined``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from assay.artifacts.base import BrokenArtifact
from assay.judge.usability import UsabilityRule
from assay.stats.proportion import IntervalMethod


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SliceResult(_Frozen):
    """Agreement on one slice (a kind or a language): ``correct`` of ``n`` pairs, with its interval."""

    correct: int
    n: int
    agreement: float
    agreement_ci_low: float
    agreement_ci_high: float


class ErrorShape(_Frozen):
    """The shape of the wrong picks (pairs without a verdict are not in it; see ``invalid_pairs``).

    ``wrong_decisive``: the judge picked an answer and people picked the other one or a tie; of
    those, how many picked the longer answer, the one shown first in the (a, b) order, the uncited
    one (the other cited), the one in the judge's own style (the other not). ``missed_decisive``:
    the judge said tie where people decided.
    """

    wrong_decisive: int = 0
    picked_longer: int = 0
    picked_first: int = 0
    picked_uncited: int = 0
    picked_own_style: int = 0
    missed_decisive: int = 0


class FlipPattern(_Frozen):
    """Where the order flips came from (see :func:`assay.judge.calibration.flip_pattern`); all 0
    without swap or without flips."""

    first_both: int = 0
    second_both: int = 0
    tie_in_one: int = 0
    forward_first: int = 0
    backward_first: int = 0


class PromptRef(_Frozen):
    """The prompt version a calibration used: name, version and SHA-256 of its bytes."""

    name: str
    version: int
    sha: str


class JudgeSettings(_Frozen):
    """Everything besides prompt and labels that a calibration depends on: the judge's identity
    (as params determine it), ``swap`` and the usability rule. Its hash is
    :func:`assay.judge.calibration.settings_hash`."""

    judge: dict[str, Any]
    swap: bool
    rule: UsabilityRule


class CalibrationInputs(_Frozen):
    """The three input hashes of a calibration, by name (the provenance file's ``inputs``)."""

    prompt: str
    labels: str
    judge_settings: str


class CalibrationIdentity(_Frozen):
    """What a calibration is about, as its provenance file records it (``settings`` there).

    ``settings`` is kept as the JSON that was written (not a :class:`JudgeSettings`), so a record
    written under an older rule or judge still reads and its changed keys can be named.
    """

    prompt: PromptRef
    labels_hash: str
    judge: dict[str, Any]
    settings: dict[str, Any]
    judge_settings_hash: str
    swap: bool

    @classmethod
    def parse(cls, settings: dict[str, Any], where: str) -> CalibrationIdentity:
        """The identity in a provenance file's ``settings``.

        Raises:
            BrokenArtifact: naming ``where`` and the missing or bad fields, when ``settings`` does not
                hold one (the fix: calibrate again).
        """
        try:
            return cls.model_validate(settings)
        except ValidationError as error:
            bad = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
            raise BrokenArtifact(f"{where}: settings are not a calibration's identity ({bad}); "
                             "fix: run `dvc repro calibrate` to calibrate again") from None


class CalibrationResult(_Frozen):
    """The numbers of a calibration: what the usability rule reads.

    Attributes:
        n: pairs with a final human label.
        agreement: share of pairs whose calibration label equals the final one (a pair with a
            verdict that was not ok never agrees); nan for no pairs. ``agreement_ci_low``/``high``:
            its interval by method ``interval`` at ``level``.
        kappa: Cohen's kappa, final vs calibration label; nan when undefined, the reason in
            ``kappa_undefined`` (None when defined); ``kappa_ci_low``/``high`` its interval.
        confusion: human rows a, b, tie by judge columns a, b, tie, invalid.
        by_kind, by_lang: agreement per slice, slices sorted by name.
        errors: the shape of the wrong picks. ``flip_pattern``: where order flips came from.
        order_disagreements, flip_share: pairs whose two ok verdicts disagreed, and their share of ``n``.
        invalid_pairs, invalid_share: pairs with any verdict not ok, and their share of ``n``.
        invalid, refused, failed: verdict counts (two verdicts per pair with swap).
    """

    n: int
    agreement: float
    agreement_ci_low: float
    agreement_ci_high: float
    interval: IntervalMethod
    level: float
    kappa: float
    kappa_ci_low: float
    kappa_ci_high: float
    kappa_undefined: str | None
    confusion: dict[str, dict[str, int]]
    by_kind: dict[str, SliceResult]
    by_lang: dict[str, SliceResult]
    errors: ErrorShape
    order_disagreements: int
    flip_pattern: FlipPattern
    flip_share: float
    invalid_pairs: int
    invalid_share: float
    invalid: int
    refused: int
    failed: int


class Calibration(CalibrationResult):
    """A calibration record: the numbers, what they are about, and the usability verdict.

    Attributes:
        swap: whether each pair was judged in both orders.
        prompt, labels_hash, judge, settings, judge_settings_hash: the identity (see
            :class:`CalibrationIdentity`); ``judge`` may hold more than ``settings.judge`` (what a
            real judge's server reported, such as the model version), which is not hashed.
        assay_version, inputs: provenance.
        usable: whether the judge passed the rule; ``reasons`` why not (empty when usable);
            ``small_slices``: slices too small to judge (see :func:`assay.judge.usability.small_slices`).
    """

    swap: bool
    prompt: PromptRef
    labels_hash: str
    judge: dict[str, Any]
    settings: JudgeSettings
    judge_settings_hash: str
    assay_version: str
    inputs: CalibrationInputs
    usable: bool
    reasons: list[str]
    small_slices: list[str]

    @property
    def identity(self) -> CalibrationIdentity:
        """What this calibration is about, as the provenance file records it."""
        return CalibrationIdentity(prompt=self.prompt, labels_hash=self.labels_hash, judge=self.judge,
                                   settings=self.settings.model_dump(), judge_settings_hash=self.judge_settings_hash,
                                   swap=self.swap)
