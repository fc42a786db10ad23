"""Regen on a refactor-only change keeps the generated cases it wrote before (#35): their calls
are chosen first, under their ids, and exploring adds only what they miss. Before, the
re-exploration dropped `label[hundred]` (the refactor's mutants differ) for nothing."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from codemode.cli.main import main
from gitkit import committed, git

# docs/first-hour.md's project: two functions, a docstring example, a raise
PRICES = runpy.run_path(str(Path(__file__).parents[2] / "tools" / "first_hour.py"))["PRICES"]
# The same behaviour, written otherwise.
REFACTORED = PRICES.replace(
    '    if cents < 0:\n        raise ValueError("a price cannot be negative")\n'
    "    return round(cents * (1 + rate))",
    "    if cents >= 0:\n        gross = cents + cents * rate\n        return round(gross)\n"
    '    raise ValueError("a price cannot be negative")',
).replace(
    'return f"{cents // 100}.{cents % 100:02d} EUR"',
    'euros, rest = divmod(cents, 100)\n    return f"{euros}.{rest:02d} EUR"',
)


def _cases(spec: Path) -> list[str]:
    return [ln for ln in spec.read_text().splitlines() if ln.lstrip().startswith("- case:")]


def test_a_refactor_keeps_every_generated_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert REFACTORED != PRICES and REFACTORED.count("divmod") == 1
    committed(
        tmp_path,
        {
            "pyproject.toml": '[project]\nname = "tinyshop"\nversion = "0"\n',
            "src/tinyshop/__init__.py": "",
            "src/tinyshop/prices.py": PRICES,
        },
    )
    prices = tmp_path / "src" / "tinyshop" / "prices.py"
    assert main(["regen", "--root", str(tmp_path), "--all"]) == 0
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "specs")
    (spec,) = (tmp_path / "specs").iterdir()
    before = _cases(spec)
    assert len(before) >= 10, before

    prices.write_text(REFACTORED)
    git(tmp_path, "add", "-A")
    capsys.readouterr()
    assert main(["regen", "--root", str(tmp_path), "--staged"]) == 0
    out = capsys.readouterr().out
    assert _cases(spec) == before, out
    assert "inputs from spec" in out  # said where the cases' inputs came from
