"""run_regen end to end on a copy of the shop: offline, scripted model, gate, re-runs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from scripted import Scripted, choose_all

from codemode.check.run import run_check
from codemode.config import Config
from codemode.explore.writing.regen import run_regen
from codemode.scope import Scope
from codemode.specs.spec_files import load_spec_file
from gitkit import git

NEW = ("shop.shipping.parcel_size", "shop.inventory.abc_class", "shop.customers.loyalty_tier")


def _all_ok(config: Config, spec: Path) -> list[str]:
    return [f.status for f in run_check(config, Scope("paths", paths=(str(spec),))).functions]


def test_offline_regen_writes_passing_specs_and_the_rerun_changes_nothing(
    shop_config: Config, shop: Path
) -> None:
    lines: list[str] = []
    report = run_regen(
        shop_config, Scope("all"), dry_run=False, function_ids=NEW, progress=lines.append
    )
    assert [f.status for f in report.functions] == ["ok"] * 3
    assert len(lines) == 3 and lines[0].startswith("[1/3] ")
    assert report.cost is None  # offline: no model
    specs = sorted(p.name for p in (shop / "specs").glob("shop.*.yml"))
    assert specs == ["shop.customers.yml", "shop.inventory.yml", "shop.shipping.yml"]
    for name in specs:
        assert set(_all_ok(shop_config, shop / "specs" / name)) == {"ok"}
    spec = load_spec_file(shop / "specs" / "shop.shipping.yml", shop)
    meta = spec.functions[0].meta
    assert meta.explored_by == "offline" and meta.fingerprint and meta.generated
    before = {p: p.read_bytes() for p in (shop / "specs").iterdir()}
    # The three spec files, not --all: --all would also bootstrap the shop's other functions.
    written = tuple(str(shop / "specs" / name) for name in specs)
    again = run_regen(shop_config, Scope("paths", paths=written), dry_run=False)
    assert again.edits == ()
    assert {p: p.read_bytes() for p in (shop / "specs").iterdir()} == before
    assert {f.message for f in again.functions if f.id in NEW} == {
        "up to date (fingerprint unchanged)"
    }


def test_dry_run_shows_diffs_and_writes_nothing(shop_config: Config, shop: Path) -> None:
    before = sorted((p.name, p.read_bytes()) for p in (shop / "specs").iterdir())
    report = run_regen(
        shop_config, Scope("all"), dry_run=True, function_ids=("shop.text.initials",)
    )
    assert sorted((p.name, p.read_bytes()) for p in (shop / "specs").iterdir()) == before
    [edit] = report.edits
    assert edit.file == "specs/text_dates.yml" and not edit.applied
    assert "+    - case: {id: " in edit.diff
    assert "-    - case:" not in edit.diff  # the hand-written case stays


def test_hand_written_cases_are_kept_and_generated_ones_replaced(
    shop_config: Config, shop: Path
) -> None:
    path = shop / "specs" / "pricing.yml"
    hand = [ln for ln in path.read_text().splitlines() if "- case:" in ln]
    run_regen(shop_config, Scope("all"), dry_run=False, function_ids=("shop.pricing.split_bill",))
    first = path.read_text()
    assert all(ln in first.splitlines() for ln in hand)
    # the function changes: the generated cases are replaced, hand-written ones stay
    src = shop / "src" / "shop" / "pricing.py"
    src.write_text(
        src.read_text().replace(
            "return [share + (1 if i < extra else 0) for i in range(people)]",
            "return [share + (1 if i < extra else 0) for i in range(people)][::-1]",
        )
    )
    report = run_regen(
        shop_config, Scope("all"), dry_run=False, function_ids=("shop.pricing.split_bill",)
    )
    second = path.read_text()
    assert report.functions[0].status == "ok"
    assert all(ln in second.splitlines() for ln in hand)
    spec = load_spec_file(path, shop)
    f = spec.function("shop.pricing.split_bill")
    assert f is not None
    generated = [c for c in f.cases if c.generated]
    assert generated and not set(c.id for c in generated) & {
        "even",
        "extra_cents_first",
        "no_people",
    }
    assert len([c for c in f.cases if not c.generated]) == 3


def test_nondeterministic_cases_are_reported_and_not_written(
    shop_config: Config, shop: Path
) -> None:
    (shop / "src" / "shop" / "flaky.py").write_text(
        "import random\n\n\ndef jitter(delay: float) -> float:\n"
        "    if delay < 0:\n        raise ValueError('negative')\n"
        "    return delay + random.random()\n"
    )
    report = run_regen(
        shop_config, Scope("all"), dry_run=False, function_ids=("shop.flaky.jitter",)
    )
    [refused] = [f.refused for f in report.functions]
    assert refused and all(r.reason.startswith("nondeterministic") for r in refused), refused
    assert all(r.call.startswith("jitter(") and "randomness" in r.remedy for r in refused)
    spec = load_spec_file(shop / "specs" / "shop.flaky.yml", shop)
    f = spec.functions[0]
    # only the stable cases: the error, and delays random() cannot move (inf, nan, 1e21)
    for c in f.cases:
        delay = [*c.args, *c.kwargs.values()][0]
        assert c.raises == "ValueError" or not math.isfinite(delay) or delay + 1.0 == delay, c
    assert f.meta.nondeterministic
    assert _all_ok(shop_config, shop / "specs" / "shop.flaky.yml") == ["ok"]


def test_scripted_model_costs_two_requests_then_none(shop_config: Config, shop: Path) -> None:
    script = Scripted(
        [
            [
                "for w in (0, 1, 1000, 1001, 5000, 5001, 30000, 30001):\n    try:\n        parcel_size(w)\n    except ValueError:\n        pass"
            ]
        ],
        choose=choose_all(),
    )
    report = run_regen(
        shop_config, Scope("all"), dry_run=False, model=script.model(), function_ids=(NEW[0],)
    )
    assert report.cost is not None and report.cost.requests == 2
    assert report.functions[0].status == "ok"
    # unchanged function, named explicitly: the cache answers, no request
    again = run_regen(
        shop_config, Scope("all"), dry_run=False, model=script.model(), function_ids=(NEW[0],)
    )
    assert again.cost is not None and again.cost.requests == 0
    assert len(script.prompts) == 2
    assert (shop / ".codemode-cache").is_dir()


def test_model_failure_keeps_the_spec(shop_config: Config, shop: Path) -> None:
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[])  # a model that answers nothing usable

    before = (shop / "specs" / "pricing.yml").read_bytes()
    report = run_regen(
        shop_config,
        Scope("all"),
        dry_run=False,
        model=FunctionModel(broken),
        function_ids=("shop.pricing.with_vat",),
    )
    [f] = report.functions
    assert f.status == "error" and "spec was kept" in f.message
    assert (shop / "specs" / "pricing.yml").read_bytes() == before


def test_a_module_that_does_not_parse_is_that_functions_error(
    shop_config: Config, shop: Path
) -> None:
    (shop / "src" / "shop" / "broken.py").write_text("def f(x):\n    return x +\n")
    report = run_regen(
        shop_config,
        Scope("all"),
        dry_run=True,
        function_ids=("shop.broken.f", "shop.text.initials"),
    )
    status = {f.id: (f.status, f.message) for f in report.functions}
    assert status["shop.broken.f"][0] == "error" and "does not parse" in status["shop.broken.f"][1]
    assert status["shop.text.initials"][0] == "ok"


@pytest.mark.parametrize("scope", [Scope("all"), Scope("paths", paths=("specs/text_dates.yml",))])
def test_scopes_without_a_diff_pick_spec_functions(
    shop_config: Config, shop: Path, scope: Scope, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(shop)
    report = run_regen(shop_config, scope, dry_run=True)
    ids = {f.id for f in report.functions}
    assert "shop.text.slugify" in ids
    assert ("shop.pricing.to_cents" in ids) == (scope.kind == "all")


def test_staged_scope_regenerates_only_the_changed_function(
    shop_config: Config, shop: Path
) -> None:
    git(shop, "init", "-q", "-b", "main")
    git(shop, "add", "-A")
    git(shop, "commit", "-q", "-m", "base")
    src = shop / "src" / "shop" / "shipping.py"
    src.write_text(
        src.read_text()
        .replace("return max(1, days // 2)", "return max(1, days // 3)")
        .replace("        days = max(1, days // 2)", "        days = max(1, days // 3)")
    )
    git(shop, "add", "src/shop/shipping.py")
    report = run_regen(shop_config, Scope("staged"), dry_run=False)
    assert [(f.id, f.status) for f in report.functions] == [("shop.shipping.delivery_days", "ok")]
    assert [e.file for e in report.edits] == ["specs/shop.shipping.yml"]
    assert _all_ok(shop_config, shop / "specs" / "shop.shipping.yml") == ["ok"]
