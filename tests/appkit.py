"""A small project of package ``app`` checked from the CLI, for the tests of the worker's
children and leak check: its files written, ``check --all --jobs 1`` run, each case's status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode.cli.main import main

# A function that leaves its process id in a file (state the leak check does not watch), and
# a line for another module's function that says whether it runs in that same process.
PID_WRITER = """\
import os

MARK = os.path.join(os.path.dirname(__file__), "pid.txt")


def first(x):
    with open(MARK, "w") as f:
        f.write(str(os.getpid()))
    return x
"""
SAME_CHILD = """\
def same_child(x):
    import os

    from app import one

    with open(one.MARK) as f:
        return int(f.read()) == os.getpid()
"""


def case(function: str, case_id: str, given: str, expected: str) -> str:
    """One spec entry: ``function`` (under ``app.``) with one case."""
    return (
        f"app.{function}:\n  dataset:\n"
        f"    - case: {{id: {case_id}, input: {given}, expected: {expected}}}\n"
    )


def statuses(
    root: Path, modules: dict[str, str], spec: str, capsys: pytest.CaptureFixture[str]
) -> dict[str, str]:
    """Write ``modules`` (name -> source) under ``root/app`` and ``spec``; each case's status."""
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    for name, text in modules.items():
        (root / "app" / f"{name}.py").write_text(text)
    (root / "specs").mkdir()
    (root / "specs" / "s.yml").write_text(spec)
    # the pid file is the tests' probe: a write on purpose, allowed by name (#31)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "app"\n\n[tool.codemode.effects]\nwrites = ["app/pid.txt"]\n'
    )
    code = main(["check", "--root", str(root), "--jobs", "1", "--all", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    got = {c["id"]: c["status"] for f in report["functions"] for c in f["cases"]}
    assert code == (0 if set(got.values()) == {"passed"} else 1), got
    return got
