"""A real worker on a module that leaves marks beside itself, for the tests that watch a
request run before its replies are asked for (``Worker.run_blocks``, ``verify_pieces``)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from codemode.effects import Allowance, Effects, absolute_globs
from codemode.worker.pool import Worker
from codemode.worker.python import find_python


@contextmanager
def marking_worker(root: Path, modules: dict[str, str]) -> Iterator[Worker]:
    """A started worker on ``root``, where ``modules`` (file name: source) are written; what
    they write under ``root`` is allowed on purpose (#31)."""
    for name, source in modules.items():
        (root / name).write_text(source)
    allowed = Effects(Allowance(absolute_globs(["**"], root)))
    w = Worker(find_python(root, None), root, (), effects=allowed)
    w.start()
    try:
        yield w
    finally:
        w.close()


def appears(path: Path, seconds: float = 20.0) -> bool:
    """Whether ``path`` exists within ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists():
            return True
        time.sleep(0.01)
    return False
