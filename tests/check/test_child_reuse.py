"""A forked child runs the next block while the last left nothing behind (worker/leaks.py, #20),
also in a project that imports ``random``: it seeds itself again in every child (an at-fork
handler), which the leak check once took for the block's change, so every block of such a
project paid a fork of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode.cli.main import main

MODULE = """\
import os
import random

MARK = os.path.join(os.path.dirname(__file__), "pid.txt")


def first(x):
    with open(MARK, "w") as f:  # a file: state the leak check does not watch
        f.write(str(os.getpid()))
    return x


def second(x):
    with open(MARK) as f:
        return int(f.read()) == os.getpid()
"""


def test_a_project_importing_random_runs_its_pure_blocks_in_one_child(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "proj"
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "mod.py").write_text(MODULE)
    (root / "specs").mkdir()
    (root / "specs" / "mod.yml").write_text(
        "app.mod.first:\n  dataset:\n    - case: {id: first, input: 1, expected: 1}\n"
        "app.mod.second:\n  dataset:\n    - case: {id: same_child, input: 1, expected: true}\n"
    )
    (root / "pyproject.toml").write_text('[project]\nname = "app"\n')
    code = main(["check", "--root", str(root), "--jobs", "1", "--all", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    statuses = {c["id"]: c["status"] for f in report["functions"] for c in f["cases"]}
    assert statuses == {"first": "passed", "same_child": "passed"}
    assert code == 0
