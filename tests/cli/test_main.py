"""The dispatcher: ``--version`` and ``--help`` answer without a subcommand."""

from __future__ import annotations

import subprocess
import sys

import pytest

from codemode import __version__
from codemode.cli.main import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"codemode {__version__}\n"


def test_version_imports_no_subcommand() -> None:
    probe = (
        "import sys; from codemode.cli.main import main; main(['--version']); "
        "print([m for m in sys.modules if m.startswith('codemode.cli.') and m != 'codemode.cli.main'])"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines()[-1] == "[]"


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for name in ("check", "diff", "regen", "accept", "comment", "merge", "action", "hook-regen"):
        assert name in out
