"""Spec weakening is a verdict (#35): the review's call-outs are words of ``--fail-on`` and
``fail_on``; by default a run fails on the two that hide a behaviour change (a removed case
that fails at head, an edited expectation the code contradicts), and an expectation edit is
"together with the function" only when the function's own source changed.

Each test stages one edit in a real git repository and runs the real CLI (``main``) with real
workers; ``--no-diff`` keeps the behaviour diff's own verdict out of the exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode.cli.main import main
from gitkit import committed, git

CALC = "def base(x):\n    return x + 1\n\n\ndef user(x):\n    return base(x) * 2\n"
SPEC = """\
pk.calc.base:
  dataset:
    - case: {id: one, input: 1, expected: 2}
    - case: {id: two, input: 2, expected: 3}
pk.calc.user:
  dataset:
    - case: {id: one, input: 1, expected: 4}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    committed(tmp_path, {"pk/__init__.py": "", "pk/calc.py": CALC, "specs/calc.yml": SPEC})
    return tmp_path


def _stage(root: Path, rel: str, *edits: tuple[str, str]) -> None:
    path = root / rel
    text = path.read_text()
    for old, new in edits:
        assert old in text, (rel, old)
        text = text.replace(old, new, 1)
    path.write_text(text)
    git(root, "add", rel)


def _check(root: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["check", "--root", str(root), "--staged", "--no-diff", "--color", "never", *flags])
    return code, capsys.readouterr().out


def test_a_removed_passing_case_is_weakened_and_fails_only_on_request(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _stage(repo, "specs/calc.yml", ("    - case: {id: two, input: 2, expected: 3}\n", ""))
    code, out = _check(repo, capsys)
    assert code == 0, out
    assert "pk.calc.base[two] [weakened]: removed, and it still passes at head" in out
    assert "spec review: 1 weakened" in out
    code, out = _check(repo, capsys, "--fail-on", "weakened")  # refused before #35
    assert code == 1, out
    (repo / "pyproject.toml").write_text('[tool.codemode]\nfail_on = ["drifted", "weakened"]\n')
    assert _check(repo, capsys)[0] == 1


def test_a_removed_case_that_fails_at_head_fails_by_default(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _stage(repo, "pk/calc.py", ("return x + 1", "return x + 1 if x < 2 else x"))
    _stage(repo, "specs/calc.yml", ("    - case: {id: two, input: 2, expected: 3}\n", ""))
    code, out = _check(repo, capsys)
    assert code == 1, out
    assert "pk.calc.base[two] [hides_change]: removed, and it fails at head" in out
    # the function verdicts alone pass: the review's word is what fails the run
    assert "2 functions: 2 ok" in out
    assert _check(repo, capsys, "--fail-on", "drifted,error,changed")[0] == 0


def test_a_contradicted_edit_on_an_impacted_function_is_a_warning(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """user only calls the changed base: the edit of its expectation is not "together with the
    function", and the code contradicts it (it says 4, the edit 5)."""
    _stage(repo, "pk/calc.py", ("return x + 1", "return 1 + x"))  # base changes, not its outcome
    _stage(repo, "specs/calc.yml", ("expected: 4}", "expected: 5}"))
    code, out = _check(repo, capsys)
    assert code == 1, out
    assert "expectation edited together with the function" not in out
    assert (
        "pk.calc.user[one] [contradicted]: expectation edited, the function's own code unchanged "
        "(only pk.calc.base, which it calls), and the code contradicts it"
    ) in out
    assert "but accepting pk.calc.user[one] reverts the expectation this change edited" in out
    capsys.readouterr()
    main(["check", "--root", str(repo), "--staged", "--no-diff", "--format", "json"])
    (review,) = json.loads(capsys.readouterr().out)["reviews"]
    assert [(k["kind"], k["level"], k["verdict"]) for k in review["callouts"]] == [
        ("contradicted", "warning", "contradicted")
    ]


def test_an_edit_whose_case_cannot_run_is_not_called_contradicted(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The head's module fails to import: the code never ran, so it contradicts nothing; the
    error itself fails the run, not a word the review made up (the comment's recording showed
    `contradicted` for such a case)."""
    _stage(repo, "pk/calc.py", ("def base(x):", "import not_installed_anywhere\n\n\ndef base(x):"))
    _stage(repo, "specs/calc.yml", ("expected: 4}", "expected: 5}"))
    code, out = _check(repo, capsys)
    assert code == 1, out  # the import error is an error verdict
    assert "[contradicted]" not in out, out
    assert "pk.calc.user[one]: expectation edited, and the case could not run at head" in out


def test_an_edit_with_the_functions_own_change_is_quiet(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _stage(repo, "pk/calc.py", ("return x + 1", "return x + 2"))
    _stage(
        repo,
        "specs/calc.yml",
        ("input: 1, expected: 2}", "input: 1, expected: 3}"),
        ("input: 2, expected: 3}", "input: 2, expected: 4}"),
        ("input: 1, expected: 4}", "input: 1, expected: 6}"),
    )
    code, out = _check(repo, capsys)
    assert code == 0, out
    assert "pk.calc.base[one]: expectation edited together with the function" in out
    assert "pk.calc.user[one]: expectation edited together with pk.calc.base, which it calls" in out


def test_the_unknown_word_is_still_refused(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--root", str(repo), "--fail-on", "weakend"]) == 2
    err = capsys.readouterr().err
    assert "unknown verdicts ['weakend']" in err and "'hides_change'" in err
