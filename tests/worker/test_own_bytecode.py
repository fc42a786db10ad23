"""The worker's own modules get their bytecode from the parent (#36): the worker may write
none (PYTHONDONTWRITEBYTECODE, the wall), so a module only it imports was compiled from source
at every start of it wherever the install held no bytecode (an editable install)."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.util import cache_from_source
from pathlib import Path

import codemode.worker

WORKER = Path(codemode.worker.__file__).parent
ONLY_THE_WORKER_IMPORTS = WORKER / "leaks.py"  # the leak check: never imported by the parent


def _make_sure(python: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    code = "import sys; from codemode.worker.own_bytecode import compile_worker_modules as c; "
    return subprocess.run(
        [sys.executable, "-c", code + f"c({python!r})"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )


def test_the_parent_writes_the_bytecode_of_a_module_only_the_worker_imports() -> None:
    cached = Path(cache_from_source(str(ONLY_THE_WORKER_IMPORTS)))
    cached.unlink(missing_ok=True)
    _make_sure(sys.executable)
    assert cached.exists()
    assert cached.stat().st_mtime_ns >= ONLY_THE_WORKER_IMPORTS.stat().st_mtime_ns


def test_not_for_a_worker_of_another_interpreter(tmp_path: Path) -> None:
    """Another interpreter (another version, another magic number) reads other files."""
    cached = Path(cache_from_source(str(ONLY_THE_WORKER_IMPORTS)))
    cached.unlink(missing_ok=True)
    other = tmp_path / "python3"
    other.write_text("#!/bin/sh\n")
    _make_sure(str(other))
    assert not cached.exists()
    _make_sure(sys.executable)  # as it was
