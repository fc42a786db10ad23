"""A behaviour-diff witness in every rendering, each with its call (#18), and through the
JSON report a workflow_run job reads back."""

from __future__ import annotations

from pathlib import Path

from codemode.github.delivery import read_report, write_report
from codemode.report.annotations import render_annotations
from codemode.report.junit import render_junit
from codemode.report.markdown import render_markdown
from codemode.report.model import FunctionResult, Report, Witness
from codemode.report.terminal import render
from codemode.scope import Scope

W = Witness(
    "loyalty_tier(4999)",
    {"returned": "silver"},
    {"returned": "gold"},
    "value",
    (4999,),
    None,
    None,
    "tests",
)
M = Witness(
    "qty('x')",
    {"raised": "ValueError", "message": "not a number"},
    {"raised": "ValueError", "message": "digits only"},
    "message",
    ("x",),
)
REPORT = Report(
    functions=(
        FunctionResult(
            "shop.loyalty.loyalty_tier",
            "changed",
            path="src/shop/loyalty.py",
            message="the change alters the outcome of 2 calls, e.g. loyalty_tier(4999)",
            witnesses=(W, M),
            diff_note="the diff budget (2 s) cut the search after 100 of 300 inputs",
        ),
    ),
    scope=Scope("staged"),
)


def test_the_terminal_shows_each_call_old_and_new_and_the_accept_command() -> None:
    out = render(REPORT)
    assert "    loyalty_tier(4999): 'silver' → 'gold'\n" in out
    assert (
        "qty('x'): raises ValueError: not a number → raises ValueError: digits only (message changed)"
        in out
    )
    assert "(the diff budget (2 s) cut the search after 100 of 300 inputs)" in out
    assert out.rstrip().endswith("codemode accept shop.loyalty.loyalty_tier --staged")


def test_junit_annotations_and_markdown_name_the_call() -> None:
    junit = render_junit(REPORT)
    assert 'name="loyalty_tier(4999)"' in junit and 'type="changed"' in junit
    notes = render_annotations(REPORT)
    assert notes.startswith(
        "::error file=src/shop/loyalty.py,title=codemode%3A shop.loyalty.loyalty_tier"
    )
    assert "loyalty_tier(4999): 'silver' → 'gold'" in notes
    md = render_markdown(REPORT)
    assert "🔀 **`shop.loyalty.loyalty_tier`** · 2 calls differ · the diff budget" in md
    assert "- `loyalty_tier(4999)`: `'silver'` → `'gold'`\n" in md
    assert "(message changed)" in md


def test_witnesses_survive_the_json_report(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    write_report(path, REPORT, None)
    back, _ = read_report(path)
    assert back.functions[0].witnesses == (W, M)
    assert back.counts()["changed"] == 1


def test_two_long_values_are_shown_where_they_first_differ() -> None:
    # a parsed tree whose first difference is deep in it (#32): both cut at their start
    # would read the same
    from codemode.report.witness import witness_text

    node = {"$class": "pkg.Statement", "value": "a in b" * 20, "children": []}
    old = {**node, "children": [{"$class": "pkg.Comparison"}]}
    new = {**node, "children": [{"$class": "pkg.Word"}]}
    text = witness_text(Witness("parse('a in b')", {"returned": old}, {"returned": new}, "value"))
    assert "pkg.Comparison" in text and "pkg.Word" in text, text
