"""What is and is not a witness, with real git and real workers on both sides (#18): a
nondeterministic function and a clock-reading one give none; a message-only change says so;
a method is called on an instance built as the tests build it; a table-driven unittest's
rows reach the function."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from diffkit import SEMVER, check, functions, git, project, write


def _staged(repo: Path, files: dict[str, str]) -> None:
    write(repo, files)
    git(repo, "add", "-A")


def test_a_nondeterministic_function_gives_no_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    old = "import random\n\n\ndef jitter(delay: float) -> float:\n    return delay * random.random()\n"
    new = "import random\n\n\ndef jitter(delay: float) -> float:\n    return random.random() * delay\n"
    repo = project(tmp_path, {"src/demo/net.py": old})
    _staged(repo, {"src/demo/net.py": new})
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.net.jitter")
    assert f is None or not f["witnesses"], f
    assert rc == 0


CLOCK_OLD = """\
import time


def stamp(label: str) -> str:
    return f"{label}@{time.time()}"
"""


def test_a_clock_reading_function_gives_no_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/clock.py": CLOCK_OLD})
    new = CLOCK_OLD.replace(
        'return f"{label}@{time.time()}"', 'now = time.time()\n    return f"{label}@{now}"'
    )
    _staged(repo, {"src/demo/clock.py": new})
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.clock.stamp")
    assert f is None or not f["witnesses"], f
    assert rc == 0


QTY = 'def qty(text: str) -> int:\n    if not text.isdigit():\n        raise ValueError("not a number")\n    return int(text)\n'


def test_a_message_only_change_is_shown_and_fails_only_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # #32: a bare `except:` narrowed blocked commits for a message. A function whose only
    # witnesses are message changes has a verdict of its own, outside the default fail_on.
    repo = project(tmp_path, {"src/demo/qty.py": QTY})
    _staged(repo, {"src/demo/qty.py": QTY.replace("not a number", "quantity must be digits")})
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.qty.qty"]
    assert (f["status"], rc) == ("message_changed", 0)
    assert report["counts"]["message_changed"] == 1
    w = f["witnesses"][0]
    assert w["kind"] == "message"
    assert w["old"] == {"raised": "ValueError", "message": "not a number"}
    assert w["new"] == {"raised": "ValueError", "message": "quantity must be digits"}
    from codemode.cli.main import main

    capsys.readouterr()
    assert main(["check", "--staged"]) == 0
    out = capsys.readouterr().out
    assert "demo.qty.qty: message_changed:" in out and "(message changed)" in out
    assert "qty('" in out  # the call, as in every output
    # the PR comment's Markdown (the job summary is the same text) and the step outputs
    assert main(["check", "--staged", "--report-out", str(tmp_path / "r.json")]) == 0
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "outputs"))
    assert main(["comment", "--report", str(tmp_path / "r.json")]) == 0
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "1 message\\_changed" in summary and "(message changed)" in summary  # `_` escaped
    assert "qty(" in summary
    outputs = (tmp_path / "outputs").read_text(encoding="utf-8")
    assert re.search(r"^message_changed<<(\S+)\n1\n\1$", outputs, re.M), outputs
    rc, _ = check(
        repo, "--staged", "--fail-on", "message_changed", capsys=capsys, monkeypatch=monkeypatch
    )
    assert rc == 1


def test_a_message_change_beside_another_change_is_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/qty.py": QTY})
    new = QTY.replace("not a number", "quantity must be digits").replace(
        "return int(text)", "return int(text) + (text == '7')"
    )
    _staged(repo, {"src/demo/qty.py": new, "tests/test_qty.py": TEST_QTY})
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.qty.qty"]
    assert {w["kind"] for w in f["witnesses"]} >= {"message", "value"}, f["witnesses"]
    assert (f["status"], rc) == ("changed", 1)


TEST_QTY = """\
import pytest

from demo.qty import qty


def test_qty():
    assert qty("7") == 7
    with pytest.raises(ValueError):
        qty("x")
