"""Rendering a Report: recorded Markdown, the 65,536-character budget, annotations, JUnit XML.

Recorded outputs live in tests/github/recorded/; rewrite them with CODEMODE_UPDATE_RECORDINGS=1
and review the diff.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from ghfake import big_report, sample_report

from codemode.report.annotations import (
    build_annotations,
    escape_data,
    escape_property,
    render_annotations,
)
from codemode.report.junit import render_junit
from codemode.report.markdown import COMMENT_LIMIT, render_markdown
from codemode.report.model import CaseResult, FunctionResult, Report
from codemode.scope import Scope

RECORDED = Path(__file__).parent / "recorded"


def _recorded(name: str, text: str) -> None:
    path = RECORDED / name
    if os.environ.get("CODEMODE_UPDATE_RECORDINGS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} missing; run with CODEMODE_UPDATE_RECORDINGS=1"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("mode", ["check", "regen"])
def test_comment_matches_recording(mode: str) -> None:
    _recorded(f"comment-{mode}.md", render_markdown(sample_report(mode), comment_id="main"))


def test_clean_report_matches_recording() -> None:
    clean = Report(
        functions=(
            FunctionResult(
                id="shop.util.slug",
                status="ok",
                spec="specs/util.yml",
                line=1,
                cases=(CaseResult(id="basic", status="passed", line=3, has_expected=True),),
            ),
        ),
        scope=Scope("all"),
    )
    _recorded("comment-clean.md", render_markdown(clean))


def test_annotations_match_recording() -> None:
    _recorded("annotations.txt", render_annotations(sample_report()))


def test_junit_matches_recording() -> None:
    text = render_junit(sample_report())
    ET.fromstring(text.split("\n", 1)[1])  # well-formed
    _recorded("junit.xml", text)


def test_5000_drifted_cases_fit_in_a_comment_most_important_first() -> None:
    text = render_markdown(big_report(5000), comment_id="main")
    assert len(text) < COMMENT_LIMIT
    assert text.startswith("<!-- codemode:comment-id=main -->\n")
    # the one error function sorts last by id but is shown first, in the table and the cases
    table = text.index("### Functions")
    assert text.index("zzz.last.broken", table) < text.index("pkg.mod0000.func", table)
    cases = text.index("### Drifted and failing cases")
    assert text.index("zzz.last.broken[c]", cases) < text.index("pkg.mod0000.func[case0]", cases)
    more = re.search(r"… (\d+) more case\(s\), see the job summary / report artifact", text)
    assert more and int(more.group(1)) > 4000
    assert re.search(r"… \d+ more function\(s\)", text)
    # the small sections are never crowded out
    assert "### How to accept" in text and "codemode accept --all --base main" in text
    shown = len(re.findall(r"^- ❌ \*\*", text, flags=re.M))
    assert shown + int(more.group(1)) == 5000


def test_huge_single_values_are_clipped() -> None:
    case = CaseResult(
        id="big",
        status="drifted",
        has_expected=True,
        expected="x" * 100_000,
        observed="y" * 100_000,
        diff="-x\n+y\n" * 50_000,
    )
    report = Report(functions=(FunctionResult(id="m.f", status="drifted", cases=(case,)),))
    text = render_markdown(report)
    assert len(text) < 10_000 and "m.f[big]" in text


def test_summary_budget_is_larger() -> None:
    text = render_markdown(big_report(1000), limit=1_000_000, overflow="see the report artifact")
    assert COMMENT_LIMIT < len(text) < 1_000_000
    assert "more case(s)" not in text  # everything fits in the job summary


def test_backticks_and_pipes_cannot_break_out() -> None:
    text = render_markdown(sample_report())
    assert "`` {'name': 'a`b', 'tags': []} ``" in text


def test_escaping_follows_the_workflow_command_rules() -> None:
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("specs/a,b.yml: x") == "specs/a%2Cb.yml%3A x"


def test_annotations_are_capped_most_important_first() -> None:
    out = build_annotations(big_report(100), limit=10)
    errors = [a for a in out if a.level == "error"]
    assert len(errors) == 10
    assert errors[0].title == "codemode: zzz.last.broken[c] error"
    assert errors[1].file == "specs/mod0000.yml" and errors[1].line == 3
    notice = out[-1]
    assert notice.level == "notice" and "91 more annotation(s)" in notice.message


def test_annotation_command_line() -> None:
    first = render_annotations(sample_report()).splitlines()
    assert (
        first[0] == "::error file=specs/bad.yml,line=4,title=codemode%3A spec::unknown key 'expect'"
    )
    assert all("\n" not in line for line in first)
