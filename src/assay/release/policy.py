"""The policy, pre-registered against the base branch: what a change does to it, and whether CI lets it through.

The *policy* is what decides a release: the parts (``parts``), the plan (every metric's gate,
threshold, direction, no-regression rule and minimum n; the review-agreement requirement; the
dataset; params ``plan.strict``), params ``gate``, params ``judge`` (its usability rule, the
rejudge tolerance, its prompt and its endpoint), and the public key review snapshots are checked
against (:data:`SIGNING_KEY`; a change of key cannot be ranked, so with snapshots changed in the
same change it is refused: CI in effect takes the key from the base). :func:`policy_changes` lists every difference between
the base ref and the working tree, each ranked as *tightens* or *loosens*; a change assay cannot rank
(a metric's direction, the judge's prompt, kind or endpoint, another judge setting) counts as
loosening. :func:`other_changes` lists what else the change touches: any tracked file except the
policy files, the pipeline's outputs, dvc.lock and the documentation, and any params section that is
not policy. :func:`policy_verdict` refuses a loosening that comes with another change: "merge the
plan change on its own first", so a worse system is never judged by a rule written for it (issue
31, attack 7). A policy change on its own passes (it is listed); a tightening passes with a note.

Reading the base needs its commit and the history up to it: a shallow clone is refused first
(:func:`assay.core.history.require_history`).
"""

from __future__ import annotations

import math
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from assay.core.errors import AssayError
from assay.release.verify import OUTPUT_FOLDERS

Effect = Literal["tightens", "loosens"]
#: params sections that are policy (the rest are the system and its data)
POLICY_SECTIONS = ("parts", "plan", "gate", "judge")
#: tracked paths whose change is neither policy nor system nor data
NEUTRAL_PREFIXES = (*(f"{folder}/" for folder in OUTPUT_FOLDERS), "docs/")
NEUTRAL_FILES = ("dvc.lock", "README.md", ".gitignore")
#: the public key review snapshots are checked against (assay.queue.signature): policy, taken from the base
SIGNING_KEY = "data/reviews/queue_key.pub.json"
#: metric fields and their defaults (assay.data.plan.Metric)
METRIC_FIELDS = {"gate": "report", "threshold": None, "direction": "higher", "no_regression": False, "min_n": 10}


class PolicyRefused(AssayError):
    """The policy is loosened in the same change as the system or its data (exit 2)."""

    exit_code = 2


class BaseUnreadable(AssayError):
    """The base ref, or a policy file in it, cannot be read (exit 2)."""

    exit_code = 2


@dataclass(frozen=True)
class PolicyChange:
    """One policy setting that differs from the base: where, the two values, and which way it moves."""

    what: str
    before: Any
    after: Any
    effect: Effect

    def __str__(self) -> str:
        return f"{self.what}: {_show(self.before)} -> {_show(self.after)} ({self.effect})"


def _show(value: Any) -> str:
    return "(absent)" if value is None else repr(value) if isinstance(value, str) else str(value)


def _higher(before: Any, after: Any) -> Effect:
    return "tightens" if _num(after) > _num(before) else "loosens"


def _lower(before: Any, after: Any) -> Effect:
    return "tightens" if _num(after) < _num(before) else "loosens"


def _num(value: Any) -> float:
    """A number for ranking; anything else (a typo, nan) ranks as loosening both ways."""
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return math.nan
    return float(value)


def _order(*ranks: Any) -> Callable[[Any, Any], Effect]:
    def rank(before: Any, after: Any) -> Effect:
        if before in ranks and after in ranks and ranks.index(after) > ranks.index(before):
            return "tightens"
        return "loosens"
    return rank


#: field name -> how a change of it is ranked; a field not here cannot be ranked (it loosens)
RANKS: dict[str, Callable[[Any, Any], Effect]] = {
    **{name: _higher for name in ("min_human_kappa", "min_pairs", "min_kappa", "min_slice_agreement", "min_agreement",
                                  "min_n")},
    **{name: _lower for name in ("max_holdout_looks", "max_invalid_share", "max_flip_share", "rejudge_tolerance",
                                 "min_slice_n")},
    **{name: _order(False, True) for name in ("require_judge", "require_agreement", "no_regression", "strict", "swap")},
    "gate": _order("report", "block"),
    "usability": _order("point", "conservative"),
    "use": _order("estimate", "lower_bound"),
}


def _threshold(before: Any, after: Any, direction: str) -> Effect:
    if before is None:
        return "tightens"
    if after is None:
        return "loosens"
    return _higher(before, after) if direction == "higher" else _lower(before, after)


