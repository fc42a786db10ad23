"""``codemode check`` and ``codemode schema`` as a user runs them: exit codes, JSON, text."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from codemode.cli.main import main
from codemode.config import load_config
from codemode.flows.checking import check
from codemode.scope import Scope

SHOP = Path(__file__).parents[2] / "examples" / "shop"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def run_cli(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CODEMODE_")},
        "CODEMODE_WARM": "0",  # no warm worker outliving a test
    }
    return subprocess.run(
        [sys.executable, "-m", "codemode", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
    )


# --- the JSON contract ----------------------------------------------------------------------


def _assert_contract(report: dict[str, Any]) -> None:
    assert isinstance(report["functions"], list) and report["functions"]
    for f in report["functions"]:
        assert isinstance(f["id"], str) and isinstance(f["status"], str)
        assert isinstance(f["spec"], str)
        for c in f["cases"]:
            assert {"id", "status", "expected", "observed"} <= c.keys()


def test_json_report_contract(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["check", "--root", str(shop), "--all", "--format", "json"], capsys)
    assert code == 1
    report = json.loads(out)
    _assert_contract(report)
    by_id = {f["id"]: f for f in report["functions"]}
    to_cents = by_id["shop.pricing.to_cents"]
    assert (to_cents["status"], to_cents["spec"]) == ("drifted", "specs/pricing.yml")
    case = next(c for c in to_cents["cases"] if c["id"] == "rounding_half_up")
    assert (case["status"], case["expected"], case["observed"], case["line"]) == (
        "drifted",
        1234,
        1235,
        24,
    )
    raising = next(
        c
        for c in by_id["shop.pricing.apply_discount"]["cases"]
        if c["id"] == "negative_price_raises"
    )
    assert raising["expected"] == {"raises": "ValueError", "match": "negative"}
    assert raising["observed"] == {
        "raised": "ValueError",
        "message": raising["observed"]["message"],
    }
    statuses = [f["status"] for f in report["functions"]]
    assert (statuses.count("ok"), statuses.count("drifted")) == (13, 1)


def test_cli_string_and_api_call_agree(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_main(["check", "--root", str(shop), "--all", "--format", "json"], capsys)
    from_cli = json.loads(out)
    from_api = json.loads(check(load_config(shop), Scope("all")).to_json())
    strip = ("notes", "duration_ms", "elapsed")

    def clean(obj: Any) -> Any:
        if isinstance(obj, dict):
            return {k: clean(v) for k, v in obj.items() if k not in strip}
        if isinstance(obj, list):
            return [clean(v) for v in obj]
        return obj

    assert clean(from_cli) == clean(from_api)


def test_report_out_writes_the_same_json(
    shop: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "out" / "report.json"
    code, out, _ = run_main(
        ["check", "--root", str(shop), "--all", "--format", "json", "--report-out", str(out_file)],
        capsys,
    )
    assert code == 1
    assert json.loads(out_file.read_text())["functions"] == json.loads(out)["functions"]


# --- terminal output ------------------------------------------------------------------------


def test_terminal_output_names_spec_line_function_and_case(
    shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_main(["check", "--root", str(shop), "--all", "--color", "never"], capsys)
    lines = out.splitlines()
    assert lines[0] == (
        "specs/pricing.yml:24: shop.pricing.to_cents[rounding_half_up]: drifted: "
        "expected 1234, observed 1235"
    )
    assert lines[1] == "    call: to_cents('12.345')"  # which call drifted (#19)
    assert lines[2].startswith(
        "codemode: 14 functions: 13 ok, 1 drifted; 33 cases: 32 passed, 1 drifted ("
    )
    assert "codemode accept 'shop.pricing.to_cents[rounding_half_up]'" in out
    assert "\x1b[" not in out
    assert code == 1


def test_terminal_shows_a_short_diff_for_structures(
    make_project: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project("ledger")
    spec = root / "specs" / "drift.yml"
    spec.write_text(
        "ledger.money.split_bill:\n  dataset:\n    - case:\n        id: moved_cent\n"
        "        inputs: [1001, [ann, bob]]\n"
        "        expected: [{person: ann, cents: 500}, {person: bob, cents: 501}]\n",
        encoding="utf-8",
    )
    code, out, _ = run_main(["check", "--root", str(root), str(spec), "--color", "never"], capsys)
    assert code == 1
    assert out.splitlines()[:4] == [
        "specs/drift.yml:3: ledger.money.split_bill[moved_cent]: drifted: "
        'expected [{"person": "ann", "cents": 500}, {"person": "bob", "cents": 501}], '
        'observed [{"person": "ann", "cents": 501}, {"person": "bob", "cents": 500}]',
        "    call: split_bill(1001, ['ann', 'bob'])",
        "    [0].cents: 500 → 501",
        "    [1].cents: 501 → 500",
    ]


def test_verbose_lists_passed_cases_and_quiet_hides_notes(
    shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run_main(["check", "--root", str(shop), "--all", "-v"], capsys)
    assert "shop.pricing.with_vat[default_rate]: passed" in out
    _, quiet, _ = run_main(["check", "--root", str(shop), "--all", "-q"], capsys)
    assert "passed" not in quiet.splitlines()[0]


# --- exit codes -----------------------------------------------------------------------------


def test_exit_0_when_clean(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = str(shop / "specs" / "cart_store.yml")
    assert run_main(["check", "--root", str(shop), clean], capsys)[0] == 0
    # a drift that --fail-on does not list is reported but does not fail
    code, out, _ = run_main(["check", "--root", str(shop), "--all", "--fail-on", "error"], capsys)
    assert (code, "1 drifted" in out) == (0, True)


def test_exit_1_on_drift_and_on_error(shop: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(["check", "--root", str(shop), "--all"], capsys)[0] == 1
    bad = shop / "specs" / "broken.yml"
    bad.write_text("shop.pricing.nope:\n  dataset:\n    - case: {input: 1, expected: 1}\n")
    code, out, _ = run_main(["check", "--root", str(shop), str(bad)], capsys)
    assert code == 1
    assert "specs/broken.yml:3: shop.pricing.nope[case_1]: error: shop.pricing has no" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "--bogus"], "unrecognized arguments: --bogus"),
        (["check", "--shard", "5/2"], "--shard '5/2': write K/N"),
        (["check", "no/such/spec.yml"], "no/such/spec.yml: no such file or directory"),
        (["check", "--staged", "--all"], "choose one scope"),
        (["check", "--python", "/no/such/python"], "the configured Python '/no/such/python'"),
        (["check", "--fail-on", "drifty"], "drifty"),
    ],
)
def test_exit_2_on_usage_errors(
    shop: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run_main([*argv, "--root", str(shop)], capsys)
    assert code == 2
    assert "codemode: error: " in err
    assert message in err


def test_exit_3_on_an_internal_error(
    shop: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A bug (not the user's mistake: an unwritable --report-out is exit 2, tests/cli/
    # test_exit_codes.py): the traceback and exit 3.
    import codemode.check.run

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(codemode.check.run, "run_check", broken)
    code, _, err = run_main(["check", "--root", str(shop), "--all"], capsys)
    assert code == 3
    assert "ZeroDivisionError: a bug" in err and "internal error (exit 3)" in err


def test_exit_codes_through_a_real_subprocess(shop: Path) -> None:
    clean = run_cli("check", "--root", str(shop), str(shop / "specs" / "cart_store.yml"))
    assert (clean.returncode, clean.stderr) == (0, "")
    assert clean.stdout.startswith("codemode: 5 functions: 5 ok; 9 cases: 9 passed")
    drift = run_cli("check", "--all", "--format", "json", cwd=shop)
    assert drift.returncode == 1
    _assert_contract(json.loads(drift.stdout))
    usage = run_cli("check", "--shard", "0/0", "--root", str(shop))
    assert usage.returncode == 2
    blocker = shop / "blocker"
    blocker.write_text("")
    # an output file that cannot be written is the user's to fix: one line, exit 2 (#14)
    unwritable = run_cli("check", "--root", str(shop), "--report-out", str(blocker / "x.json"))
    assert unwritable.returncode == 2
    assert unwritable.stderr.count("\n") == 1 and "Traceback" not in unwritable.stderr


# --- codemode schema ------------------------------------------------------------------------


def test_schema_command_prints_a_json_schema_that_specs_satisfy(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_main(["schema"], capsys)
    assert code == 0
    schema = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for spec in sorted((SHOP / "specs").glob("*.yml")):
        data = yaml.safe_load(spec.read_text(encoding="utf-8"))
        jsonschema.validate(json.loads(json.dumps(data, default=str)), schema)
    with pytest.raises(jsonschema.ValidationError, match="expectd"):
        jsonschema.validate({"m.f": {"dataset": [{"case": {"expectd": 1}}]}}, schema)
