"""A spec case whose input is a dict with keys of two types ({1: a, '1': b}, as a serializer's
tests pass) in a change scope, with real git and real workers (#18): the behaviour diff keyed
each case's call with sorted keys and stopped the run with an internal error (exit 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

SIZES = """\
def count(d: dict) -> int:
    return len(d)
"""
SPEC = """\
demo.sizes.count:
  dataset:
    - case: {id: mixed_keys, inputs: [{1: a, '1': b}], expected: 2}
"""


def test_a_case_input_whose_keys_do_not_sort_is_no_internal_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/sizes.py": SIZES, "specs/sizes.yml": SPEC})
    write(repo, {"src/demo/sizes.py": SIZES.replace("len(d)", "len(d) + 0")})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 0, report
    f = functions(report)["demo.sizes.count"]
    assert f["status"] == "ok" and not f.get("witnesses"), f
