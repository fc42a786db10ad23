"""Which files hold the project's tests: test code is never a target (#35).

A test function calls what it tests, so every change impacts it, and a changed test method is
no behaviour of the project: it gets no spec, no ``missing``, no regen and no place in the
counts. A test file is one pytest would collect from (under ``tests/`` or ``test/``,
``test_*.py``, ``*_test.py``, ``conftest.py``, ``test.py``, ``tests.py``) or one under the
project's own test paths (pytest's ``testpaths`` in pyproject.toml, ``Config.test_paths``).
The tests are still read, as inputs: the explorer and the behaviour diff take their calls.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

TEST_FOLDERS = ("tests", "test")
TEST_FILES = ("conftest.py", "test.py", "tests.py")


def is_test_path(rel: str, test_paths: Iterable[str] = ()) -> bool:
    """``rel``: a posix path relative to where ``test_paths`` are (the repository's top)."""
    *folders, name = rel.split("/")
    if any(f in TEST_FOLDERS for f in folders) or name in TEST_FILES:
        return True
    if name.startswith("test_") or name.endswith("_test.py"):
        return True
    return any(rel == p or rel.startswith(p + "/") for p in test_paths)


def repo_test_paths(root: Path, test_paths: Iterable[str]) -> tuple[str, ...]:
    """The project's test paths (relative to ``root``) relative to the repository's top, where
    a change's paths are: the project may sit in a folder of the repository."""
    paths = tuple(p.strip("/").removeprefix("./") for p in test_paths if p.strip("/."))
    if not paths:
        return ()
    prefix = ""
    for d in (root, *root.parents):
        if (d / ".git").exists():
            prefix = root.relative_to(d).as_posix()
            break
    return tuple(f"{prefix}/{p}" if prefix not in ("", ".") else p for p in paths)
