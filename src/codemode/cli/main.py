"""``codemode`` entry point: parse arguments, dispatch to one subcommand, map errors to exits.

Exit codes: 0 clean, 1 a verdict in --fail-on, 2 usage error (bad flag, bad config, not a
repository), 3 internal error. Subcommand modules import heavy things (the LLM stack,
PyGithub) inside ``run`` so that ``codemode check`` starts fast.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO, cast

from codemode import __version__
from codemode.errors import EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, FatalError
from codemode.logsafe import LogSafeStream, inert, log_safe

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
    "worker": "worker_cmd",
}

# CI plumbing: run by the Action, the matrix merge step and the opt-in hook, rarely by hand;
# `codemode --help` lists them apart so the user's own commands come first.
PLUMBING = ("action", "comment", "merge", "hook-regen")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # Extra arguments are reported by the top parser: show the subcommand's usage.
        chosen = _only_subparser(self) or self
        chosen.print_usage(sys.stderr)
        # main() adds "codemode: error:"; name the subcommand, not the program a second time
        where = chosen.prog.removeprefix("codemode").strip()
        raise FatalError(f"{where + ': ' if where else ''}{message}{self._suggest(message)}")

    def _suggest(self, message: str) -> str:
        """ " (did you mean '--staged'?)" for an unknown option, from every option in reach."""
        prefix = "unrecognized arguments: "
        if not message.startswith(prefix):
            return ""
        unknown = message[len(prefix) :].split()[0].split("=")[0]
        if not unknown.startswith("-"):
            return ""
        return _did_you_mean(unknown, _option_strings(self))

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse's formatter asks shutil for the width, and importing shutil (bz2, lzma)
        # costs a few ms of every run: add_argument builds a formatter to check metavars
        return self.formatter_class(prog=self.prog, width=terminal_columns() - 2)  # type: ignore[call-arg]


def terminal_columns() -> int:
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


def _only_subparser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and len(action.choices) == 1:
            only: argparse.ArgumentParser = next(iter(action.choices.values()))
            return only
    return None


def _did_you_mean(word: str, known: Sequence[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _option_strings(parser: argparse.ArgumentParser) -> list[str]:
    out = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out += _option_strings(sub)
    return out


def _unknown_command(argv: Sequence[str]) -> str | None:
    """The first word when it names no command: "unknown command 'chek' (did you mean ...)"."""
    for arg in argv:
        if arg.startswith("-"):
            if arg in ("-h", "--help"):
                return None
            continue
        if arg in COMMANDS:
            return None
        return (
            f"unknown command {arg!r}{_did_you_mean(arg, list(COMMANDS))}; "
            "`codemode --help` lists the commands"
        )
    return None


def _group_plumbing(parser: argparse.ArgumentParser, sub: Any) -> None:
    """List the user's commands under COMMAND, and the CI plumbing in a section of its own."""
    plumbing = [a for a in sub._choices_actions if a.dest in PLUMBING]
    sub._choices_actions[:] = [a for a in sub._choices_actions if a.dest not in PLUMBING]
    if plumbing:
        width = max(len(a.dest) for a in plumbing)
        parser.epilog = (
            "CI plumbing (run by the GitHub Action and the hooks):\n"
            + "\n".join(f"  {a.dest:<{width}}  {a.help}" for a in plumbing)
            + "\n\nRun `codemode COMMAND --help` for a command's options."
        )


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that subcommand's module is imported (fast start)."""
    parser = _Parser(
        prog="codemode",
        description="Keep eval specs true: verify them against the real code, regenerate "
        "them from observed outputs, and report drift.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"codemode {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            continue
        importlib.import_module(f"codemode.cli.{module_name}").register(sub)
    _group_plumbing(parser, sub)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named in argv, when it is a known one (the first non-option word)."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return _main(argv)
    # In a job log every line printed may be read as a workflow command: nothing printed
    # from data (a diff, a message, a traceback) starts one; ours go through emit_command (#11).
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = cast(TextIO, LogSafeStream(out)), cast(TextIO, LogSafeStream(err))
    try:
        return _main(argv)
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        sys.stdout, sys.stderr = out, err


def _main(argv: Sequence[str] | None) -> int:
    from codemode.signals import Stopped, stop_on_signals

    restore = stop_on_signals()
    try:
        return _dispatch(argv)
    except Stopped as exc:  # raised where it landed; every finally on the way has run
        with contextlib.suppress(OSError, ValueError):
            print(exc.line(), file=sys.stderr)
        return exc.exit_code
    finally:
        restore()


def _dispatch(argv: Sequence[str] | None) -> int:
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        if argv == ["--version"]:  # without building every subcommand's parser to say it
            print(f"codemode {__version__}")
            return EXIT_OK
        unknown = _unknown_command(argv)
        if unknown:
            raise FatalError(unknown)
        parser = build_parser(_command_of(argv))
        args = parser.parse_args(argv)
        if not getattr(args, "run", None):
            parser.print_help()
            return EXIT_USAGE
        return int(args.run(args))
    except FatalError as exc:
        print(log_safe(inert(f"codemode: error: {exc}")), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("codemode: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception:  # the one place an unexpected error becomes exit 3
        import traceback  # only here: every run would pay for it (linecache, tokenize)

        # A message can come from data (a spec, a function's output): no line of it may
        # reach the job log as a workflow command (#11).
        sys.stderr.write(log_safe(inert(traceback.format_exc())))
        print(
            "codemode: internal error (exit 3); please report it with the traceback above",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
