"""`codemode diff` lists what a change touched and impacts in the project; the tests that
call a changed function are impacted by every change and are no behaviour of the project:
left out, or listed apart with --tests (#23)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode.cli.main import main
from gitkit import committed

FILES = {
    "pk/__init__.py": "",
    "pk/m.py": "def base(x):\n    return x + 1\n\n\ndef user(x):\n    return base(x) * 2\n",
    "tests/test_m.py": (
        "from pk.m import base, user\n\n\ndef test_base():\n    assert base(1) == 2\n\n\n"
        "class TestUser:\n    def test_user(self):\n        assert user(1) == 4\n"
    ),
    "pk/m_test.py": "from pk.m import base\n\n\ndef check_base():\n    assert base(0) == 1\n",
}
TESTS = ["pk.m_test.check_base", "tests.test_m.TestUser.test_user", "tests.test_m.test_base"]


@pytest.fixture
def changed(tmp_path: Path) -> Path:
    committed(tmp_path, FILES)
    m = tmp_path / "pk" / "m.py"
    m.write_text(m.read_text().replace("x + 1", "x + 2"))
    return tmp_path


def _diff(capsys: pytest.CaptureFixture[str], root: Path, *flags: str) -> str:
    capsys.readouterr()
    assert main(["diff", "--root", str(root), *flags]) == 0
    return capsys.readouterr().out


def test_impacted_tests_are_left_out(changed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _diff(capsys, changed)
    assert "pk.m.user" in out and not any(t in out for t in TESTS), out
    assert "(3 impacted test function(s) left out; --tests lists them)" in out
    doc = json.loads(_diff(capsys, changed, "--format", "json"))
    assert [f["id"] for f in doc["functions"]] == ["pk.m.base", "pk.m.user"]
    assert "tests" not in doc


def test_tests_lists_them_apart(changed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _diff(capsys, changed, "--tests")
    head, _, tail = out.partition("\nimpacted tests:\n")
    assert "pk.m.user" in head and not any(t in head for t in TESTS), out
    assert all(t in tail for t in TESTS), out
    doc = json.loads(_diff(capsys, changed, "--format", "json", "--tests"))
    assert [f["id"] for f in doc["functions"]] == ["pk.m.base", "pk.m.user"]
    assert sorted(f["id"] for f in doc["tests"]) == TESTS
