"""The offline explorer: deterministic plans from signatures, kept calls that tell something."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from codemode.config import Config
from codemode.explore.offline.explorer import explore, plan
from codemode.explore.record import Recorder
from codemode.explore.target import TargetInfo, load_target
from codemode.explore.writing.regen import run_regen
from codemode.scope import Scope
from codemode.worker.pool import Worker


def plan_calls(info: TargetInfo) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The planned calls with literal arguments, in order (docstring examples first)."""
    return [(c.args, c.kwargs) for c in plan(info).candidates if c.exprs is None]


def test_plans_are_deterministic_and_use_types_defaults_and_boundaries(shop_config: Config) -> None:
    info = load_target(shop_config, "shop.shipping.parcel_size")
    calls = plan_calls(info)
    assert calls == plan_calls(info)
    firsts = {args[0] for args, _ in calls if args}
    assert {999, 1000, 1001, 4999, 5000, 5001, 0, -1} <= firsts  # around each literal of the body


def test_docstring_examples_come_first(shop_config: Config) -> None:
    info = load_target(shop_config, "shop.pricing.to_cents")
    assert plan_calls(info)[0] == (("12.345",), {})


def test_dates_and_keyword_defaults(shop_config: Config) -> None:
    info = load_target(shop_config, "shop.dates.add_business_days")
    calls = plan_calls(info)
    assert any(isinstance(args[0], dt.date) for args, _ in calls)
    info = load_target(shop_config, "shop.shipping.delivery_days")
    assert any(len(args) == 2 and args[1] is True for args, _ in plan_calls(info))


def test_keeps_calls_reaching_new_lines_and_outcomes(shop_config: Config, worker: Worker) -> None:
    info = load_target(shop_config, "shop.shipping.parcel_size")
    recorder = Recorder(worker, info.id)
    cases = explore(info, recorder).cases
    outputs = {c.get("expected") for c in cases} | {c.get("raises") for c in cases}
    assert {"S", "M", "L", "ValueError"} <= outputs
    assert len(cases) <= shop_config.max_cases  # the explorer's default is the config's
    assert recorder.lines() >= info.body_lines()  # every body line reached
    # the case is what the worker observed
    by_input = {c["inputs"][0]: c for c in cases}
    for weight, case in by_input.items():
        if "expected" in case:
            assert case["expected"] == ("S" if weight <= 1000 else "M" if weight <= 5000 else "L")


def test_docstring_examples_are_always_cases(shop: Path, shop_config: Config) -> None:
    """The author's own examples say what the function is for: kept first, named as such."""
    module = shop / "src" / "shop" / "truncating.py"
    module.write_text(
        "def truncate(text: str, width: int = 10) -> str:\n"
        '    """Shorten text.\n\n'
        "    >>> truncate('hello world', 8)\n"
        "    'hello w…'\n"
        '    """\n'
        "    if len(text) <= width:\n"
        "        return text\n"
        "    return text[: width - 1] + '…'\n",
        encoding="utf-8",
    )
    report = run_regen(
        shop_config, Scope("all"), dry_run=True, function_ids=("shop.truncating.truncate",)
    )
    diff = "\n".join(e.diff for e in report.edits)
    assert "{id: docstring_example, inputs: [hello world, 8], expected: hello w…}" in diff