def _mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def flatten(params: dict, plan: dict) -> dict[str, Any]:
    """The policy of one commit as ``{setting: value}``, defaults filled in, so a default written out is no change.

    Metrics are keyed by name (``plan metric answer_correct: threshold``); a value that is not of the
    expected shape is kept as it is (it then differs and cannot be ranked).
    """
    from assay.judge.params import JudgeParams
    from assay.release.checks import GateParams

    flat: dict[str, Any] = {"parts": tuple(params.get("parts") or ())}
    plan_section = _mapping(params.get("plan"))
    flat["params plan.strict"] = plan_section.get("strict", False)
    for name, model in (("gate", GateParams), ("judge", JudgeParams)):
        section = _mapping(params.get(name))
        values = {**model.model_construct().model_dump(), **section}
        for key, value in sorted(values.items()):
            if key == "openai":
                for sub, item in sorted((value or {}).items()):
                    flat[f"params judge.openai.{sub}"] = item
            else:
                flat[f"params {name}.{key}"] = tuple(value) if isinstance(value, list) else value
    for metric in plan.get("metrics") or []:
        if isinstance(metric, dict):
            for key, default in METRIC_FIELDS.items():
                flat[f"plan metric {metric.get('name')}: {key}"] = metric.get(key, default)
    review = plan.get("review_agreement")
    if isinstance(review, dict):
        for key in ("queues", "min_agreement", "use"):
            value = review.get(key, "lower_bound" if key == "use" else None)
            flat[f"plan review_agreement.{key}"] = tuple(value) if isinstance(value, list) else value
    dataset = plan.get("dataset")
    flat["plan dataset.path"] = dataset.get("path") if isinstance(dataset, dict) else dataset
    return flat


def _rank(key: str, before: Any, after: Any, head: dict[str, Any]) -> Effect:
    if key == "parts":
        return "tightens" if set(after) > set(before) else "loosens"
    if before is None and key.startswith("plan metric ") and key.endswith(": gate"):
        return "tightens"  # a metric added
    if key.startswith("plan metric ") and key.endswith(": threshold"):
        direction_key = key[: -len("threshold")] + "direction"
        return _threshold(before, after, head.get(direction_key, "higher"))
    field = key.rsplit(".", 1)[-1].rsplit(": ", 1)[-1]
    if key.startswith("params judge.openai.") or field not in RANKS:
        return "loosens"
    return RANKS[field](before, after)


def policy_changes(base: dict[str, Any], head: dict[str, Any]) -> list[PolicyChange]:
    """Every setting of :func:`flatten` that differs between ``base`` and ``head``, sorted by name.

    A metric that disappears loosens (each of its settings is listed); one that appears tightens
    when it blocks (its settings are listed).

    >>> [str(c) for c in policy_changes({"params gate.min_human_kappa": 0.6}, {"params gate.min_human_kappa": 0.5})]
    ['params gate.min_human_kappa: 0.6 -> 0.5 (loosens)']
    """
    changes = []
    for key in sorted(set(base) | set(head)):
        before, after = base.get(key), head.get(key)
        if before == after:
            continue
        if key.startswith("plan metric ") and key not in head:
            effect: Effect = "loosens"  # a metric removed
        elif key.startswith("plan metric ") and key not in base:
            gate_key = key.rsplit(": ", 1)[0] + ": gate"
            effect = "tightens" if head.get(gate_key) == "block" else "loosens"
        else:
            effect = _rank(key, before, after, head)
        changes.append(PolicyChange(key, before, after, effect))
    return changes


def _git(root: str, *args: str) -> subprocess.CompletedProcess:
    from assay.release.verify import _env

    return subprocess.run(["git", *args], cwd=root, env=_env(), capture_output=True, text=True)


def read_at(root: str, ref: str, rel: str) -> str | None:
    """The text of ``rel`` at git ``ref``; ``None`` when the file does not exist there.

    Raises:
        BaseUnreadable: ``ref`` is not a commit of this repository.
    """
    if _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").returncode != 0:
        raise BaseUnreadable(f"--base {ref!r} is not a commit here (fix: fetch it, e.g. `git fetch origin main`, "
                             "and check out with fetch-depth: 0)")
    shown = _git(root, "show", f"{ref}:{rel}")
    return shown.stdout if shown.returncode == 0 else None


def parse_mapping(text: str | None, where: str) -> dict:
    """A YAML mapping from ``text`` (``{}`` for ``None``), aliases refused so a hostile file cannot grow without bound.

    Raises:
        BaseUnreadable: not YAML, not a mapping, or it uses aliases.
    """
    import yaml

    if text is None:
        return {}
    try:
        events = list(yaml.parse(text, Loader=yaml.SafeLoader))
        if any(isinstance(e, yaml.AliasEvent) for e in events):
            raise BaseUnreadable(f"{where}: YAML aliases are refused in policy files (fix: write the values out)")
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise BaseUnreadable(f"{where}: not valid YAML ({str(error).splitlines()[0]})") from None
    if not isinstance(data, dict):
        raise BaseUnreadable(f"{where}: expected a mapping")
    return data


