"""Where CI may send the judge's key, and the rejudge audit CI runs: endpoint, seed and tolerance from outside the change.

A pull request controls params.yaml. If CI took the judge's endpoint from there, a change could
point ``judge.openai.base_url`` at a server it runs and receive the key with every request, and
that server's agreeing verdicts would pass the audit (issue 31, attack 4). If it took the seed and
the tolerance from there, the audited sample would be predictable and the tolerance could accept
anything (attack 3). So, in ``assay ci``:

- the *trusted endpoint* (``kind``, ``base_url``, ``model``, ``api_key_env``) is the base ref's
  ``judge`` section, with ``base_url`` and ``model`` replaced by :data:`BASE_URL_ENV` and
  :data:`MODEL_ENV` when the CI environment sets them (:func:`trusted_endpoint`);
- with a key present in the environment (the variable either side names), a change whose endpoint
  differs from the trusted one is refused before any request (:func:`check_endpoint`);
- the rejudge sample is drawn from :data:`SEED_ENV` (the workflow passes ``github.run_id``, or a
  secret), never a flag the change could fix, and also holds every stored reply that changed
  against the base (:func:`changed_replies`); its tolerance is the base's
  ``judge.rejudge_tolerance`` (0 without a base), and the live judge is built from the base's
  ``judge.openai`` settings (:func:`run_rejudge`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.errors import AssayError

if TYPE_CHECKING:
    from assay.judge.audit import Rejudged

SEED_ENV = "ASSAY_CI_SEED"
BASE_URL_ENV = "ASSAY_JUDGE_BASE_URL"
MODEL_ENV = "ASSAY_JUDGE_MODEL"


class EndpointRefused(AssayError):
    """The judge's key would go somewhere the base branch (or the CI environment) did not say (exit 2)."""

    exit_code = 2


class SeedMissing(AssayError):
    """``assay ci --rejudge`` without the seed CI provides (exit 2)."""

    exit_code = 2


@dataclass(frozen=True)
class Endpoint:
    """Where a judge sends its requests, and which environment variable holds its key."""

    kind: str
    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None

    def __str__(self) -> str:
        if self.kind != "openai":
            return f"judge.kind {self.kind}"
        return f"{self.base_url} model {self.model} (key from {self.api_key_env or 'no variable'})"

    def where(self) -> tuple[str, str | None, str | None, str | None]:
        """The fields that decide where the key goes."""
        return (self.kind, self.base_url, self.model, self.api_key_env)


def _section(params: Mapping[str, Any] | None, name: str) -> dict[str, Any]:
    value = (params or {}).get(name)
    return value if isinstance(value, dict) else {}


def endpoint_of(params: Mapping[str, Any] | None) -> Endpoint:
    """The endpoint params.yaml (parsed) sets; ``fake`` when there is no judge section.

    >>> str(endpoint_of({"judge": {"kind": "openai", "openai": {"base_url": "http://x/v1", "model": "m"}}}))
    'http://x/v1 model m (key from no variable)'
    """
    judge = _section(params, "judge")
    openai = _section(judge, "openai")

    def text(value: Any) -> str | None:
        return value if isinstance(value, str) else None

    return Endpoint(str(judge.get("kind", "fake")), text(openai.get("base_url")), text(openai.get("model")),
                    text(openai.get("api_key_env")))


def trusted_endpoint(base: Mapping[str, Any] | None, env: Mapping[str, str]) -> Endpoint | None:
    """The base ref's endpoint, with :data:`BASE_URL_ENV` / :data:`MODEL_ENV` from ``env`` over it; ``None`` without either."""
    start = endpoint_of(base) if base is not None else None
    url, model = env.get(BASE_URL_ENV) or None, env.get(MODEL_ENV) or None
    if start is None and not (url and model):
        return None
    if start is None:
        return Endpoint("openai", url, model, None)
    if url or model:
        return Endpoint("openai", url or start.base_url, model or start.model, start.api_key_env)
    return start


def keys_present(endpoints: list[Endpoint | None], env: Mapping[str, str]) -> list[str]:
    """The key variables the endpoints name that are set (non-empty) in ``env``, sorted."""
    return sorted({e.api_key_env for e in endpoints if e and e.api_key_env and env.get(e.api_key_env)})


