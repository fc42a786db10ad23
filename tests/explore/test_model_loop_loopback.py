"""The model loop keeps its work, through the CLI and two real provider clients (#22).

A realistic scripted model (tests/explore/realistic.py) behind loopback OpenAI and Anthropic
servers: a malformed response, prose instead of an answer, a budget stop, a slow server under
``--max-seconds``; the request counts are what the server saw, on the streamed path that real
Claude model names take too.
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import realistic
from loopback import Raw, Reply, Seen, serve

from codemode.cli.main import main

PROVIDERS = [
    ("openai:gpt-4.1-mini", lambda url: url),
    ("anthropic:claude-haiku-4-5", lambda url: url.removesuffix("/v1")),
]
SYMBOL = f"{realistic.MODULE}.symbol"
CHECKSUM = f"{realistic.MODULE}.checksum"


pytestmark = pytest.mark.usefixtures("allow_loopback")


def regen(root: Path, url: str, model: str, *extra: str) -> tuple[int, dict[str, Any]]:
    argv = ["regen", "--root", str(root), "--model", model, "--base-url", url]
    argv += ["--format", "json", "-q", "--concurrency", "1", *extra]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, json.loads(out.getvalue())


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {f["id"].rsplit(".", 1)[-1]: f["status"] for f in report["functions"]}


def _is_choice(seen: Seen) -> bool:
    return not seen.can_run or realistic.answer(seen)[0] != "run_snippets"


@pytest.mark.parametrize(("model", "base"), PROVIDERS, ids=["openai", "anthropic"])
def test_counts_are_what_the_server_saw(tmp_path: Path, model: str, base: Any) -> None:
    root = realistic.project(tmp_path)
    with serve(realistic.script) as (url, seen):
        code, report = regen(root, base(url), model, "--function", SYMBOL)
    assert code == 0 and statuses(report) == {"symbol": "ok"}
    assert len(seen) == 3 and report["cost"]["requests"] == 3
    assert report["cost"]["input_tokens"] > 0 and report["cost"]["output_tokens"] == 150
    if model.startswith("anthropic"):  # a real Claude name: the SDK streams the request
        assert all(s.body.get("stream") for s in seen)


def test_a_malformed_response_ends_that_function_with_its_calls_kept(tmp_path: Path) -> None:
    root = realistic.project(tmp_path)

    def script(seen: Seen) -> Reply:
        if realistic._function(seen.text) == "symbol" and _is_choice(seen):
            return 200, Raw({"id": "x", "object": "chat.completion", "created": 0, "choices": []})
        return realistic.script(seen)

    with serve(script) as (url, seen):
        code, report = regen(
            root, url, "openai:gpt-4.1-mini", "--function", SYMBOL, "--function", CHECKSUM
        )
    assert code == 0, report
    assert statuses(report) == {"symbol": "ok", "checksum": "ok"}
    assert report["cost"]["requests"] == len(seen) == 6
    notes = "\n".join(report["notes"])
    assert "could not be read" in notes and "chosen offline from the 2 calls" in notes
    text = (root / "specs" / "billing.accounts.yml").read_text()
    assert "expected: €" in text and "expected: $" in text


def test_prose_instead_of_an_answer_keeps_the_calls(tmp_path: Path) -> None:
    root = realistic.project(tmp_path)
    prose = {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": "These calls look good to me."},
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }

    def script(seen: Seen) -> Reply:
        return (200, Raw(prose)) if _is_choice(seen) else realistic.script(seen)

    with serve(script) as (url, seen):
        code, report = regen(root, url, "openai:gpt-4.1-mini", "--function", SYMBOL)
    assert code == 0 and statuses(report) == {"symbol": "ok"}, report
    assert report["cost"]["requests"] == len(seen)
    assert "no usable answer" in "\n".join(report["notes"])


def test_a_budget_stop_leaves_the_rest_skipped_and_exits_by_the_verdicts(tmp_path: Path) -> None:
    root = realistic.project(tmp_path)
    ids = [SYMBOL, CHECKSUM, f"{realistic.MODULE}.with_vat"]
    with serve(realistic.script) as (url, seen):
        code, report = regen(
            root,
            url,
            "openai:gpt-4.1-mini",
            "--max-model-requests",
            "2",
            *[a for fid in ids for a in ("--function", fid)],
        )
    assert len(seen) == 2 and report["cost"]["requests"] == 2
    got = statuses(report)
    assert sorted(got.values()) == ["ok", "skipped", "skipped"], got
    assert code == 0  # regen fails on `error`; an unexplored function is not one
    skipped = [f for f in report["functions"] if f["status"] == "skipped"]
    assert all("max-model-requests 2" in f["message"] for f in skipped)


def test_max_seconds_bounds_a_slow_request(tmp_path: Path) -> None:
    root = realistic.project(tmp_path)
    release = threading.Event()

    def script(seen: Seen) -> Reply:
        release.wait(60)  # a server that does not answer
        return realistic.script(seen)

    with serve(script) as (url, _seen):
        started = time.monotonic()
        try:
            code, report = regen(
                root, url, "openai:gpt-4.1-mini", "--max-seconds", "3", "--function", SYMBOL
            )
        finally:
            elapsed = time.monotonic() - started
            release.set()
    assert elapsed < 12, elapsed
    assert statuses(report) == {"symbol": "skipped"} and code == 0
    assert "max-seconds 3" in report["functions"][0]["message"]


ORDER_TOTAL = f"{realistic.MODULE}.order_total"
JUNK_CALL = """order_total([{"sku": "A", "price": "2.5"}])"""


def test_refused_choices_are_listed_per_function_in_json_and_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The model chose a call that passed dicts where Lines were wanted: regen says, for that
    function, which call was not written, why, and what would make it writable (#22)."""
    root = realistic.project(tmp_path / "json")
    with serve(realistic.script) as (url, _seen):
        code, report = regen(root, url, "openai:gpt-4.1-mini", "--function", ORDER_TOTAL)
    assert code == 0 and statuses(report) == {"order_total": "ok"}, report
    [refused] = [f["refused"] for f in report["functions"]]
    junk = next(r for r in refused if "AttributeError raised by Python" in r["reason"])
    assert junk["call"].startswith(JUNK_CALL)
    assert junk["remedy"] == "pass the kind of value the function takes" and junk["id"]
    text_root = realistic.project(tmp_path / "text")
    with serve(realistic.script) as (url, _seen):
        argv = ["regen", "--root", str(text_root), "--model", "openai:gpt-4.1-mini"]
        assert main([*argv, "--base-url", url, "--function", ORDER_TOTAL]) == 0
    out = capsys.readouterr().out
    assert f"not written: {JUNK_CALL} raises AttributeError" in out, out
    assert "; why: AttributeError raised by Python, not by the project" in out
    assert "; to write it, pass the kind of value the function takes" in out


def test_an_internal_error_on_one_function_leaves_the_others_explored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug of ours in the model loop on one function is that function's error: the next
    function is explored and written, the run ends with a report (#23)."""
    from codemode.explore.llm import pipeline

    real = pipeline._choose

    def choose(ex: Any, session: Any, choice: Any, taken: set[str]) -> None:
        if session.info.name == "symbol":
            raise KeyError("a bug of ours")
        real(ex, session, choice, taken)

    monkeypatch.setattr(pipeline, "_choose", choose)
    root = realistic.project(tmp_path)
    with serve(realistic.script) as (url, _seen):
        code, report = regen(
            root, url, "openai:gpt-4.1-mini", "--function", SYMBOL, "--function", CHECKSUM
        )
    assert statuses(report) == {"symbol": "error", "checksum": "ok"}, report
    assert code == 1  # a function named on the command line could not be explored
    message = next(f["message"] for f in report["functions"] if f["id"] == SYMBOL)
    assert "internal error while exploring (KeyError: 'a bug of ours')" in message
    text = (root / "specs" / "billing.accounts.yml").read_text()
    assert CHECKSUM in text and SYMBOL not in text
