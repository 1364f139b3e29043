"""Building the judge that params.yaml describes, and naming it without building it.

:func:`make_judge` gives a working judge (the fake, or a client for an OpenAI-compatible endpoint);
:func:`judge_identity` gives the identity that judge has before any reply, without the API key
and without the network, so the gate can check a calibration's freshness on a machine with no key.
The params model itself lives in :mod:`assay.judge.params` (re-exported here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from assay.core.errors import InputError
from assay.core.records import problems_from
from assay.judge.base import Judge, JudgeIdentity
from assay.judge.fake import FakeJudge
from assay.judge.params import JudgeParams

if TYPE_CHECKING:
    from assay.judge.openai import OpenAIJudgeParams

__all__ = ["JudgeParams", "judge_identity", "make_judge"]


def _openai_settings(params: JudgeParams, where: str) -> OpenAIJudgeParams:
    from assay.judge.openai import OpenAIJudgeParams

    try:
        return OpenAIJudgeParams.model_validate(params.openai or {})
    except ValidationError as error:
        raise InputError(problems_from(error, where, None, OpenAIJudgeParams, prefix="judge.openai")) from None


def make_judge(params: JudgeParams, where: str = "params.yaml") -> Judge:
    """The judge the params describe.

    ``fake`` gives the preset :class:`~assay.judge.fake.FakeJudge`. ``openai`` imports
    ``assay.judge.openai`` only now (so the fake path never loads an HTTP client) and builds
    ``OpenAIJudge(OpenAIJudgeParams.model_validate(params.openai or {}))``.

    Raises:
        InputError: bad ``judge.openai`` settings, named as ``judge.openai.<field>`` in ``where``.
        MissingApiKey: ``judge.openai.api_key_env`` names a variable that is unset or empty.
    """
    if params.kind == "fake":
        return FakeJudge.from_preset(params.preset)
    from assay.judge.openai import OpenAIJudge

    return OpenAIJudge(_openai_settings(params, where))


def judge_identity(params: JudgeParams, where: str = "params.yaml") -> JudgeIdentity:
    """The identity :func:`make_judge` ``(params).identity`` has before any reply.

    Needs neither the API key nor the network: an ``openai`` judge's key variable may be unset (the
    identity never holds the key). ``model_version`` is ``None`` here, as in a judge that has not
    been asked anything yet.

    Raises:
        InputError: bad ``judge.openai`` settings or an unknown preset, as :func:`make_judge`.
    """
    if params.kind == "fake":
        return FakeJudge.from_preset(params.preset).identity
    from assay.judge.openai import OpenAIJudge

    return OpenAIJudge(_openai_settings(params, where), require_key=False).identity
