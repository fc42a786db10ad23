"""Spec forms for the values real code passes and returns (#22): nested builders (a list of
pydantic models with Decimal fields, a frozen dataclass with Decimal and Enum fields), a
method's receiver recipe (the constructor's arguments and the calls made before), and a
generator's items (or the error raised while iterating) as its output. The model's calls
become cases that `check` replays, through the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import realistic
import yaml
from scripted import Scripted, choose_all

from codemode.cli.main import main
from codemode.config import load_config
from codemode.explore.writing.regen import run_regen
from codemode.scope import Scope

M = realistic.MODULE


def _explore(root: Path, name: str) -> Any:
    snippets = [
        f"{realistic._imports(code)}{code}" for code in realistic.R1[name] + realistic.R2[name]
    ]
    model = Scripted([snippets], choose=choose_all(12)).model()
    return run_regen(
        load_config(root), Scope("all"), dry_run=False, model=model, function_ids=(f"{M}.{name}",)
    )


def _cases(root: Path, name: str) -> list[dict[str, Any]]:
    data = yaml.safe_load((root / "specs" / f"{M}.yml").read_text())
    return [item["case"] for item in data[f"{M}.{name}"]["dataset"]]


def _schema(root: Path, name: str) -> dict[str, str]:
    data = yaml.safe_load((root / "specs" / f"{M}.yml").read_text())
    block = data[f"{M}.{name}"]
    return dict(data["serializers"][block["serializer"]]["schema"])


def test_a_method_called_after_others_on_one_instance_is_one_case(tmp_path: Path) -> None:
    root = realistic.project(tmp_path)
    report = _explore(root, "Wallet.withdraw")
    assert [f.status for f in report.functions] == ["ok"], report
    assert _schema(root, "Wallet.withdraw") == {
        "self": f"{M}.Wallet",
        "amount": "decimal.Decimal",
    }
    cases = _cases(root, "Wallet.withdraw")
    first = {"self": [{"owner": "ada", "balance": "100"}, {"deposit": ["50"]}], "amount": "30"}
    assert {"id": "call_1_returns", "inputs": first, "expected": "120"} in cases
    assert any(c.get("raises") == "InsufficientFunds" for c in cases)
    assert main(["check", "--root", str(root), "--all", "-q"]) == 0


def test_lists_of_models_and_dataclasses_with_decimal_fields_are_written(tmp_path: Path) -> None:
    root = realistic.project(tmp_path)
    for name in ("order_total", "charge_total"):
        report = _explore(root, name)
        assert [f.status for f in report.functions] == ["ok"], report
    assert _schema(root, "order_total")["lines"] == f"list[{M}.Line]"
    assert _schema(root, "charge_total") == {"charge": f"{M}.Charge"}
    lines = [c["inputs"]["lines"] for c in _cases(root, "order_total") if "lines" in c["inputs"]]
    assert [{"sku": "A", "price": "2.50", "qty": 2}, {"sku": "B", "price": "1.25"}] in lines
    charges = [c["inputs"]["charge"] for c in _cases(root, "charge_total")]
    assert {"amount": "20", "currency": "USD", "fee": "1.50"} in charges
    # junk (dicts where Lines were wanted) is never a case
    assert not any(c.get("raises") == "AttributeError" for c in _cases(root, "order_total"))
    assert main(["check", "--root", str(root), "--all", "-q"]) == 0


def test_a_generators_items_and_its_error_while_iterating_are_outcomes(tmp_path: Path) -> None:
    root = realistic.project(tmp_path)
    report = _explore(root, "instalments")
    assert [f.status for f in report.functions] == ["ok"], report
    outcomes = [c.get("expected", c.get("raises")) for c in _cases(root, "instalments")]
    assert ["3.33", "3.33", "3.34"] in outcomes and "ValueError" in outcomes
    assert main(["check", "--root", str(root), "--all", "-q"]) == 0


HAND = """\
serializers:
  hand: {schema: {lines: 'list[billing.accounts.Line]', self: billing.accounts.Wallet, amount: decimal.Decimal, total: decimal.Decimal}}
  plain: {schema: {charge: billing.accounts.Charge}}
billing.accounts.order_total:
  serializer: hand
  dataset:
    - case: {id: two, inputs: {lines: [{sku: A, price: '2.50', qty: 2}]}, expected: '5.00'}
billing.accounts.Wallet.withdraw:
  serializer: hand
  dataset:
    - case: {id: after_deposit, inputs: {self: [{owner: a, balance: '1'}, {deposit: {amount: '4'}}], amount: '5'}, expected: '0'}
    - case: {id: too_much, inputs: {self: {owner: a}, amount: '1'}, raises: InsufficientFunds}
billing.accounts.charge_total:
  serializer: plain
  dataset:
    - case: {id: usd, inputs: {charge: {amount: '10', currency: USD}}, expected: '9.00'}
billing.accounts.instalments:
  serializer: hand
  dataset:
    - case: {id: two, inputs: {total: '7', parts: 2}, expected: ['3.50', '3.50']}
    - case: {id: none, inputs: {total: '7', parts: 0}, raises: ValueError, match: at least 1}
"""


def test_hand_written_specs_use_the_same_forms(tmp_path: Path) -> None:
    root = realistic.project(tmp_path)
    (root / "specs" / "hand.yml").write_text(HAND)
    assert main(["check", "--root", str(root), "--all", "-q"]) == 0
    broken = HAND.replace("expected: '0'", "expected: '1'")
    (root / "specs" / "hand.yml").write_text(broken)
    assert main(["check", "--root", str(root), "--all", "-q"]) == 1
