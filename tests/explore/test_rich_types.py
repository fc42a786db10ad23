"""Snippets written the way models write them, on a project with rich types (acceptance 1 of #10).

They import ``datetime`` and ``decimal``, build the project's dataclasses, Enum members,
pydantic models and classes, call methods in sequence on one instance, read fields of
returned dates and catch the project's own exception class. Every call reaches the real
function with real objects; the model sees results with their types; the spec written passes
``codemode check`` and holds no junk case.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from scripted import Scripted, call_numbers

from codemode.check.run import run_check
from codemode.config import Config, load_config
from codemode.explore.writing.regen import run_regen
from codemode.scope import Scope

CORE = Path(__file__).parent / "billing_src" / "core.py"

SNIPPETS: dict[str, list[str]] = {
    "billing.core.with_vat": [
        "from decimal import Decimal\nfrom billing.core import with_vat\n"
        "for a in ['10.00', '0', '99.99']:\n    print(with_vat(Decimal(a)))\n"
        "try:\n    with_vat(Decimal('-1'))\nexcept ValueError as e:\n    print('rejected:', e)",
    ],
    "billing.core.due_date": [
        "import datetime\nfrom billing.core import due_date\n"
        "d = due_date(datetime.date(2024, 1, 31))\nprint(d.year, d.month, d.day, d.weekday())\n"
        "due_date(datetime.date(2024, 2, 28), days=1)\n"
        "try:\n    due_date(datetime.date(2024, 1, 1), -1)\nexcept ValueError:\n    pass",
    ],
    "billing.core.line_total": [
        "from decimal import Decimal\nfrom billing.core import Item, line_total\n"
        "it = Item(sku='A-1', price=Decimal('2.50'), qty=3)\nprint(it.sku, line_total(it))\n"
        "try:\n    line_total(Item('B-2', Decimal('1'), 0))\nexcept ValueError as e:\n    print(e)",
        # what a model falls back to when types cannot cross: junk, never a case
        "try:\n    line_total({'sku': 'A-1'})\nexcept Exception as e:\n    print(type(e).__name__)",
    ],
    "billing.core.status_label": [
        "from billing.core import Status, status_label\n"
        "[status_label(Status.PAID), status_label(Status('open'))]",
    ],
    "billing.core.greeting": [
        "from billing.core import Customer, greeting\n"
        "print(greeting(Customer(name='Ada', vip=True)))\ngreeting(Customer(name='Bob'))\n"
        "try:\n    greeting('Ada')\nexcept AttributeError:\n    pass",
    ],
    "billing.core.split": [
        "from decimal import Decimal\nfrom billing.core import split\n"
        "parts = split(Decimal('10'), 3)\nprint(len(parts), parts[0] + parts[1] + parts[2])\n"
        "try:\n    split(Decimal('1'), 0)\nexcept ValueError:\n    pass",
    ],
    "billing.core.Ledger.withdraw": [
        "from decimal import Decimal\nfrom billing.core import Ledger, InsufficientFunds\n"
        "l = Ledger(Decimal('5'))\nl.deposit(Decimal('10'))\nprint(l.withdraw(Decimal('3')), l.balance)\n"
        "try:\n    l.withdraw(Decimal('100'))\nexcept InsufficientFunds as e:\n    print('caught', e)",
    ],
}


@pytest.fixture
def billing(tmp_path: Path) -> Config:
    root = tmp_path / "billing"
    (root / "src" / "billing").mkdir(parents=True)
    (root / "src" / "billing" / "__init__.py").write_text("")
    shutil.copy(CORE, root / "src" / "billing" / "core.py")
    (root / "pyproject.toml").write_text(
        '[tool.codemode]\nspecs = ["specs/**/*.yml"]\nsource_roots = ["src"]\n'
    )
    return load_config(root)


def choose_every_call(text: str) -> dict[str, Any]:
    calls = call_numbers(text)
    return {"cases": [{"call": n, "id": f"case {n}"} for n in calls]}


def test_model_written_snippets_cross_with_real_types(billing: Config) -> None:
    seen: dict[str, str] = {}

    def rounds(text: str) -> list[str]:
        fid = re.search(r"Function `([\w.]+)`", text).group(1)  # type: ignore[union-attr]
        return SNIPPETS[fid]

    def choose(text: str) -> dict[str, Any]:
        fid = re.search(r"Function `([\w.]+)`", text).group(1)  # type: ignore[union-attr]
        seen[fid] = text
        return choose_every_call(text)

    script = Scripted([rounds], choose=choose)
    report = run_regen(
        billing, Scope("all"), dry_run=False, model=script.model(), function_ids=tuple(SNIPPETS)
    )
    status = {f.id: f.status for f in report.functions}
    # every one: a dataclass with a Decimal field and a method after another are written (#22)
    written = {"with_vat", "due_date", "status_label", "greeting", "split", "line_total"}
    written.add("withdraw")
    assert {k.rsplit(".", 1)[-1] for k, v in status.items() if v == "ok"} == written
    # no snippet failed: every value crossed
    assert not [n for n in report.notes if "failed in the sandbox" in n], report.notes
    out = {fid: text.split("snippet 1:", 1)[1] for fid, text in seen.items()}
    assert "with_vat(Decimal('10.00')) -> Decimal('12.00')" in out["billing.core.with_vat"]
    assert "printed: 12.00" in out["billing.core.with_vat"]
    assert "-> datetime.date(2024, 3, 1)" in out["billing.core.due_date"]
    assert "printed: 2024 3 1 4" in out["billing.core.due_date"]  # fields of a returned date
    assert (
        "line_total(Item(sku='A-1', price=Decimal('2.50'), qty=3)) -> Decimal('7.50')"
        in out["billing.core.line_total"]
    )
    assert 'status_label(Status.PAID) -> "paid in full"' in out["billing.core.status_label"]
    assert "printed: Dear Ada" in out["billing.core.greeting"]
    assert "-> (Decimal('3.33'), Decimal('3.33'), Decimal('3.34'))" in out["billing.core.split"]
    assert "printed: 3 10" in out["billing.core.split"]
    ledger = out["billing.core.Ledger.withdraw"]
    # methods in sequence on one instance, and the project's own exception caught
    assert (
        "withdraw(Decimal('3')) on Ledger(Decimal('5')) after .deposit(Decimal('10')) "
        "-> Decimal('12')" in ledger
    )
    assert "raises InsufficientFunds: balance 12 < 100" in ledger
    assert "printed: 12 12\n" in ledger and "caught InsufficientFunds: balance 12 < 100" in ledger
    assert 'line_total({"sku": "A-1"}) raises AttributeError' in out["billing.core.line_total"]
    # vowel serializers rebuild what YAML cannot hold: Decimal, Enum members, pydantic models
    spec = (billing.root / "specs" / "billing.core.yml").read_text()
    assert "codemode_billing_core_with_vat: {schema: {amount: decimal.Decimal}}" in spec
    assert "{schema: {status: billing.core.Status}}" in spec
    assert "inputs: {customer: {name: Ada, vip: true}}, expected: Dear Ada" in spec
    # what was written passes check, and no case is an incidental wrong-type error
    for spec in (billing.root / "specs").glob("*.yml"):
        text = spec.read_text()
        assert "AttributeError" not in text and "TypeError" not in text
        check = run_check(billing, Scope("paths", paths=(str(spec),)))
        assert {f.status for f in check.functions} == {"ok"}, check.functions
