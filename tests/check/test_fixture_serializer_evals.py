"""Function keys (fixture, serializer, evals) and top-level fixtures/serializers/codemode."""

from __future__ import annotations

from collections import Counter

import pytest
from ledger_report import LEDGER, Ledger

from codemode.check.verify import Verifier
from codemode.config import load_config
from codemode.specs.spec_files import load_spec_file
from codemode.worker.make import make_worker


def test_sqlite_fixture_with_generator_teardown(ledger: Ledger) -> None:
    assert ledger.function("accounts.balance").status == "ok"
    assert ledger.status("accounts.transfer[first]") == "passed"
    # scope: eval -> the second transfer sees the first one's effect
    assert ledger.status("accounts.transfer[state_kept_within_eval]") == "passed"
    assert ledger.status("accounts.transfer[kwargs_and_fixture]") == "passed"
    # ...and a new function block gets a fresh database
    assert ledger.status("accounts.overdrawn[fresh_db_per_block]") == "passed"
    log = Counter(ledger.log())
    # three function blocks use `db` (scope eval): three setups, and every teardown ran
    assert (log["db setup"], log["db teardown"]) == (3, 3)


def test_fixture_scopes_counted(ledger: Ledger) -> None:
    assert ledger.function("accounts.Tally.bump").status == "ok"  # case: 1, 1, 1
    assert ledger.function("accounts.Tally.bump_again").status == "ok"  # eval: 1, 2, 3
    assert ledger.function("accounts.tally_bump").status == "ok"  # file: 1, 2 ...
    assert ledger.function("accounts.tally_peek").status == "ok"  # ... 3 in the next block
    log = Counter(ledger.log())
    assert log["tally init case"] == 3  # once per case
    assert log["tally init eval"] == 1  # once for the function block
    assert log["tally init file"] == 1  # once for the spec file
    assert log["tally teardown file"] == 1  # at the end of the file


def test_class_fixture_cls_args_kwargs_and_teardowns(ledger: Ledger) -> None:
    case = ledger.case("accounts.Wallet.label[cls_args_kwargs]")
    assert (case.status, case.observed) == ("passed", "ann (GBP)")
    # scope case: each case gets a new Wallet(ann, 100)
    assert ledger.function("accounts.Wallet.deposit").status == "ok"
    log = Counter(ledger.log())
    assert log["wallet ann closed"] == 4  # teardown: Wallet.close, per case (3 + 1)
    assert log["closed by function bob"] == 1  # teardown: an import path, scope eval


def test_methods_static_and_class_methods(ledger: Ledger) -> None:
    assert ledger.status("accounts.Wallet.fee[staticmethod_min]") == "passed"
    assert ledger.status("accounts.Wallet.empty[classmethod]") == "passed"
    assert ledger.status("accounts.Wallet.statement[empty_statement]") == "passed"


def test_serializer_schema_builds_a_dataclass(ledger: Ledger) -> None:
    assert ledger.status("orders.line_total[dataclass_from_mapping]") == "passed"
    assert ledger.status("orders.line_total[positional_list]") == "passed"


def test_serializer_schema_per_parameter(ledger: Ledger) -> None:
    case = ledger.case("orders.shipping[per_parameter_schema]")
    assert (case.status, case.observed) == ("passed", "3 items for ann to Lyon, FR")


def test_serializer_function(ledger: Ledger) -> None:
    assert ledger.status("orders.discounted[serializer_fn_inputs]") == "passed"
    assert ledger.status("orders.discounted[serializer_fn_input]") == "passed"


def test_serializer_schema_builds_a_pydantic_model(ledger: Ledger) -> None:
    assert ledger.function("models.discount_rate").status == "ok"
    assert ledger.function("models.promote").status == "ok"


@pytest.mark.parametrize(
    ("ref", "check"),
    [
        ("money.to_cents[whole]", "IsInt"),  # type
        ("money.split_bill[namedtuple_as_data]", "AddsUp"),  # assertion over input and output
        ("money.split_bill[namedtuple_as_data]", "Fair"),
        ("text.slugify[accents]", "Lowercase"),
        ("text.slugify[accents]", "NoSpaces"),  # pattern
        ("text.slugify[accents]", "Quick"),  # duration, in seconds
        ("text.shout[prints_are_kept_off]", "EchoesInput"),  # contains_input, case-insensitive
        ("text.greeting[as_strings]", "ContainsName"),  # contains_input, as_strings
        ("text.emails[two]", "ListOfStr"),
        ("dates.next_business_day[friday_to_monday]", "IsDate"),
    ],
)
def test_function_evaluators_apply_to_every_case(ledger: Ledger, ref: str, check: str) -> None:
    checks = {c.name: c for c in ledger.case(ref).checks}
    assert checks[check].passed is True, checks[check].message


def test_evaluators_judge_outputs_only(ledger: Ledger) -> None:
    # A raising case is judged by `raises`; IsInt does not run on it.
    case = ledger.case("money.to_cents[garbage_raises]")
    assert [c.name for c in case.checks] == ["raises", "match"]


def test_rubric_is_skipped_without_a_model(ledger: Ledger) -> None:
    judged = ledger.case("text.title_case[judged_only]")
    assert judged.status == "skipped"
    assert "never calls a model" in judged.message
    emails = ledger.case("text.emails[two]")
    assert emails.status == "passed"  # a skipped rubric does not hide the other checks
    assert {c.name: c.passed for c in emails.checks}["Judge"] is None


def test_codemode_metadata_marks_generated_cases(ledger: Ledger) -> None:
    fn = ledger.function("text.word_count")
    assert fn.status == "ok"
    assert {c.id: c.generated for c in fn.cases} == {"two_words": True, "hand_written": False}


def test_float_tolerance_is_configurable() -> None:
    spec = load_spec_file(LEDGER / "specs" / "money.yml", LEDGER)
    only = {"ledger.money.convert"}
    for tolerance, status in ((1e-9, "drifted"), (0.05, "passed")):
        config = load_config(LEDGER).replace(float_tolerance=tolerance)
        with make_worker(config) as worker:
            result = Verifier(config, worker).verify([spec], only=only)
        cases = {c.id: c.status for c in result.functions[0].cases}
        assert cases["bad_float_far"] == status  # 0.31 vs 0.30000000000000004
