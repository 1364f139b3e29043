"""Running a DVC stage script: a bad input prints one clean message and exits non-zero."""

from __future__ import annotations

import sys
from collections.abc import Callable

from assay.core.errors import AssayError


def run_stage(name: str, body: Callable[[], None]) -> None:
    """Call ``body``; on :class:`AssayError` print ``stage NAME: message`` to stderr and exit with its code."""
    try:
        body()
    except AssayError as error:
        print(f"stage {name}: {error}", file=sys.stderr)
        sys.exit(error.exit_code)
