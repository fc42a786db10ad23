"""A method that fills a cache on its instance keyed by a per-process salt (a markup
converter's hashed placeholders) leaves another state on every call, in every process: the
state after the call differs between the versions and between runs of one version. That
noise must neither hide a real change of what the method returns (its value witness was
judged "unstable" with the state) nor end the search before the changed input is reached
(it filled the suspects' cap, 40, with state-only calls)."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

SOURCE = '''\
import os

SALT = os.urandom(8).hex()  # one per process


class Converter:
    def __init__(self):
        self.spans = {}

    def convert(self, text):
        """The text in upper case, its placeholder kept in a cache keyed by the salt."""
        self.spans[SALT + text] = text
        return text.upper()
'''
ROWS = ", ".join(f"'w{i:03d}'" for i in range(150))
TESTS = f"""\
import pytest

from demo.conv import Converter


@pytest.mark.parametrize("text", [{ROWS}])
def test_convert(text):
    assert Converter().convert(text) == text.upper()
"""


def test_a_value_change_is_flagged_through_a_state_that_follows_the_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/conv.py": SOURCE, "tests/test_conv.py": TESTS})
    changed = SOURCE.replace(
        "        return text.upper()\n",
        "        if text == 'w137':\n            return 'W137!'\n        return text.upper()\n",
    )
    write(repo, {"src/demo/conv.py": changed})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    got = functions(report)["demo.conv.Converter.convert"]
    shown = {k: got.get(k) for k in ("status", "message", "diff_note", "witnesses")}
    assert got["status"] == "changed", shown
    calls = [w["call"] for w in got["witnesses"]]
    assert any("w137" in c for c in calls), shown
    assert all(w["new"].get("returned") == "W137!" for w in got["witnesses"]), shown
    assert rc == 1


def test_a_refactor_under_the_same_noise_is_not_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/conv.py": SOURCE, "tests/test_conv.py": TESTS})
    write(repo, {"src/demo/conv.py": SOURCE.replace("text.upper()", "str.upper(text)")})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    got = functions(report)["demo.conv.Converter.convert"]
    assert got["status"] != "changed" and not got.get("witnesses"), got
    assert rc == 0, got
