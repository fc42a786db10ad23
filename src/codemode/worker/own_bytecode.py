"""The worker's own modules compiled by the parent, which may write their bytecode (#36).

The worker runs with ``PYTHONDONTWRITEBYTECODE`` (it must leave no ``__pycache__`` in a
staged tree's copy) behind a wall that lets it write nothing outside scratch. So a module of
this folder that only the worker imports (``leaks``, ``children``, ``landlock``, ...) was
compiled from source at every worker's start wherever codemode's install held no bytecode for
it: an editable install, a checkout on ``sys.path`` (a wheel's install compiles them). That
was 10-20 ms of every worker's start, twice in a ``check --jobs 2``. The parent writes the
bytecode once, as importing the module would, without running it; only for a worker running
this very interpreter (another version reads other files).
"""

from __future__ import annotations

import os
import sys

_DONE: list[str] = []  # the interpreters whose bytecode this process made sure of


def compile_worker_modules(python: str) -> None:
    """Write the missing or stale bytecode of this folder's modules, for a worker that runs
    ``python``; quick (a stat per file) when it is there already."""
    if sys.dont_write_bytecode or python in _DONE:
        return
    _DONE.append(python)
    try:
        if os.path.realpath(python) != os.path.realpath(sys.executable):
            return
    except OSError:
        return
    from importlib.machinery import SourceFileLoader
    from importlib.util import cache_from_source

    here = os.path.dirname(os.path.abspath(__file__))
    for entry in os.scandir(here):
        if not entry.name.endswith(".py"):
            continue
        try:
            cached = os.stat(cache_from_source(entry.path)).st_mtime_ns
            if cached >= entry.stat().st_mtime_ns:
                continue
        except OSError:
            pass  # none yet
        try:  # importlib's own check and write: the file a later import reads
            name = f"_codemode_worker.{entry.name[:-3]}"
            SourceFileLoader(name, entry.path).get_code(name)
        except (OSError, SyntaxError, ImportError):
            continue  # a worker that imports it says what is wrong
