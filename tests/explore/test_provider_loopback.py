"""End to end through two real provider clients (OpenAI chat completions, Anthropic messages)
against loopback servers: rate limits are retried, server errors end in a clear report, and
the request count is what the server saw."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from loopback import Reply, Seen, serve

from codemode.check.run import run_check
from codemode.config import Config
from codemode.explore.writing.regen import run_regen
from codemode.scope import Scope

FID = "shop.shipping.parcel_size"
SNIPPETS = [
    "for w in (1, 1000, 1001, 5000, 5001, 30000, 30001, 0):\n"
    "    try:\n        parcel_size(w)\n    except ValueError:\n        pass"
]
# (provider model string, how its base URL is written: Anthropic's client appends /v1 itself)
PROVIDERS = [
    ("openai:loopback-model", lambda url: url),
    # a real Claude name: the SDK streams the request, as it does against the real API (#22)
    ("anthropic:claude-haiku-4-5", lambda url: url.removesuffix("/v1")),
]


def model_answers(request: Seen) -> Reply:
    """A model that runs its snippets once, then chooses every call it saw."""
    if request.can_run and "snippet 1:" not in request.text:
        return 200, ("run_snippets", {"snippets": SNIPPETS})
    numbers = sorted({int(n) for n in re.findall(r"#(\d+) parcel_size", request.text)})
    cases = [{"call": n, "id": f"weight {n}", "reason": "a size class"} for n in numbers]
    return 200, (request.output_tool, {"cases": cases})


pytestmark = pytest.mark.usefixtures("allow_loopback")


@pytest.mark.parametrize(("model", "base"), PROVIDERS, ids=["openai", "anthropic"])
def test_rate_limit_then_success_writes_a_passing_spec(
    shop_config: Config, shop: Path, model: str, base: Any
) -> None:
    replies: list[int] = [429]

    def script(request: Seen) -> Reply:
        if replies:
            return replies.pop(0), {
                "error": {"message": "Rate limit reached", "type": "rate_limit_error"}
            }
        return model_answers(request)

    with serve(script) as (url, seen):
        config = shop_config.replace(base_url=base(url))
        report = run_regen(
            config, Scope("all"), dry_run=False, model=model, function_ids=(FID,), retry_delay=0.01
        )
    assert [f.status for f in report.functions] == ["ok"], report.functions
    assert {s.api for s in seen} == {model.split("-")[0].split(":")[0]}
    assert len(seen) == 3  # 429, the snippets, the choice
    assert report.cost is not None and report.cost.requests == len(seen)
    assert report.cost.model == model and report.cost.input_tokens > 0
    # the second answer was written having seen what the snippets did
    assert 'parcel_size(1001) -> "M"' in seen[2].text and "raises ValueError" in seen[2].text
    spec = shop / "specs" / "shop.shipping.yml"
    text = spec.read_text()
    assert f"explored_by: {model}" in text
    assert "expected: M" in text and "raises: ValueError" in text
    check = run_check(shop_config, Scope("paths", paths=(str(spec),)))
    assert [f.status for f in check.functions] == ["ok"]


@pytest.mark.parametrize(("model", "base"), PROVIDERS, ids=["openai", "anthropic"])
def test_server_errors_end_in_a_clear_report_and_an_untouched_spec(
    shop_config: Config, shop: Path, model: str, base: Any
) -> None:
    spec = shop / "specs" / "pricing.yml"
    before = spec.read_bytes()

    def script(request: Seen) -> Reply:
        return 500, {"error": {"message": "upstream exploded", "type": "api_error"}}

    with serve(script) as (url, seen):
        config = shop_config.replace(base_url=base(url))
        report = run_regen(
            config,
            Scope("all"),
            dry_run=False,
            model=model,
            function_ids=("shop.pricing.with_vat",),
            retry_delay=0.01,
        )
    [f] = report.functions
    assert f.status == "error"
    assert "HTTP 500" in f.message and "upstream exploded" in f.message
    assert "gave up after retries" in f.message and "spec was kept" in f.message
    assert len(seen) == 4  # our retries only: the SDK's own are off
    assert report.cost is not None and report.cost.requests == len(seen)
    assert spec.read_bytes() == before
    assert report.edits == ()
