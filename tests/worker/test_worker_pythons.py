"""The worker under every supported interpreter: stdlib only, valid on Python 3.10 to 3.13."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from codemode.cli.main import main

# end to end: seconds each (deselect with -m "not slow")
pytestmark = pytest.mark.slow

PYENV = Path.home() / ".pyenv" / "versions"


def _interpreter(minor: str) -> str | None:
    found = sorted(PYENV.glob(f"{minor}.*/bin/python"))
    return str(found[-1]) if found else None


@pytest.mark.parametrize("minor", ["3.10", "3.11", "3.12", "3.13"])
def test_real_cases_under_each_python(
    minor: str,
    make_project: Callable[[str], Path],
    capsys: pytest.CaptureFixture[str],
) -> None:
    python = _interpreter(minor)
    if python is None:
        pytest.skip(f"Python {minor} is not installed under {PYENV}")
    root = make_project("ledger")
    argv = ["check", "--root", str(root), "--python", python, "--format", "json"]
    code = main([*argv, str(root / "portable" / "portable.yml")])
    report = json.loads(capsys.readouterr().out)
    statuses = {
        f"{f['id']}[{c['id']}]": c["status"] for f in report["functions"] for c in f["cases"]
    }
    assert len(statuses) == 14
    assert set(statuses.values()) == {"passed"}, statuses
    observed = {c["id"]: c["observed"] for f in report["functions"] for c in f["cases"]}
    assert observed["which"] == minor  # the cases really ran under that interpreter
    assert code == 0
    log = (root / "fixture_log.txt").read_text(encoding="utf-8").splitlines()
    assert log.count("db setup") == log.count("db teardown") == 1
