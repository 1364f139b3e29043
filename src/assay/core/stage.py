"""Running a DVC stage script: a bad input prints one clean message and exits non-zero."""

from __future__ import annotations

import sys
from collections.abc import Callable

from assay.core.errors import INTERRUPTED, INTERRUPTED_EXIT, AssayError
from assay.core.pin import check_pin


def run_stage(name: str, body: Callable[[], None]) -> None:
    """Call ``body``; on :class:`AssayError` print ``stage NAME: message`` to stderr and exit with its code.

    Ctrl-c prints one line instead of a traceback and exits 130, so DVC reports the stage as failed.
    A project that pins another assay version than the installed one is refused before ``body`` runs
    (:func:`assay.core.pin.check_pin`).
    """
    try:
        check_pin(".")
        body()
    except AssayError as error:
        print(f"stage {name}: {error}", file=sys.stderr)
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        print(f"stage {name}: {INTERRUPTED}", file=sys.stderr)
        sys.exit(INTERRUPTED_EXIT)
