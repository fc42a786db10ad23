"""One exit rule for check, regen and accept, through ``main([...])``: 0 clean, 1 a verdict the
run fails on, 2 the user's mistake in one line, never "internal error" for it (issue #14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode.cli.main import main
from codemode.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from codemode.report.model import FunctionResult, Problem, Report
from shopkit import shop  # noqa: F401  (a fixture)


def test_the_rule_is_the_verdicts_against_fail_on() -> None:
    drifted = Report(functions=(FunctionResult("m.f", "drifted"),))
    assert drifted.exit_code(("drifted", "error")) == EXIT_FAILED
    assert drifted.exit_code(("error",)) == EXIT_OK
    problem = Report(problems=(Problem("specs/a.yml", 3, "bad"),))
    assert problem.exit_code(("error",)) == EXIT_FAILED
    assert problem.exit_code(("drifted",)) == EXIT_OK


@pytest.mark.parametrize("option", ["--report-out", "--junit-out"])
def test_an_unwritable_output_file_is_a_usage_error_in_one_line(
    shop: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    option: str,
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    target = blocker / "report.out"  # its folder is a file: no one can write it
    spec = str(shop / "specs" / "pricing.yml")
    code = main(["check", "--root", str(shop), spec, option, str(target)])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    assert err.count("\n") == 1 and err.startswith(f"codemode: error: {option} {target}: ")
    assert "internal error" not in err and "Traceback" not in err


def test_check_fails_on_the_drifted_case_and_passes_with_fail_on_none(
    shop: Path,  # noqa: F811
) -> None:
    spec = str(shop / "specs" / "pricing.yml")
    assert main(["check", "--root", str(shop), spec, "-q"]) == EXIT_FAILED
    argv = ["check", "--root", str(shop), spec, "-q", "--fail-on", "none"]
    assert main(argv) == EXIT_OK


def test_accept_exits_by_the_same_rule_in_text_and_json(
    shop: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A case that already passes, in a function that passes: nothing to do, nothing wrong.
    for fmt in ("text", "json"):
        ref = "shop.pricing.apply_discount[basic]"
        assert main(["accept", "--root", str(shop), "--format", fmt, ref]) == EXIT_OK
    # ... in a function another case of which drifted: the function still fails the run.
    ref = "shop.pricing.to_cents[whole]"
    assert main(["accept", "--root", str(shop), "--format", "json", ref]) == EXIT_FAILED
    # The drifted case is accepted; then its function is ok.
    ref = "shop.pricing.to_cents[rounding_half_up]"
    assert main(["accept", "--root", str(shop), "--format", "json", ref]) == EXIT_OK
    # An unknown case is the user's mistake.
    capsys.readouterr()
    assert main(["accept", "--root", str(shop), "shop.pricing.to_cents[nope]"]) == EXIT_USAGE
    assert "no such case" in capsys.readouterr().err
