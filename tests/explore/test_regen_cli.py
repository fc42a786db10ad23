"""`codemode regen` and `codemode accept` through main(), paired with the API calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode.check.run import run_check
from codemode.cli.main import main
from codemode.config import Config
from codemode.errors import FatalError
from codemode.explore.writing.accept import parse_ref, run_accept
from codemode.scope import Scope


def test_regen_dry_run_prints_the_diff_and_progress(
    shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (shop / "specs" / "text_dates.yml").read_bytes()
    code = main(["regen", "--root", str(shop), "--function", "shop.text.initials", "--dry-run"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "+++ b/specs/text_dates.yml" in out and "ok       shop.text.initials" in out
    assert "[1/1] shop.text.initials:" in err
    assert (shop / "specs" / "text_dates.yml").read_bytes() == before


def test_regen_writes_then_check_passes(shop: Path, shop_config: Config) -> None:
    assert (
        main(["regen", "--root", str(shop), "--function", "shop.customers.mask_email", "-q"]) == 0
    )
    report = run_check(
        shop_config, Scope("paths", paths=(str(shop / "specs" / "shop.customers.yml"),))
    )
    assert [f.status for f in report.functions] == ["ok"]


def test_accept_takes_the_observed_output_of_a_drifted_case(
    shop: Path, shop_config: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    path = shop / "specs" / "pricing.yml"
    before = path.read_text()
    assert main(["accept", "--root", str(shop), "shop.pricing.to_cents[rounding_half_up]"]) == 0
    after = path.read_text()
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    assert changed == [
        (
            '    - case: {id: rounding_half_up, input: "12.345", expected: 1234}',
            '    - case: {id: rounding_half_up, input: "12.345", expected: 1235}',
        )
    ]
    assert all(f.status == "ok" for f in run_check(shop_config, Scope("all")).functions)


def test_accept_leaves_passing_cases_alone(shop: Path, shop_config: Config) -> None:
    before = (shop / "specs" / "pricing.yml").read_bytes()
    report = run_accept(shop_config, ["shop.pricing.to_cents[whole]"])
    assert report.edits == () and "already passes" in report.notes[0]
    assert (shop / "specs" / "pricing.yml").read_bytes() == before


def test_accept_a_case_that_now_raises(shop: Path, shop_config: Config) -> None:
    src = shop / "src" / "shop" / "text.py"
    src.write_text(
        src.read_text().replace(
            'return "".join(part[0].upper()',
            'raise ValueError("no initials")\n    return "".join(part[0].upper()',
        )
    )
    report = run_accept(shop_config, ["shop.text.initials[two_words]"])
    assert report.functions[0].message == "accepted two_words"
    text = (shop / "specs" / "text_dates.yml").read_text()
    # In place: `raises` takes the place of `expected`, the rest keeps its bytes (#21); the
    # message is pinned by `match`, as an accepted witness's is (#35).
    assert (
        '{id: two_words, input: "ada lovelace", raises: ValueError, contains: "A", '
        "match: ^no initials$}"
    ) in text, text


@pytest.mark.parametrize(
    "bad", ["shop.pricing.to_cents", "x[", "shop.nope.f[c]", "shop.pricing.to_cents[nope]"]
)
def test_accept_refuses_unknown_references(shop_config: Config, bad: str) -> None:
    with pytest.raises(FatalError):
        if "[" in bad and bad.endswith("]"):
            run_accept(shop_config, [bad])
        else:
            parse_ref(bad)


def test_the_accept_hint_pasted_as_is_accepts_every_drifted_case(
    shop: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three drifted cases in one function and one in another, the code unchanged (the drift
    came from outside the change): the hint names the first function by its id, which accepts
    all of its drifted cases, and pasted as is it leaves nothing drifted (#23)."""
    import shlex
    import subprocess

    path = shop / "specs" / "pricing.yml"
    text = path.read_text()
    for old, new in (("90.0}", "91.0}"), ("50.0}", "51.0}"), ("expected: 5.0}", "expected: 6.0}")):
        assert old in text
        text = text.replace(old, new, 1)
    path.write_text(text)
    git = ["git", "-C", str(shop)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "specs"], check=True)
    capsys.readouterr()
    assert main(["check", "--root", str(shop), "--all", "--color", "never"]) == 1
    out = capsys.readouterr().out
    [hint] = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("codemode accept")]
    assert hint == (
        "codemode accept shop.pricing.apply_discount 'shop.pricing.to_cents[rounding_half_up]'"
    ), out
    assert main(["accept", "--root", str(shop), *shlex.split(hint)[2:]]) == 0
    capsys.readouterr()
    assert main(["check", "--root", str(shop), "--all", "-q"]) == 0
    assert "expected: 90.0}" in path.read_text() and "expected: 1235}" in path.read_text()
