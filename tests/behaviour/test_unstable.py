"""A random helper's calls differ between the versions on every run, whatever the change: a
witness counts only when each side's outcome is the same on several runs of the call under
another random state (#32). One run more let a call of a few outcomes through one time in
nine, and a pool of such calls flagged a refactor `changed` on nearly every run. A function
whose only differing calls are unstable gets the verdict `unstable`, outside the default
fail_on; a deterministic difference beside them is still a change. Real git, real workers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

DECK = '''\
import random


def pick(items: list[str]) -> str:
    """One of the items, at random."""
    return random.choice(items)


def shuffled(items: list[int]) -> list[int]:
    """A shuffled copy."""
    out = list(items)
    random.shuffle(out)
    return out
'''
# The same behaviour, other code: a refactor.
DECK_REFACTORED = DECK.replace(
    "    return random.choice(items)\n", "    chosen = random.choice(items)\n    return chosen\n"
).replace("    out = list(items)\n", "    out = [*items]\n")
# Three outcomes a call: one run more agreed with the first on both sides one time in nine.
LETTERS = [f"{a}{b}" for a in "abcdefg" for b in "xyz"]
TESTS = (
    "import pytest\n\nfrom demo.deck import pick, shuffled\n\n\ndef test_pick():\n"
    + "".join(
        f"    assert pick({LETTERS[i : i + 3]!r}) in {LETTERS[i : i + 3]!r}\n"
        for i in range(0, len(LETTERS) - 2)
    )
    + "    with pytest.raises(IndexError):\n        pick([])\n"
    + "\n\ndef test_shuffled():\n"
    + "".join(
        f"    assert sorted(shuffled([{i}, {i + 1}, {i + 2}])) == [{i}, {i + 1}, {i + 2}]\n"
        for i in range(12)
    )
)
SPEC = """\
demo.deck.pick:
  dataset:
    - case: {id: one_item, input: [only], expected: only}
demo.deck.shuffled:
  dataset:
    - case: {id: one_item, input: [7], expected: [7]}
"""


def _repo(tmp_path: Path, new: str) -> Path:
    files = {"src/demo/deck.py": DECK, "tests/test_deck.py": TESTS, "specs/demo.deck.yml": SPEC}
    repo = project(tmp_path, files)
    write(repo, {"src/demo/deck.py": new})
    git(repo, "add", "-A")
    return repo


def test_a_refactored_random_helper_is_unstable_not_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _repo(tmp_path, DECK_REFACTORED)
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    got = functions(report)
    for fid in ("demo.deck.pick", "demo.deck.shuffled"):
        f = got[fid]
        assert (f["status"], f["witnesses"]) == ("unstable", []), f
        assert re.match(r"\d+ calls? differs? between the versions and between runs", f["message"])
    assert report["counts"]["unstable"] == 2
    assert rc == 0
    from codemode.cli.main import main

    capsys.readouterr()
    assert main(["check", "--staged"]) == 0
    out = capsys.readouterr().out
    assert "demo.deck.pick: unstable: " in out and "e.g. pick([" in out, out
    # the PR comment's Markdown (the job summary is the same text): the verdict and why
    assert main(["check", "--staged", "--report-out", str(tmp_path / "r.json")]) == 0
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    assert main(["comment", "--report", str(tmp_path / "r.json")]) == 0
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "2 unstable" in summary and "`demo.deck.pick`: unstable: " in summary, summary
    rc, _ = check(repo, "--staged", "--fail-on", "unstable", capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 1


def test_a_random_helper_whose_deterministic_part_changed_is_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = DECK.replace(
        "    return random.choice(items)\n",
        '    if not items:\n        return ""\n    return random.choice(items)\n',
    )
    repo = _repo(tmp_path, empty)
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.deck.pick"]
    assert f["status"] == "changed", f
    assert [(w["call"], w["new"]) for w in f["witnesses"]] == [("pick([])", {"returned": ""})]
    assert "unstable: " in f["diff_note"], f  # the random calls: said, not witnesses
    assert rc == 1
