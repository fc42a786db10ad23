"""End to end through the real OpenAI client against a loopback OpenAI-compatible server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pydantic_ai.models
import pytest

from codemode.check.run import run_check
from codemode.config import Config
from codemode.explore.regen import run_regen
from codemode.scope import Scope

from .loopback import Reply, serve, user_text

FID = "shop.shipping.parcel_size"
PLAN = {
    "snippets": [
        {
            "purpose": "sizes",
            "code": "for w in (1, 1000, 1001, 5000, 5001, 30000, 30001, 0):\n"
            "    try:\n        parcel_size(w)\n    except ValueError:\n        pass",
        }
    ]
}


def choose(text: str) -> dict[str, Any]:
    numbers = [int(n) for n in re.findall(r"^#(\d+) ", text, re.M)]
    return {"cases": [{"call": n, "id": f"weight {n}", "reason": "a size class"} for n in numbers]}


@pytest.fixture(autouse=True)
def _allow_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pydantic_ai.models, "ALLOW_MODEL_REQUESTS", True)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_rate_limit_then_success_writes_a_passing_spec(shop_config: Config, shop: Path) -> None:
    replies: list[int] = [429]

    def script(body: dict[str, Any]) -> Reply:
        if replies:
            return replies.pop(0), {
                "error": {"message": "Rate limit reached", "type": "rate_limit"}
            }
        text = user_text(body)
        return 200, (choose(text) if "Recorded calls:" in text else PLAN)

    with serve(script) as (url, seen):
        config = shop_config.replace(base_url=url, coverage_rounds=0)
        report = run_regen(
            config,
            Scope("all"),
            dry_run=False,
            model="openai:loopback-model",
            function_ids=(FID,),
            retry_delay=0.01,
        )
    assert [f.status for f in report.functions] == ["ok"], report.functions
    assert len(seen) == 3  # 429, plan, choose
    assert (
        report.cost is not None
        and report.cost.requests == 3
        and report.cost.model == "openai:loopback-model"
    )
    assert seen[1]["model"] == "loopback-model" and seen[1]["tools"][0]["function"]["name"]
    spec = shop / "specs" / "shop.shipping.yml"
    text = spec.read_text()
    assert "explored_by: openai:loopback-model" in text
    assert "expected: M" in text and "raises: ValueError" in text
    check = run_check(shop_config, Scope("paths", paths=(str(spec),)))
    assert [f.status for f in check.functions] == ["ok"]


def test_server_errors_end_in_a_clear_report_and_an_untouched_spec(
    shop_config: Config, shop: Path
) -> None:
    spec = shop / "specs" / "pricing.yml"
    before = spec.read_bytes()

    def script(body: dict[str, Any]) -> Reply:
        return 500, {"error": {"message": "upstream exploded", "type": "server_error"}}

    with serve(script) as (url, seen):
        config = shop_config.replace(base_url=url)
        report = run_regen(
            config,
            Scope("all"),
            dry_run=False,
            model="openai:loopback-model",
            function_ids=("shop.pricing.with_vat",),
            retry_delay=0.01,
        )
    [f] = report.functions
    assert f.status == "error"
    assert "HTTP 500" in f.message and "upstream exploded" in f.message
    assert "gave up after retries" in f.message and "spec was kept" in f.message
    assert len(seen) == 4  # the retries, then the report
    assert spec.read_bytes() == before
    assert report.edits == ()
