"""``codemode`` entry point: parse arguments, dispatch to one subcommand, map errors to exits.

Exit codes: 0 clean, 1 a verdict in --fail-on, 2 usage error (bad flag, bad config, not a
repository), 3 internal error. Subcommand modules import heavy things (the LLM stack,
PyGithub) inside ``run`` so that ``codemode check`` starts fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from codemode import __version__
from codemode.errors import FatalError

# subcommand name -> module under codemode.cli that has register(subparsers) and run(args)
COMMANDS = {
    "check": "check_cmd",
    "diff": "diff_cmd",
    "regen": "regen_cmd",
    "accept": "accept_cmd",
    "schema": "schema_cmd",
    "comment": "comment_cmd",
    "merge": "merge_cmd",
    "action": "action_cmd",
    "hook-regen": "hook_cmd",
}

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise FatalError(f"{self.prog}: {message}")

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse's formatter asks shutil for the width, and importing shutil (bz2, lzma)
        # costs a few ms of every run: add_argument builds a formatter to check metavars
        return self.formatter_class(prog=self.prog, width=_columns() - 2)  # type: ignore[call-arg]


def _columns() -> int:
    """``shutil.get_terminal_size().columns``, as argparse's formatter would take it."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    try:
        lines = int(os.environ["LINES"])
    except (KeyError, ValueError):
        lines = 0
    if columns <= 0 or lines <= 0:
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            size = os.terminal_size((80, 24))
        if columns <= 0:
            columns = size.columns or 80
    return columns


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that subcommand's module is imported (fast start)."""
    parser = _Parser(
        prog="codemode",
        description="Keep eval specs true: verify them against the real code, regenerate "
        "them from observed outputs, and report drift.",
    )
    parser.add_argument("--version", action="version", version=f"codemode {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            continue
        importlib.import_module(f"codemode.cli.{module_name}").register(sub)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named in argv, when it is a known one (the first non-option word)."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        if argv == ["--version"]:  # without building every subcommand's parser to say it
            print(f"codemode {__version__}")
            return EXIT_OK
        parser = build_parser(_command_of(argv))
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            parser.print_help()
            return EXIT_USAGE
        return int(args.run(args))
    except FatalError as exc:
        print(f"codemode: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("codemode: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception:  # the one place an unexpected error becomes exit 3
        import traceback  # only here: every run would pay for it (linecache, tokenize)

        traceback.print_exc()
        print(
            "codemode: internal error (exit 3); please report it with the traceback above",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
