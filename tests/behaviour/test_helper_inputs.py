"""A test's inputs that reach the function through a helper of its test file (#18), with real
git and real workers on both sides: ``self.check('1.0.0-rc.1', '1.0.0', -1)`` whose body
calls ``compare(left, right)``; neither call alone has a literal input of compare."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import SEMVER, check, functions, git, project, write

HELPER_TEST = """\
import unittest

from demo.semver import compare


class CompareTest(unittest.TestCase):
    def check(self, left, right, expected=-1):
        self.assertEqual(compare(left, right), expected)

    def test_order(self):
        self.check("0.1.0", "0.1.1")
        self.check("1.0.0", "1.0.0", 0)
        self.check("1.0.0-rc.1", "1.0.0")
"""


def test_a_helpers_calls_reach_the_function(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The change: a pre-release now sorts after its release. Only the helper's third call
    # passes a pre-release; no value of the function's own hints at one.
    repo = project(tmp_path, {"src/demo/semver.py": SEMVER, "tests/test_semver.py": HELPER_TEST})
    write(repo, {"src/demo/semver.py": SEMVER.replace("[0 if pre else 1]", "[1 if pre else 0]")})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.semver.compare")
    assert f is not None and f["status"] == "changed", f
    calls = {w["call"] for w in f["witnesses"]}
    assert "compare('1.0.0-rc.1', '1.0.0')" in calls
    assert rc == 1