@dataclass(frozen=True)
class Policies:
    """The parsed params and plan of the base ref and of the working tree."""

    base_params: dict
    base_plan: dict
    head_params: dict
    head_plan: dict
    plan_files: tuple[str, str]  # the plan's path at base and at head
    base_key: str | None = None  # the review snapshots' public key file (:data:`SIGNING_KEY`) at base
    head_key: str | None = None


def read_policies(root: str, ref: str) -> Policies:
    """params.yaml and the plan (at ``inputs.plan``, default ``data/plan.yaml``) at ``ref`` and in the working tree."""
    from pathlib import Path

    def plan_path(params: dict) -> str:
        inputs = params.get("inputs")
        found = inputs.get("plan") if isinstance(inputs, dict) else None
        return found if isinstance(found, str) else "data/plan.yaml"

    base_params = parse_mapping(read_at(root, ref, "params.yaml"), f"{ref}:params.yaml")
    here = Path(root) / "params.yaml"
    head_params = parse_mapping(here.read_text(encoding="utf-8") if here.is_file() else None, "params.yaml")
    base_file, head_file = plan_path(base_params), plan_path(head_params)
    head_plan_path = Path(root) / head_file
    head_key = Path(root) / SIGNING_KEY
    return Policies(base_params, parse_mapping(read_at(root, ref, base_file), f"{ref}:{base_file}"), head_params,
                    parse_mapping(head_plan_path.read_text(encoding="utf-8") if head_plan_path.is_file() else None,
                                  head_file), (base_file, head_file), read_at(root, ref, SIGNING_KEY),
                    head_key.read_text(encoding="utf-8") if head_key.is_file() else None)


def other_changes(root: str, ref: str, policies: Policies) -> list[str]:
    """What the change does besides the policy: changed tracked files and params sections, sorted.

    Files: ``git diff --name-only REF`` (the working tree against the base) less params.yaml, the plan
    files, the outputs (:data:`NEUTRAL_PREFIXES`, :data:`NEUTRAL_FILES`).
    """
    diff = _git(root, "diff", "--name-only", "--no-renames", ref, "--")
    if diff.returncode != 0:
        raise BaseUnreadable(f"git diff against {ref!r} failed: {diff.stderr.strip()}")
    skip = {"params.yaml", SIGNING_KEY, *policies.plan_files, *NEUTRAL_FILES}
    files = [p for p in diff.stdout.splitlines()
             if p and p not in skip and not p.startswith(NEUTRAL_PREFIXES)]
    sections = sorted((set(policies.base_params) | set(policies.head_params)) - set(POLICY_SECTIONS))
    changed = [f"params.yaml section {name}" for name in sections
               if policies.base_params.get(name) != policies.head_params.get(name)]
    return sorted(files) + changed


@dataclass(frozen=True)
class PolicyReview:
    """Every policy change against the base, the other changes, and the verdict's note."""

    changes: list[PolicyChange]
    others: list[str]
    policies: Policies

    @property
    def loosened(self) -> list[PolicyChange]:
        """The changes that loosen (or cannot be ranked)."""
        return [c for c in self.changes if c.effect == "loosens"]

    @property
    def refused(self) -> bool:
        """True when a loosening comes with a system or data change."""
        return bool(self.loosened and self.others)

    def note(self) -> str:
        """One line saying what the review found."""
        if not self.changes:
            return "the policy is the base's"
        if self.refused:
            shown = ", ".join(self.others[:5]) + (" ..." if len(self.others) > 5 else "")
            return (f"the policy is loosened ({len(self.loosened)} of {len(self.changes)} changes) in the same change "
                    f"as a system or data change ({shown}): merge the plan change on its own first")
        if self.loosened:
            return "the policy is loosened, with no system or data change: it takes effect for later changes"
        return "the policy is tightened: the stricter rule applies to this change"


def _key_text(text: str | None) -> str | None:
    """The public key in a key file's text, for listing (the whole text when it is not the expected JSON)."""
    import json

    if text is None:
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return text.strip()
    if isinstance(found, dict) and isinstance(found.get("public_key"), str):
        return found["public_key"] + (" (synthetic)" if found.get("synthetic") else "")
    return text.strip()


def review_policy(root: str, ref: str) -> PolicyReview:
    """Compare the policy at ``ref`` with the working tree's; see the module docstring.

    Raises:
        HistoryMissing: ``root`` is a shallow clone (:func:`assay.core.history.require_history`).
        BaseUnreadable: ``ref`` is not a commit here.
    """
    from assay.core.history import require_history

    require_history(root, "--base")
    policies = read_policies(root, ref)
    base, head = flatten(policies.base_params, policies.base_plan), flatten(policies.head_params, policies.head_plan)
    base[f"review signing key {SIGNING_KEY}"] = _key_text(policies.base_key)
    head[f"review signing key {SIGNING_KEY}"] = _key_text(policies.head_key)
    changes = policy_changes(base, head)
    return PolicyReview(changes, other_changes(root, ref, policies) if changes else [], policies)
