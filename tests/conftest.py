"""Shared by the verification tests: real example projects copied into a temp dir per test.

Only fixtures live here (nothing autouse): each helper's folder keeps its own conftest.
"""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from gitkit import GIT_ENV, GIT_LEAKS

DATA = Path(__file__).parent / "data"

# The hook's path keeps a warm worker per repository between runs (#20): in a test's temp
# repository it would outlive the test by its idle time. Off for the suite; the tests of the
# warm worker (tests/worker/test_warm.py) ask for it, and stop what they started.
os.environ.setdefault("CODEMODE_WARM", "0")

# A suite started in the background (a non-interactive shell's `cmd &`, as merge queues and
# CI runners do) inherits SIGINT ignored, and every codemode it starts would ignore Ctrl-C
# too, as Python keeps an inherited SIG_IGN: the interrupt tests then saw a run finish with
# rc 0. Restore what a terminal gives: Python's own handler here, SIG_DFL in the children.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Every git the suite starts (the tests' own, the CLI's, pre-commit's) commits as one pinned
# identity and reads no user or system config, set here once for the whole run (#34).
os.environ.update(GIT_ENV)
for _leak in GIT_LEAKS:
    os.environ.pop(_leak, None)


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[str], Path]:
    """Copy ``tests/data/<name>`` into a fresh temp dir (xdist-safe) and return its root."""

    def make(name: str) -> Path:
        dest = tmp_path / name
        shutil.copytree(DATA / name, dest, ignore=shutil.ignore_patterns("__pycache__", "*.log"))
        return dest

    return make
