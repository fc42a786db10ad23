"""Test code is never a target (#35): a changed test method, test module or conftest.py (and a
file under pytest's ``testpaths``) is left out of a change's verdicts, its counts and regen;
before, a changed test method was `missing` and regen wrote specs/tests.test.yml."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from codemode.cli.main import main
from gitkit import committed

FILES = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests", "checks"]\n',
    "pk/__init__.py": "",
    "pk/m.py": "def base(x):\n    return x + 1\n",
    "tests/test_m.py": (
        "from pk.m import base\n\n\nclass TestBase:\n    def test_one(self):\n"
        "        assert base(1) == 2\n"
    ),
    "tests/conftest.py": "def helper():\n    return 1\n",
    "pk/m_test.py": "def check_base():\n    return 1\n",
    "checks/scenarios.py": "def scenario():\n    return 1\n",  # a test path of pytest's
    "specs/m.yml": "pk.m.base:\n  dataset:\n    - case: {id: one, input: 1, expected: 2}\n",
}
EDITS = {
    "tests/test_m.py": ("assert base(1) == 2", "assert base(2) == 3"),
    "tests/conftest.py": ("return 1", "return 2"),
    "pk/m_test.py": ("return 1", "return 2"),
    "checks/scenarios.py": ("return 1", "return 2"),
    "pk/m.py": ("return x + 1", "return 1 + x"),  # a refactor of the one real function
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    committed(tmp_path, FILES)
    env = dict(os.environ)
    for rel, (old, new) in EDITS.items():
        path = tmp_path / rel
        path.write_text(path.read_text().replace(old, new))
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, env=env, check=True)
    return tmp_path


def test_check_leaves_changed_tests_out_of_the_verdicts(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code = main(["check", "--root", str(repo), "--staged", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0, report
    assert [f["id"] for f in report["functions"]] == ["pk.m.base"]
    assert report["counts"]["missing"] == 0


def test_regen_writes_no_spec_for_test_code(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["regen", "--root", str(repo), "--staged"]) == 0, capsys.readouterr()
    out = capsys.readouterr().out
    assert sorted(p.name for p in (repo / "specs").iterdir()) == ["m.yml"], out
    assert "tests.test_m" not in out and "checks.scenarios" not in out, out


def test_a_bootstrap_leaves_pytests_testpaths_out(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["regen", "--root", str(repo), "--all", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "pk.m.base" in out and "checks.scenarios" not in out, out
