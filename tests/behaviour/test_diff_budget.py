"""``diff_budget.seconds`` is a bound on the wall clock, whatever one call costs (#33,
acceptance 3), and the report says the budget cut it. The figure (within 10% of the budget)
lives in ``benchmarks/diff_budget_bound.py``: here the bound is checked at 1.5x, which the
code before the bound missed by far (below) and a loaded machine's scheduling does not reach
(at load 11-16 the 10% bound failed merges at 2.22-2.27 s of 2.2 s).

Before, the budget was checked between requests of 100 calls: with 0.2 s calls a 2 s budget
took 3.8 s here (12 s on a bigger pool), and with 2.8 s calls (``timeout = 3``) each call ran
to its timeout, 18 s, with no word of a cut."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import PYPROJECT, check, functions, git, project, write

BUDGET = 2.0
SLOW = """\
import time


def slow(n: int) -> int:
    time.sleep({seconds})
    return n + {step}
"""


def _diff_seconds(report: dict[str, object]) -> float:
    diff = report["diff"]
    assert isinstance(diff, dict) and diff["functions"] == 1, report
    return float(diff["seconds"])


@pytest.mark.parametrize("seconds", [0.2, 2.8])
def test_the_budget_bounds_the_diff_whatever_one_call_costs(
    seconds: float,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = PYPROJECT + f"timeout = 3\ndiff_budget = {{seconds = {BUDGET}}}\n"
    repo = project(tmp_path, {"pyproject.toml": config, "src/demo/slow.py": ""})
    write(repo, {"src/demo/slow.py": SLOW.format(seconds=seconds, step=1)})
    git(repo, "commit", "-qam", "slow")
    write(repo, {"src/demo/slow.py": SLOW.format(seconds=seconds, step=2)})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    assert _diff_seconds(report) <= 1.5 * BUDGET
    note = f"behaviour diff of demo.slow.slow: the diff budget ({BUDGET:g} s) cut the search"
    assert any(str(n).startswith(note) for n in report["notes"]), report["notes"]
    f = functions(report)["demo.slow.slow"]
    assert f["diff_note"].startswith(f"the diff budget ({BUDGET:g} s) cut the search")
    # the verdicts say the rc: a witness found in time is a change; none, and nothing fails
    assert rc == (1 if f["witnesses"] else 0)


# A module whose import takes longer than the whole budget (a large library at load 5-11:
# its import and its pool took the 2 s before its first call, #32).
SLOW_IMPORT = """\
import time

time.sleep({seconds})


def grade(points: int) -> str:
    return "high" if points >= {limit} else "low"
"""
TESTS = """\
from demo.graded import grade


def test_grade():
    for points in (5, 9, 10, 11, 50):
        assert grade(points) in ("high", "low")
"""


def _slow_import_change(tmp_path: Path, budget: float) -> Path:
    config = PYPROJECT + f"diff_budget = {{seconds = {budget}}}\n"
    repo = project(tmp_path, {"pyproject.toml": config, "tests/test_graded.py": TESTS})
    write(repo, {"src/demo/graded.py": SLOW_IMPORT.format(seconds=1.2, limit=10)})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "graded")
    write(repo, {"src/demo/graded.py": SLOW_IMPORT.format(seconds=1.2, limit=11)})
    git(repo, "add", "-A")
    return repo


def test_the_budget_counts_calls_not_the_import_before_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both sides import the module (1.2 s) before the 1 s budget starts, and so do the second
    run's workers: the change is found. Before, the import was the first call's time, the
    budget ran out on it, and the note said "after 0 of 5 inputs"."""
    repo = _slow_import_change(tmp_path, 1.0)
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.graded.grade"]
    assert f["status"] == "changed", f
    assert [w["call"] for w in f["witnesses"]] == ["grade(10)"]
    assert "budget" not in (f["diff_note"] or ""), f["diff_note"]
    assert rc == 1


def test_the_start_up_has_a_bound_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import past the start-up's limit: the function is not compared, and says why."""
    from codemode.behaviour import bounded

    monkeypatch.setattr(bounded, "START_LIMIT", 0.5)
    repo = _slow_import_change(tmp_path, 1.0)
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.graded.grade"]
    assert f["diff_note"] == "not compared: demo.graded.grade's module took over 0.5 s to import"
    assert not f["witnesses"] and rc == 0


DOUBLE = "def double(n: int) -> int:\n    return n * 2{extra}\n"


def _test_file(values: list[int]) -> str:
    lines = "".join(f"    assert double({v}) == {2 * v}\n" for v in values)
    return f"from demo.twice import double\n\n\ndef test_double():\n{lines}"


def test_gathering_the_inputs_has_a_bound_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pool past its limit (1,500 test calls to read, parse and bind; 10 ms): the function
    is not compared, and says why. Before, the diff waited for the pool however long it took
    (a test function of 6,000 asserts took 17 s at load 10)."""
    from codemode.behaviour import bounded

    monkeypatch.setattr(bounded, "POOL_LIMIT", 0.01)
    repo = project(
        tmp_path,
        {
            "src/demo/twice.py": DOUBLE.format(extra=""),
            "tests/test_twice.py": _test_file(list(range(1500))),
        },
    )
    write(repo, {"src/demo/twice.py": DOUBLE.format(extra=" + (n == 7)")})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.twice.double"]
    assert f["diff_note"] == (
        "not compared: its inputs took over 0.01 s to gather (the tests' calls, read and parsed)"
    ), f
    assert not f["witnesses"] and rc == 0
    assert any("not compared: its inputs took over" in n for n in report["notes"]), report


def test_a_budget_that_cuts_the_pool_keeps_the_calls_the_change_s_tests_added(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool holds 30 calls the old tests made and the one the change's test added, last
    in its file; a budget of 10 calls runs that one first (before, the first 10 in file
    order: no witness)."""
    config = PYPROJECT + "diff_budget = {calls = 10}\n"
    old_tests = _test_file(list(range(1, 31)))
    repo = project(
        tmp_path,
        {
            "pyproject.toml": config,
            "src/demo/twice.py": DOUBLE.format(extra=""),
            "tests/test_twice.py": old_tests,
        },
    )
    write(
        repo,
        {
            "src/demo/twice.py": DOUBLE.format(extra=" + (n == 40)"),
            "tests/test_twice.py": _test_file([*range(1, 31), 40]),
        },
    )
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.twice.double"]
    assert [w["call"] for w in f["witnesses"]] == ["double(40)"], f
    assert rc == 1
