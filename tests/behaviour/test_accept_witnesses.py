"""``codemode accept FUNCTION_ID`` writes the behaviour diff's witnesses as cases with the new
outcome; the next run is clean (#18)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from diffkit import check, functions, git, project, write

from codemode.cli.main import main

PARSE = '''\
def parse_ratio(text: str) -> float:
    """'3/4' -> 0.75"""
    top, _, bottom = text.partition("/")
    return int(top) / int(bottom)
'''
TEST_PARSE = """\
from demo.ratio import parse_ratio


def test_half():
    assert parse_ratio("1/2") == 0.5
"""


def test_accept_turns_witnesses_into_cases_and_the_next_run_is_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/ratio.py": PARSE, "tests/test_ratio.py": TEST_PARSE})
    # The new version accepts a bare number, which the old one refused (ValueError).
    new = PARSE.replace(
        '    top, _, bottom = text.partition("/")\n',
        '    top, _, bottom = text.partition("/")\n    bottom = bottom or "1"\n',
    )
    write(repo, {"src/demo/ratio.py": new})
    write(
        repo,
        {
            "tests/test_ratio.py": TEST_PARSE
            + '\n\ndef test_whole():\n    assert parse_ratio("3") == 3.0\n'
        },
    )
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.ratio.parse_ratio"]
    assert rc == 1 and f["status"] == "changed"
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls["parse_ratio('3')"]["old"]["raised"] == "ValueError"
    assert calls["parse_ratio('3')"]["new"] == {"returned": 3.0}

    capsys.readouterr()
    assert main(["accept", "demo.ratio.parse_ratio", "--staged"]) == 0
    out = capsys.readouterr().out
    assert "recorded" in out
    spec = yaml.safe_load((repo / "specs/demo.ratio.yml").read_text())
    cases = {c["case"]["id"]: c["case"] for c in spec["demo.ratio.parse_ratio"]["dataset"]}
    assert cases["parse_ratio_3"] == {"id": "parse_ratio_3", "inputs": ["3"], "expected": 3.0}

    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.ratio.parse_ratio"]
    assert f["status"] == "ok", f
    assert f["witnesses"] == []
    assert rc == 0


def test_accept_all_in_a_pull_request_records_every_changed_function(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/ratio.py": PARSE})
    git(repo, "checkout", "-qb", "feature")
    write(
        repo,
        {"src/demo/ratio.py": PARSE.replace("int(top) / int(bottom)", "int(top) // int(bottom)")},
    )
    git(repo, "commit", "-qam", "whole ratios")
    rc, report = check(repo, "--base", "main", capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 1 and functions(report)["demo.ratio.parse_ratio"]["status"] == "changed"
    capsys.readouterr()
    assert main(["accept", "--all", "--base", "main"]) == 0
    assert "parse_ratio" in (repo / "specs/demo.ratio.yml").read_text()
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "record the change")
    rc, report = check(repo, "--base", "main", capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 0, report
