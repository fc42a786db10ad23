"""docs/first-hour.md stays true: tools/first_hour.py re-runs every command of the recorded
first hour (Try it, the bootstrap, a drift, accept, the hook blocking a commit) and compares."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_recorded_first_hour_is_what_codemode_prints_today() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "first_hour.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_transcript_shows_each_step_of_the_first_hour() -> None:
    text = (ROOT / "docs" / "first-hour.md").read_text(encoding="utf-8")
    for step in (
        "$ codemode check --root examples/shop --all",
        "  codemode regen --all\n",  # an empty project is told how to start
        "$ codemode regen --all\n",
        "drifted: expected 1200, observed 1210",
        "tinyshop.prices.with_vat: accepted docstring_example, docstring_example_plus_one",
        "codemode check (eval specs of the staged change).........................Failed",
        # a weakening commit blocked, a weaker one let through with its review shown (#35)
        "tinyshop.prices.with_vat[three_cents] [hides_change]: removed, and it fails at head",
        "tinyshop.prices.with_vat[zero_cents] [weakened]: removed, and it still passes",
    ):
        assert step in text
