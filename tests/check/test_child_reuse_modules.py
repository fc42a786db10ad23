"""A child goes on to the next module's blocks (#20): the worker imports the module, the live
child imports it too and brings its snapshot up to date, instead of ending for a fresh fork
per module. A change made at the second module's import is watched from then on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode.cli.main import main

FIRST = """\
import os

MARK = os.path.join(os.path.dirname(__file__), "pid.txt")


def first(x):
    with open(MARK, "w") as f:  # a file: state the leak check does not watch
        f.write(str(os.getpid()))
    return x
"""
SECOND = """\
import os

from app import one

one.SEEN = []  # this import changes the first module: watched from then on in the child


def same_child(x):
    with open(one.MARK) as f:
        return int(f.read()) == os.getpid()


def grow(x):
    one.SEEN.append(x)
    return len(one.SEEN)


def read(x):
    return len(one.SEEN)
"""


def test_the_next_module_runs_in_the_same_child_and_its_import_is_watched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "proj"
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "one.py").write_text(FIRST)
    (root / "app" / "two.py").write_text(SECOND)
    (root / "specs").mkdir()
    (root / "specs" / "s.yml").write_text(
        "app.one.first:\n  dataset:\n    - case: {id: first, input: 1, expected: 1}\n"
        "app.two.same_child:\n  dataset:\n    - case: {id: same_child, input: 1, expected: true}\n"
        "app.two.grow:\n  dataset:\n    - case: {id: grow, input: 1, expected: 1}\n"
        "app.two.read:\n  dataset:\n    - case: {id: read, input: 1, expected: 0}\n"
    )
    (root / "pyproject.toml").write_text('[project]\nname = "app"\n')
    code = main(["check", "--root", str(root), "--jobs", "1", "--all", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    statuses = {c["id"]: c["status"] for f in report["functions"] for c in f["cases"]}
    assert statuses == {
        "first": "passed",
        "same_child": "passed",
        "grow": "passed",
        "read": "passed",
    }
    assert code == 0


def test_a_next_module_whose_state_cannot_be_read_ends_the_child_after_its_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An lru_cache's cache is out of the leak check's sight: the child cannot bring its
    # snapshot up to date, so it runs that block and ends (it crashed on the Opaque before,
    # and took its worker with it: the block ran again in a new worker).
    root = tmp_path / "proj"
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "one.py").write_text(FIRST)
    (root / "app" / "two.py").write_text(
        "import functools\nimport os\n\nfrom app import one\n\n\n"
        "@functools.lru_cache\ndef cached(x):\n    return x * 2\n\n\n"
        "def same_child(x):\n    with open(one.MARK) as f:\n"
        "        return int(f.read()) == os.getpid()\n"
    )
    (root / "specs").mkdir()
    (root / "specs" / "s.yml").write_text(
        "app.one.first:\n  dataset:\n    - case: {id: first, input: 1, expected: 1}\n"
        "app.two.same_child:\n  dataset:\n    - case: {id: same_child, input: 1, expected: true}\n"
        "app.two.cached:\n  dataset:\n    - case: {id: c1, input: 2, expected: 4}\n"
    )
    (root / "pyproject.toml").write_text('[project]\nname = "app"\n')
    code = main(["check", "--root", str(root), "--jobs", "1", "--all", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    statuses = {c["id"]: c["status"] for f in report["functions"] for c in f["cases"]}
    assert statuses == {"first": "passed", "same_child": "passed", "c1": "passed"}
    assert code == 0
