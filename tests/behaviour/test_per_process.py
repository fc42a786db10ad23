"""An outcome that follows the process's hash seed (a list made from a set of strings) is
the same on two runs of one process and differs in the next: it is never a witness, and
regen never writes it as a case (#18: emoji 1.7's distinct_emoji_list was written with one
order and drifted in the next `check`). Real git, real workers on both sides."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

WORDS = "alpha beta gamma delta epsilon zeta"
OLD = "def unique(text: str) -> list[str]:\n    return list(set(text.split()))\n"
NEW = "def unique(text: str) -> list[str]:\n    return list(dict.fromkeys(text.split()))\n"
TEST = f'from demo.words import unique\n\n\ndef test_unique():\n    assert len(unique("{WORDS}")) == 6\n'


def test_an_order_that_follows_the_hash_seed_is_no_witness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both sides' first run share one seed, so the old set's order and the new insertion
    # order differ there as if the change did it; only another process shows that the old
    # order was never fixed.
    repo = project(tmp_path, {"src/demo/words.py": OLD, "tests/test_words.py": TEST})
    write(repo, {"src/demo/words.py": NEW})
    git(repo, "add", "-A")
    _, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.words.unique")
    shown = [w["call"] for w in (f or {}).get("witnesses") or ()]
    assert not any(WORDS in call for call in shown), shown


TAGS = """\
def tags(text: str) -> list[str]:
    if not text:
        raise ValueError("no text")
    return list(set(text.split()) | {"and", "or", "not"})
"""


def test_regen_writes_no_case_whose_order_follows_the_hash_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A developer whose shell fixes PYTHONHASHSEED: every process of theirs agrees on the
    # set's order, CI's do not. The gate's workers take seeds of their own. (Every list
    # tags() returns holds three items or more: a two-item order can still slip through the
    # gate's five seeds one time in sixteen, as the README says.)
    test = f'from demo.tags import tags\n\n\ndef test_tags():\n    assert tags("{WORDS}")\n'
    repo = project(tmp_path, {"src/demo/tags.py": TAGS, "tests/test_tags.py": test})
    monkeypatch.chdir(repo)
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    from codemode.cli.main import main

    assert main(["regen", "--function", "demo.tags.tags"]) == 0
    spec = (repo / "specs" / "demo.tags.yml").read_text(encoding="utf-8")
    assert "expected:" not in spec, spec  # only the ValueError: every value's order varies
    assert "raises: ValueError" in spec
    monkeypatch.setenv("PYTHONHASHSEED", "1")  # CI: another seed
    rc, report = check(repo, "--all", capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 0, [(f["status"], f.get("message")) for f in report["functions"]]
