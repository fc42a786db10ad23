"""``codemode worker stop | status``: the repository's warm worker (the hook's, #20)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "worker",
        help="stop or show the warm worker that repeat hook runs fork from",
        description="The pre-commit path keeps a worker per repository between runs, which "
        "has imported the project's third-party dependencies (never the project's own "
        "modules). `stop` ends it, and the hook command's resident parent (the next hook run "
        "starts new ones); `status` shows it.",
    )
    p.add_argument(
        "action",
        choices=("stop", "status"),
        help="stop: end it (the next hook run starts another); status: show it",
    )
    p.add_argument(
        "--root", type=Path, help="the project root (default: found from the current dir)"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from codemode.cachedir import cache_folder
    from codemode.config import find_root
    from codemode.worker.warm_client import ask_all

    root = find_root(args.root or Path.cwd())
    answers = ask_all(cache_folder(root), args.action)
    if args.action == "stop":
        from codemode.resident import stop_all

        stop_all(str(cache_folder(root)))  # the hook's resident parent too (#36)
        pids = [str(a["stopped"]) for a in answers if "stopped" in a]
        if pids:
            print(f"codemode: stopped the warm worker (pid {', '.join(pids)})")
        else:
            print("codemode: no warm worker is running for this repository")
        return 0
    if not answers:
        print("codemode: no warm worker is running for this repository")
    for a in answers:
        sys.stdout.write(
            f"pid {a.get('pid')}: {a.get('python')}, {a.get('modules')} modules imported, "
            f"{a.get('runs')} runs now, idle {a.get('idle')} s ({a['folder']})\n"
        )
    return 0
