"""The model loop keeps its work (#22): codemode's own serializer blocks regenerate, a
malformed answer or a budget stop ends one function with its recorded calls kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from projectkit import project
from scripted import Scripted, choose_all

from codemode.check.run import run_check
from codemode.config import load_config
from codemode.explore.writing.regen import run_regen
from codemode.scope import Scope

MONEY = """\
from decimal import Decimal


def with_vat(amount: Decimal, rate: Decimal = Decimal("0.2")) -> Decimal:
    if amount < 0:
        raise ValueError("negative amount")
    return (amount * (1 + rate)).quantize(Decimal("0.01"))
"""
FID = "pkg.money.with_vat"
IDS = ["call_1_returns", "call_2_returns", "call_3_raises", "amount_zero"]
PLAN = [
    "from decimal import Decimal\nfrom pkg.money import with_vat\n"
    "with_vat(Decimal('10'))\nwith_vat(Decimal('10'), rate=Decimal('0.07'))\n"
    "try:\n    with_vat(Decimal('-1'))\nexcept ValueError:\n    pass"
]


def _regen(root: Path, model: Any, *ids: str) -> Any:
    return run_regen(load_config(root), Scope("all"), dry_run=False, model=model, function_ids=ids)


def test_a_block_written_with_codemodes_own_serializer_regenerates(tmp_path: Path) -> None:
    root = project(tmp_path, {"src/pkg/money.py": MONEY})
    first = _regen(root, Scripted([PLAN], choose=choose_all()).model(), FID)
    assert [f.status for f in first.functions] == ["ok"], first.functions
    text = (root / "specs" / "pkg.money.yml").read_text()
    assert "serializer: codemode_pkg_money_with_vat" in text and "decimal.Decimal" in text
    # an unchanged function named again, then a behaviour-preserving edit: both regenerate
    again = _regen(root, Scripted([PLAN], choose=choose_all()).model(), FID)
    assert [f.status for f in again.functions] == ["ok"], again.functions
    src = root / "src" / "pkg" / "money.py"
    src.write_text(MONEY.replace("(1 + rate)", "(rate + 1)"))
    edited = _regen(root, Scripted([PLAN], choose=choose_all()).model(), FID)
    assert [f.status for f in edited.functions] == ["ok"], edited.functions
    assert (root / "specs" / "pkg.money.yml").read_text().count("codemode_pkg_money_with_vat:") == 1
    check = run_check(load_config(root), Scope("all"))
    assert [f.status for f in check.functions] == ["ok"]
    # the model's three calls, and the one next to them on the edge of `amount < 0`
    ids = [c.id for f in check.functions for c in f.cases]
    assert ids == IDS, ids


def test_the_own_serializer_is_extended_by_a_new_parameter(tmp_path: Path) -> None:
    root = project(tmp_path, {"src/pkg/money.py": MONEY})
    amount_only = [
        "from decimal import Decimal\nfrom pkg.money import with_vat\nwith_vat(Decimal('10'))"
    ]
    _regen(root, Scripted([amount_only], choose=choose_all()).model(), FID)
    assert "schema: {amount: decimal.Decimal}" in (root / "specs" / "pkg.money.yml").read_text()
    (root / "src" / "pkg" / "money.py").write_text(MONEY.replace("(1 + rate)", "(rate + 1)"))
    both = _regen(root, Scripted([PLAN], choose=choose_all()).model(), FID)
    assert [f.status for f in both.functions] == ["ok"], both.functions
    text = (root / "specs" / "pkg.money.yml").read_text()
    assert "schema: {amount: decimal.Decimal, rate: decimal.Decimal}" in text, text
    check = run_check(load_config(root), Scope("all"))
    assert [f.status for f in check.functions] == ["ok"]
    ids = [c.id for f in check.functions for c in f.cases]
    assert ids == IDS, ids


PICK = """\
import random


def pick(names: list[str]) -> str:
    if not names:
        raise ValueError("nobody")
    return random.choice(names)
"""


def test_a_random_pick_never_becomes_a_case_and_the_reason_is_said(tmp_path: Path) -> None:
    """Two gate runs let a 1-in-3 pick through one time in nine; ten runs, once in 59,000."""
    root = project(tmp_path, {"src/pkg/pick.py": PICK})
    calls = "\n".join(f"pick(['a{i}', 'b{i}', 'c{i}'])" for i in range(16))
    plan = [
        f"from pkg.pick import pick\n{calls}\npick(['solo'])\ntry:\n    pick([])\nexcept ValueError:\n    pass"
    ]
    report = _regen(root, Scripted([plan], choose=choose_all(30)).model(), "pkg.pick.pick")
    assert [f.status for f in report.functions] == ["ok"], report.functions
    data = yaml.safe_load((root / "specs" / "pkg.pick.yml").read_text())
    written = [item["case"] for item in data["pkg.pick.pick"]["dataset"]]
    assert [c.get("expected", c.get("raises")) for c in written] == ["solo", "ValueError"]
    [refused] = [f.refused for f in report.functions]
    assert refused and all("disagreed with the record" in r.reason for r in refused), refused


def test_refused_choices_are_reported_and_shown_to_the_model(tmp_path: Path) -> None:
    import realistic

    root = realistic.project(tmp_path)
    codes = realistic.R1["order_total"]
    plan = [realistic._imports(c) + c for c in codes]
    script = Scripted([plan], choose=choose_all(12))
    fid = f"{realistic.MODULE}.order_total"
    report = _regen(root, script.model(), fid)
    assert [f.status for f in report.functions] == ["ok"], report.functions
    choose_prompt = script.prompts[-1][1]
    assert "[not writable: AttributeError raised by Python, not by the project" in choose_prompt
    [refused] = [f.refused for f in report.functions]
    junk = next(r for r in refused if "AttributeError raised by Python" in r.reason)
    assert junk.call.startswith("order_total(") and "raises AttributeError" in junk.call
    assert junk.remedy == "pass the kind of value the function takes" and junk.id


def test_the_sandbox_clock_is_the_hosts_and_a_clock_read_is_marked(tmp_path: Path) -> None:
    """``f(date.today())`` in a snippet passes the date the function sees as today; the call
    reads the clock, is marked so in the tool result, and its outcome (which would change
    with the date) is never a case (#22)."""
    import datetime as dt

    import realistic

    root = realistic.project(tmp_path)
    code = "print(is_overdue(datetime.date.today()), is_overdue(datetime.date(2000, 1, 1)))"
    script = Scripted([[realistic._imports(code) + code]], choose=choose_all(12))
    report = _regen(root, script.model(), f"{realistic.MODULE}.is_overdue")
    shown = script.prompts[-1][1]
    today = dt.date.today()
    assert f"is_overdue(datetime.date({today.year}, {today.month}, {today.day})) -> false" in shown
    assert "[read the clock (date.today())" in shown
    data = yaml.safe_load((root / "specs" / f"{realistic.MODULE}.yml").read_text())
    written = [i["case"] for i in data[f"{realistic.MODULE}.is_overdue"]["dataset"]]
    assert [c["inputs"] for c in written] == [[dt.date(2000, 1, 1)]]
    [refused] = [f.refused for f in report.functions]
    assert [r.reason.split(";")[0] for r in refused] == ["it read the clock (date.today())"]
    assert refused[0].remedy == "pass the time in as a parameter"
