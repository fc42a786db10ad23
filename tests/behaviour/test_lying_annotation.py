"""An annotation that lies: the tests pass another type than the one annotated, and the
type-directed values follow what the tests pass too (#18)."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

OLD = """\
def label(name: str, width: int = 0) -> str:
    if isinstance(width, str):
        return name + width
    return name.ljust(width)
"""
NEW = OLD.replace("return name + width", "return name + width.upper()")
TEST = 'from demo.tag import label\n\n\ndef test_label():\n    assert label("a", ":") == "a:"\n'


def test_values_of_the_type_the_tests_pass_are_tried_beside_the_annotated_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/tag.py": OLD, "tests/test_tag.py": TEST})
    write(repo, {"src/demo/tag.py": NEW})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.tag.label"]
    assert f["status"] == "changed" and rc == 1, f
