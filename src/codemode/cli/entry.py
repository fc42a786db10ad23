"""The ``codemode`` console script: the hook's path through the repository's resident
process when one is listening (``codemode.resident``, #36), otherwise ``cli.main.main`` here.

Imports nothing of codemode's beyond ``resident`` before it knows which: a run the resident
process does pays for an interpreter's start-up and a socket, not for codemode's imports.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # not `typing` itself: the resident client's run never imports it
    from collections.abc import Sequence
    from typing import NoReturn


def main(argv: Sequence[str] | None = None) -> int:
    from codemode import resident

    args = list(sys.argv[1:] if argv is None else argv)
    code = resident.run(args)
    if code is not None:
        return code
    from codemode.cli.main import main as run_here

    code = run_here(args)
    pid = resident.start_after(args)
    orphans = sys.modules.get("codemode.worker.orphans")
    if pid is not None and orphans is not None:
        orphans.SPARED.add(pid)  # not one of the run's leftovers, which it kills at exit
    return code


def console() -> NoReturn:
    """The console script: ``main``, then the process ends without the interpreter's teardown
    (cli/process_exit.py)."""
    from codemode.cli.process_exit import leave

    leave(main())
