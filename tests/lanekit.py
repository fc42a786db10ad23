"""The real command in a fresh process, for the ``--jobs`` tests of ``check`` and ``regen``:
a test process runs threads of its own (pytest-xdist), and a process with threads does not
fork lanes, so the lanes are reached only from a process of their own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def codemode(root: Path, *args: str, **env: str) -> tuple[int, str, str]:
    """``codemode ARGS --root ROOT`` with this interpreter as the project's, in ``root``;
    ``env``: more of its environment."""
    proc = subprocess.run(
        [sys.executable, "-m", "codemode", *args, "--root", str(root), "--python", sys.executable],
        cwd=root,
        capture_output=True,
        text=True,
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("CODEMODE_")},
            "CODEMODE_WARM": "0",  # no warm worker outliving a test
            **env,
        },
    )
    return proc.returncode, proc.stdout, proc.stderr
