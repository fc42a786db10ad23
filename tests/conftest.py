"""Shared by the verification tests: real example projects copied into a temp dir per test.

Only fixtures live here (nothing autouse): each helper's folder keeps its own conftest.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[str], Path]:
    """Copy ``tests/data/<name>`` into a fresh temp dir (xdist-safe) and return its root."""

    def make(name: str) -> Path:
        dest = tmp_path / name
        shutil.copytree(DATA / name, dest, ignore=shutil.ignore_patterns("__pycache__", "*.log"))
        return dest

    return make
