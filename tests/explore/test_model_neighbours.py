"""The model's cases plus the calls next to them that kill a mutant they leave alive (#22).

The realistic scripted model (tests/explore/realistic.py) writes what a capable model writes:
a withdrawal below the balance and one above it, a due date with one day and a negative
one, a USD charge whose total has two digits already. Each of those specs passed `check`
with the code's edge moved (`>` to `>=`, `<` to `<=`, the rounding dropped). Through the CLI
and a loopback server: regen adds the neighbouring call that shows the edge, and after the
edit `check` fails on it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
from pathlib import Path
from typing import Any

import pytest
import realistic
import yaml
from loopback import serve

from codemode.cli.main import main

M = realistic.MODULE
SOURCE = ("src", "billing", "accounts.py")


pytestmark = pytest.mark.usefixtures("allow_loopback")


def _regen(root: Path, *names: str) -> dict[str, Any]:
    functions = [a for n in names for a in ("--function", f"{M}.{n}")]
    argv = ["regen", "--root", str(root), "--model", "openai:gpt-4.1-mini", "--format", "json"]
    with serve(realistic.script) as (url, _seen):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main([*argv, "--base-url", url, "-q", *functions])
    assert code == 0, out.getvalue()
    return dict(json.loads(out.getvalue()))


def _cases(root: Path, name: str) -> list[dict[str, Any]]:
    data = yaml.safe_load((root / "specs" / f"{M}.yml").read_text())
    return [item["case"] for item in data[f"{M}.{name}"]["dataset"]]


def _check_after(root: Path, old: str, new: str) -> int:
    path = root.joinpath(*SOURCE)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return main(["check", "--root", str(root), "--all", "-q"])
    finally:
        path.write_text(text)


def test_the_edges_next_to_the_models_calls_become_cases(tmp_path: Path) -> None:
    root = realistic.project(tmp_path)
    report = _regen(root, "Wallet.withdraw", "due_date", "charge_total")
    assert {f["status"] for f in report["functions"]} == {"ok"}
    # the whole balance withdrawn: the receiver's balance or the amount moved onto the other
    withdraw = _cases(root, "Wallet.withdraw")
    edge = [
        c
        for c in withdraw
        if isinstance(c["inputs"]["self"], dict)
        and c["inputs"]["self"]["balance"] == c["inputs"]["amount"]
    ]
    assert edge and edge[0]["expected"] == "0", withdraw
    assert edge[0]["id"] in ("amount_minus_one", "self_balance_plus_one")
    due = _cases(root, "due_date")
    assert any(c["inputs"] == {"issued": dt.date(2024, 2, 28), "days": 0} for c in due), due
    # the model's own choice is all still there
    assert {"call_1", "call_2", "call_3"} <= {c["id"] for c in withdraw}
    assert main(["check", "--root", str(root), "--all", "-q"]) == 0
    for old, new in [
        ("if amount > self.balance:", "if amount >= self.balance:"),
        ("if days < 0:", "if days <= 0:"),
        (
            'return (charge.amount * Decimal("0.9") + charge.fee).quantize(Decimal("0.01"))',
            'return charge.amount * Decimal("0.9") + charge.fee',
        ),
    ]:
        assert _check_after(root, old, new) == 1, new


def test_the_report_gives_the_mutation_score_of_the_model_path(tmp_path: Path) -> None:
    root = realistic.project(tmp_path)
    report = _regen(root, "due_date")
    [due] = report["functions"]
    assert due["mutation_score"] == 1.0, due
    assert any("added next to the model's calls" in n for n in report["notes"]), report["notes"]
