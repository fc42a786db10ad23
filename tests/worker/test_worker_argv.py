"""The worker's own flags (--root, --path) never reach the user's code through sys.argv."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode.cli.main import main

CLI = """\
import argparse
import sys

# parses the command line at import time, as many scripts do
OPTIONS = argparse.ArgumentParser().parse_args()
ARGV_AT_IMPORT = list(sys.argv)


def main() -> list:
    return list(sys.argv)


def at_import() -> list:
    return ARGV_AT_IMPORT
"""

SPEC = """\
tool.cli.main:
  dataset:
    - case: {id: argv, expected: ["ROOT/tool/cli.py"]}
tool.cli.at_import:
  dataset:
    - case: {id: argv, expected: ["ROOT/tool/cli.py"]}
"""


def test_argv_is_the_module_path_as_python_m_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tool").mkdir()
    (tmp_path / "tool" / "__init__.py").write_text("")
    (tmp_path / "tool" / "cli.py").write_text(CLI)
    (tmp_path / "specs").mkdir()
    spec = SPEC.replace("ROOT", str(tmp_path.resolve()))
    (tmp_path / "specs" / "cli.yml").write_text(spec)
    code = main(["check", "--root", str(tmp_path), "--all", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    observed = {f["id"]: [c.get("observed") for c in f["cases"]] for f in report["functions"]}
    messages = [c.get("message") for f in report["functions"] for c in f["cases"]]
    assert code == 0, (observed, messages)
    assert {f["status"] for f in report["functions"]} == {"ok"}
