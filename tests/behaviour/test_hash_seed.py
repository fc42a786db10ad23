"""Both sides of the behaviour diff hash strings alike, whatever PYTHONHASHSEED says: a set's
order is then a property of the code, not of the process (#18). The new side is the check's
own worker when the work tree is that side; the old side's gets the same seed."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

TAGS = '''\
def tags(text: str) -> list[str]:
    """The distinct words, in the order a set gives them."""
    return list(set(text.split()))
'''
# The same behaviour, other code: a refactor, so no witness.
TAGS_REFACTORED = '''\
def tags(text: str) -> list[str]:
    """The distinct words, in the order a set gives them."""
    words = text.split()
    return list(set(words))
'''
TEST = """\
from demo.words import tags


def test_tags():
    assert sorted(tags("red green blue red alpha beta gamma delta")) == [
        "alpha", "beta", "blue", "delta", "gamma", "green", "red"
    ]
"""


@pytest.mark.parametrize("seed", ["random", ""])
def test_a_refactor_of_a_set_order_function_has_no_witness(
    seed: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if seed:
        monkeypatch.setenv("PYTHONHASHSEED", seed)  # each interpreter its own seed
    else:
        monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    repo = project(tmp_path, {"src/demo/words.py": TAGS, "tests/test_words.py": TEST})
    write(repo, {"src/demo/words.py": TAGS_REFACTORED})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.words.tags", {})
    assert not f.get("witnesses"), f
    assert rc == 0
