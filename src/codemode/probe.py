"""Count the work a run does, for tests and benchmarks: with ``CODEMODE_PROBE=FILE`` set, each
counted step (the new side materialized, the change analyzed, a spec file read) appends a
line ``step<TAB>detail`` to FILE, from whichever process of the run does it (the behaviour
diff's fork too). Unset, a count costs one lookup in the environment.

It exists so that "computed once per run" (#34) is something a test can see through the real
CLI, not a claim: ``tests/behaviour/test_once_per_run.py`` reads the lines.
"""

from __future__ import annotations

import os

ENV = "CODEMODE_PROBE"


def count(step: str, detail: str = "") -> None:
    path = os.environ.get(ENV)
    if not path:
        return
    line = f"{step}\t{detail}\n".encode("utf-8", "surrogateescape")
    # O_APPEND: lines from the run's processes never overwrite each other
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
