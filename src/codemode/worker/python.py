"""Which interpreter runs the user's code.

A pre-commit hook's private virtualenv has none of the project's dependencies, so the
worker must use the project's own Python: ``--python``, then ``python`` under
[tool.codemode] (or ``CODEMODE_PYTHON``), then an active virtualenv, then ``.venv`` or
``venv`` in the repository, then the interpreter codemode runs in.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

from codemode.errors import FatalError


def _venv_python(venv: Path) -> Path | None:
    for rel in ("bin/python", "Scripts/python.exe"):
        p = venv / rel
        if p.exists():
            return p
    return None


def find_python(root: Path, configured: str | None, env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    if configured:
        p = Path(configured).expanduser()
        if not p.is_absolute() and "/" in configured:
            p = root / p
        found = str(p) if p.exists() else shutil.which(configured)
        if not found:
            raise FatalError(
                f"the configured Python {configured!r} does not exist; fix --python or "
                "`python = ...` under [tool.codemode] (e.g. python = \".venv/bin/python\")"
            )
        return found
    venv = env.get("VIRTUAL_ENV")
    # pre-commit activates its own private env: that one cannot import the project.
    if venv and ".cache/pre-commit" not in venv and "pre-commit" not in Path(venv).parts:
        vp = _venv_python(Path(venv))
        if vp:
            return str(vp)
    for name in (".venv", "venv"):
        vp = _venv_python(root / name)
        if vp:
            return str(vp)
    return sys.executable
