"""The ``assay`` command line. Each subcommand lives in its own module under ``assay.cli``.

A subcommand module defines ``register(subparsers)``, which adds its parser (with help text) and
sets ``func`` to a function taking the parsed args and returning an exit code. Heavy libraries are
imported inside those functions, so ``assay --help`` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from assay.core.errors import INTERRUPTED, INTERRUPTED_EXIT, AssayError

# module names under assay.cli, in the order `assay --help` lists them
COMMANDS = ["init", "add", "pipeline", "corpus", "validate", "summary", "exp", "agreement", "calibration_status", "gate",
            "verify", "ci", "queue", "ir_eval", "study", "judge", "power"]


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every registered subcommand."""
    from assay import __version__

    parser = argparse.ArgumentParser(prog="assay", description="Reproducible evaluation of RAG systems and LLM judges.")
    parser.add_argument("--version", action="version", version=f"assay {__version__}",
                        help="print the installed assay-eval version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"assay.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point: run a subcommand; an AssayError prints one clean message and exits non-zero (ctrl-c: 130)."""
    args = build_parser().parse_args(argv)
    try:
        code = args.func(args)
    except AssayError as error:
        print(f"assay {args.command}: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print(f"assay {args.command}: {INTERRUPTED}", file=sys.stderr)
        return INTERRUPTED_EXIT
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