"""


VERSION = """\
class Version:
    def __init__(self, text: str) -> None:
        self.parts = [int(p) for p in text.split(".")]

    def bump(self, part: str = "patch") -> str:
        major, minor, patch = self.parts
        if part == "minor":
            return f"{major}.{minor + 1}.0"
        return f"{major}.{minor}.{patch + 1}"
"""
TEST_VERSION = """\
from demo.version import Version


def test_bump():
    v = Version("1.4.2")
    assert v.bump() == "1.4.3"
    assert Version("0.9.9").bump("minor") == "0.10.0"
"""


def test_a_method_runs_on_an_instance_built_as_the_tests_build_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Version() cannot be built without text: only the tests' own instances reach bump.
    repo = project(
        tmp_path, {"src/demo/version.py": VERSION, "tests/test_version.py": TEST_VERSION}
    )
    _staged(
        repo,
        {
            "src/demo/version.py": VERSION.replace(
                'f"{major}.{minor + 1}.0"', 'f"{major}.{minor + 1}.{patch}"'
            )
        },
    )
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.version.Version.bump"]
    assert f["status"] == "changed" and rc == 1
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls["Version('0.9.9').bump('minor')"]["old"] == {"returned": "0.10.0"}
    assert calls["Version('0.9.9').bump('minor')"]["new"] == {"returned": "0.10.9"}


TABLE_TEST = """\
import unittest

from demo.semver import compare


class TestCompare(unittest.TestCase):
    def test_table(self):
        versions = (
            ("0.1.0", "0.1.1", -1),
            ("1.0.0", "1.0.0", 0),
            ("1.0.0-rc.1", "1.0.0", -1),
        )
        for left, right, expected in versions:
            self.assertEqual(compare(left, right), expected)
"""


def test_a_table_driven_unittests_rows_reach_the_function(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The change: a pre-release now sorts after its release. Only the table's third row,
    # iterated in a loop, is a pre-release; no value of the function's own hints at one.
    repo = project(tmp_path, {"src/demo/semver.py": SEMVER, "tests/test_semver.py": TABLE_TEST})
    _staged(repo, {"src/demo/semver.py": SEMVER.replace("[0 if pre else 1]", "[1 if pre else 0]")})
    _, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.semver.compare")
    assert f is not None and f["status"] == "changed", f
    calls = {w["call"] for w in f["witnesses"]}
    assert "compare('1.0.0-rc.1', '1.0.0')" in calls


QTY_SPEC = """\
demo.qty.qty:
  dataset:
    - case: {id: seven, input: "7", expected: 7}
    - case: {id: letters_raise, input: "x", raises: ValueError, match: "not a number"}
"""


def test_a_spec_case_whose_exception_message_alone_changed_fails_only_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # #32: the spec's `match` held the old message; the same ValueError with another message
    # is the message-only verdict a witness gets, not `drifted`. The case stays in the report.
    repo = project(tmp_path, {"src/demo/qty.py": QTY, "specs/demo.qty.yml": QTY_SPEC})
    _staged(repo, {"src/demo/qty.py": QTY.replace("not a number", "quantity must be digits")})
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.qty.qty"]
    assert (f["status"], rc) == ("message_changed", 0), f
    case = {c["id"]: c for c in f["cases"]}["letters_raise"]
    assert case["status"] == "drifted"
    assert "quantity must be digits" in case["message"], case
    from codemode.cli.main import main

    capsys.readouterr()
    assert main(["check", "--staged"]) == 0
    out = capsys.readouterr().out
    assert "demo.qty.qty: message_changed:" in out and "letters_raise" in out
    assert main(["check", "--staged", "--no-diff"]) == 0  # the spec's verdict alone
    out = capsys.readouterr().out
    assert "message_changed: only the exception message changed (1 case: the same" in out
    rc, _ = check(
        repo, "--staged", "--fail-on", "message_changed", capsys=capsys, monkeypatch=monkeypatch
    )
    assert rc == 1
    # another value beside the message: drifted, as before
    _staged(
        repo,
        {
            "src/demo/qty.py": QTY.replace("not a number", "digits").replace(
                "return int(text)", "return int(text) + 1"
            )
        },
    )
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    assert (functions(report)["demo.qty.qty"]["status"], rc) == ("drifted", 1)