def check_endpoint(head: Mapping[str, Any], base: Mapping[str, Any] | None, env: Mapping[str, str]) -> Endpoint | None:
    """The endpoint CI may send the key to; refuse a change that moves it while a key is present.

    Returns ``None`` when no key variable either side names is set (nothing can leak, no rejudge).

    Raises:
        EndpointRefused: a key is present and there is no base or CI endpoint to trust, or the
            change's endpoint differs from the trusted one (nothing has been sent yet).
    """
    here = endpoint_of(head)
    base_endpoint = endpoint_of(base) if base is not None else None
    if not keys_present([here, base_endpoint], env):
        return None
    trusted = trusted_endpoint(base, env)
    if trusted is None:
        raise EndpointRefused(f"a judge key is present but nothing outside the change says where it may go (fix: pass "
                              f"--base REF, or set {BASE_URL_ENV} and {MODEL_ENV} in the CI environment)")
    if here.kind == "openai" and here.where() != trusted.where():
        raise EndpointRefused(f"the change moves the judge endpoint to {here}; the key goes only to {trusted}, as the "
                              "base branch (or the CI environment) says, so nothing was sent (fix: merge the endpoint "
                              f"change on its own first, or set {BASE_URL_ENV} and {MODEL_ENV} in CI)")
    return trusted


def ci_seed(env: Mapping[str, str]) -> int:
    """The rejudge seed from :data:`SEED_ENV`: any text (a run id, a secret), hashed to a 64-bit integer.

    >>> ci_seed({"ASSAY_CI_SEED": "12345"}) == ci_seed({"ASSAY_CI_SEED": "12345"})
    True

    Raises:
        SeedMissing: the variable is unset or empty.
    """
    text = env.get(SEED_ENV, "")
    if not text:
        raise SeedMissing(f"--rejudge needs the seed CI provides in {SEED_ENV} (fix: set it in the workflow, e.g. "
                          f"`{SEED_ENV}: ${{{{ github.run_id }}}}` or a secret), so the change cannot know the sample")
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def changed_replies(head_rows: list[dict], base_rows: list[dict]) -> set[tuple[str, str]]:
    """``(pair, order)`` of every head reply row that is new or differs from the base's row for it.

    >>> sorted(changed_replies([{"pair": "p", "order": "ab", "winner": "first"}, {"pair": "q", "order": "ab"}],
    ...                        [{"pair": "p", "order": "ab", "winner": "second"}, {"pair": "q", "order": "ab"}]))
    [('p', 'ab')]
    """
    before = {(str(r.get("pair")), str(r.get("order"))): r for r in base_rows}
    return {(str(r.get("pair")), str(r.get("order"))) for r in head_rows
            if before.get((str(r.get("pair")), str(r.get("order")))) != r}


def _rows(text: str | None) -> list[dict]:
    import json

    rows = []
    for line in (text or "").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue  # a broken line is the judge stage's problem; the head's is refused when replayed
        if isinstance(row, dict):
            rows.append(row)
    return rows


def run_rejudge(root: Path, trusted: Endpoint, base: Mapping[str, Any] | None, base_ref: str | None, n: int,
                seed: int) -> Rejudged:
    """Re-ask ``n`` seeded stored requests plus every changed one from the trusted endpoint.

    The live judge takes the base's ``judge.openai`` settings (timeouts, retries) with the trusted
    endpoint over them; the stored replies, pairs and prompt are the change's (what is audited).
    The tolerance is the base's ``judge.rejudge_tolerance`` (0 without a base).
    """
    from assay.core.params import load_section
    from assay.core.paths import input_paths
    from assay.data.pairs import load_pairs
    from assay.judge.audit import rejudge
    from assay.judge.factory import make_judge
    from assay.judge.params import JudgeParams
    from assay.judge.prompts import load_prompt
    from assay.judge.replay import ReplayJudge
    from assay.judge.replies import REPLIES_DIR
    from assay.release.policy import read_at

    here = os.getcwd()
    os.chdir(root)  # params paths are relative to the repository root
    try:
        params = load_section("judge", JudgeParams)
        paths = input_paths()
        pairs = sorted(load_pairs(paths.pairs), key=lambda p: p.id)
        prompt = load_prompt(params.prompt_file(paths.prompts))
        stored = ReplayJudge.open(REPLIES_DIR, pairs)
        base_judge = _section(base, "judge")
        settings = {**_section(base_judge, "openai"),
                    "base_url": trusted.base_url, "model": trusted.model, "api_key_env": trusted.api_key_env}
        live = make_judge(JudgeParams(kind="openai", openai=settings), "the trusted judge endpoint")
        tolerance = float(base_judge.get("rejudge_tolerance", 0.0)) if base is not None else 0.0
        rel = f"{REPLIES_DIR}/{prompt.name}_v{prompt.version}.jsonl"
        head_text = Path(rel).read_text(encoding="utf-8") if Path(rel).is_file() else None
        also = changed_replies(_rows(head_text), _rows(read_at(".", base_ref, rel) if base_ref else None))
        return rejudge(pairs, prompt, stored, live, n, seed, params.swap, tolerance, also)
    finally:
        os.chdir(here)
