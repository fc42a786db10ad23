"""Hostile report data renders inert: the comment and the job summary carry no live mention, link,
image, HTML or workflow command, whatever a function returned or a fork's report says (#11)."""

from __future__ import annotations

import pytest
from inert import live_parts

from codemode.report.markdown import marker, render_markdown, valid_comment_id
from codemode.report.model import CaseResult, Cost, FunctionResult, Problem, Report, SpecEdit
from codemode.scope import Scope

HOSTILE = (
    "@admin see https://evil.example/x and www.evil.example, mail a@evil.example #1 "
    "![pixel](https://evil.example/p.png) <img src=x onerror=alert(1)> "
    "[click](javascript:alert(1)) <a href='https://evil.example'>a</a> <!-- x --> "
    "`code` ``` **bold** | cell |\n::error::forged\r::add-mask::secret\n##[warning]legacy"
)


def hostile_report(status: str = HOSTILE) -> Report:
    """Every text field hostile; ``status``: a verdict (only the renderers see any string)."""
    case = CaseResult(
        id=f"c {HOSTILE}",
        status="drifted",
        line=3,
        has_expected=True,
        expected=HOSTILE,
        observed={"x": HOSTILE},
        message=HOSTILE,
        diff=f"- {HOSTILE}\n+ ```\n::error::in a diff\n<img src=y>",
    )
    failed = CaseResult(id="m", status="failed", line=4, message=HOSTILE)
    return Report(
        functions=(
            FunctionResult(
                id=f"pkg.f {HOSTILE}",
                status="drifted",
                spec=f"specs/{HOSTILE}.yml",
                line=1,
                cases=(case, failed),
            ),
            FunctionResult(id="pkg.g", status="error", spec="s.yml", line=2, message=HOSTILE),
            FunctionResult(id="pkg.h", status=status, message=HOSTILE),  # type: ignore[arg-type]
        ),
        problems=(Problem(file=HOSTILE, line=1, message=HOSTILE),),
        edits=(SpecEdit(file=HOSTILE, diff=HOSTILE, summary=HOSTILE, applied=True),),
        cost=Cost(requests=1, input_tokens=2, output_tokens=3, usd=0.1, model=HOSTILE),
        notes=(HOSTILE, f"note two {HOSTILE}"),
        mode="regen",
        scope=Scope("range", HOSTILE),
    )


@pytest.mark.parametrize("in_bytes", [False, True], ids=["comment", "summary"])
def test_hostile_report_renders_inert(in_bytes: bool) -> None:
    text = render_markdown(hostile_report(), in_bytes=in_bytes)
    assert live_parts(text) == []
    assert "@\u200badmin" in text  # shown, not dropped


def test_the_checker_sees_what_github_would_act_on() -> None:
    """The checker itself can fail: raw hostile text is full of live parts."""
    found = live_parts(HOSTILE)
    for kind in ("workflow command", "<img", "<a ", "@[A-Za-z0-9]", "#\\d"):
        assert any(kind in f for f in found), kind


@pytest.mark.parametrize(
    "bad", ["x -->", "a b", "", "a\n<img>", "-lead", "x" * 65, "ü", "a:b", "<!--"]
)
def test_comment_ids_that_could_leave_the_marker_are_refused(bad: str) -> None:
    assert not valid_comment_id(bad)
    with pytest.raises(ValueError):
        marker(bad)


def test_plain_comment_ids_are_kept() -> None:
    for good in ("default", "backend", "docs-2", "api_v1.x"):
        assert marker(good) == f"<!-- codemode:comment-id={good} -->"
