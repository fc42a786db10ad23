"""``codemode action``: the GitHub Action's entry point (see action.yml and codemode.github.action).

Inputs come from ``INPUT_*`` variables, the scope from the event payload; ``--step`` says which
of the Action's two steps runs: ``verify`` (the project's code, no token) or ``deliver`` (the
comment and the push, no project code).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "action",
        help="the GitHub Action's entry point (reads INPUT_* variables)",
        description="Run as the GitHub Action: inputs come from INPUT_* environment "
        "variables, the scope from the event payload (GITHUB_EVENT_PATH).",
    )
    p.add_argument(
        "--step",
        choices=("verify", "deliver", "all"),
        default="all",
        help="verify: run the specs, write the report (give it no token); deliver: push the "
        "specs and post the comment from the report (runs no project code); all: both",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from codemode.github.action import run_action

    return run_action(args.step, os.environ, Path.cwd())
