"""The review of a pull request's spec changes in the PR comment (#19): rendered as GitHub
renders it (cmarkgfm), with permalinks into the head commit as the only live links, inert
whatever the report holds, and posted to the loopback GitHub by the real `codemode action`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from ghfake import FakeGitHub, actions_env, payload, run_codemode
from inert import gfm_html, live_parts
from test_hostile_render import HOSTILE, hostile_report

from codemode.report.links import make_links, server_url
from codemode.report.markdown import marker, render_markdown
from codemode.report.model import Callout, CaseChange, Report, SpecReview
from reviewkit import make_pull_request, review_report

SHA = "ab" * 20
HEAD_LINKS = "https://ghe.example.com/octo/shop/blob/"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("review") / "shop"
    make_pull_request(root)
    return review_report(root)


def test_the_review_renders_in_the_comment_with_permalinks(report: dict[str, Any]) -> None:
    r = Report.from_dict(report)
    assert Report.from_json(r.to_json()) == r  # the review survives report.json
    links = make_links("https://ghe.example.com", "octo/shop", "ab" * 20)
    markdown = render_markdown(r, links=links)
    html = gfm_html(markdown)
    assert "<h3>Spec files changed in this pull request</h3>" in html
    permalink = f"{HEAD_LINKS}{'ab' * 20}/specs/pricing.yml#L27"
    assert f'<a href="{permalink}"><code>specs/pricing.yml:27</code></a>' in html
    # the call-out with its call and values, as code
    assert (
        "<code>shop.pricing.to_cents[whole]</code> <strong>contradicted</strong> · "
        f'<a href="{permalink}"><code>specs/pricing.yml:27</code></a>: expectation edited '
        "with no change to the function, and the code contradicts it: "
        "<code>to_cents('12')</code>: <code>1201</code> → <code>1200</code>"
    ) in html.replace("&#x27;", "'")
    assert "check loosened: <code>raises: ValueError</code> became <code>raises: any</code>" in html
    assert "<code>loyalty_tier(4999)</code>: <code>'gold'</code>" in html.replace("&#x27;", "'")
    # the changed function links to its source line at head
    assert f'<a href="{HEAD_LINKS}{"ab" * 20}/src/shop/pricing.py#L' in html
    # only codemode's own links are live
    assert live_parts(markdown, allow=HEAD_LINKS) == []


def test_the_web_host_follows_the_runner() -> None:
    assert server_url(None, None) == "https://github.com"
    assert server_url(None, "https://api.github.com") == "https://github.com"
    assert server_url(None, "https://ghe.example.com/api/v3") == "https://ghe.example.com"
    assert server_url("https://ghe.example.com/", "x") == "https://ghe.example.com"
    links = make_links("https://ghe.example.com", "octo/shop", SHA)
    assert links is not None
    assert links.blob("specs/a b)[x].yml", 3) == (f"{HEAD_LINKS}{SHA}/specs/a%20b%29%5Bx%5D.yml#L3")
    assert links.blob("../etc/passwd", 1) is None and links.blob("/abs", 1) is None


@pytest.mark.parametrize(
    ("server", "repo", "sha"),
    [
        ("javascript:alert(1)", "octo/shop", SHA),
        ("https://ghe.example.com) [x](https://evil", "octo/shop", SHA),
        ("https://ghe.example.com", "octo/shop/../../x", SHA),
        ("https://ghe.example.com", "octo shop/x", SHA),
        ("https://ghe.example.com", "octo/shop", "HEAD"),
        ("https://ghe.example.com", None, SHA),
    ],
)
def test_no_link_from_parts_that_are_not_what_they_should_be(
    server: str, repo: str | None, sha: str
) -> None:
    assert make_links(server, repo, sha) is None


def hostile_review() -> SpecReview:
    change = CaseChange(
        function=f"pkg.f {HOSTILE}",
        id=HOSTILE,
        kind="changed",
        status="drifted",
        line=3,
        what=(HOSTILE,),
        old_id=HOSTILE,
        old_file=HOSTILE,
        call=HOSTILE,
        expected=HOSTILE,
        observed=HOSTILE,
        message=HOSTILE,
    )
    callout = Callout("contradicted", "warning", HOSTILE, f"pkg.f {HOSTILE}", HOSTILE, 3, HOSTILE)
    return SpecReview(
        file=f"specs/{HOSTILE}.yml",
        added=(HOSTILE,),
        changed=(f"pkg.f {HOSTILE}[{HOSTILE}]",),
        status="renamed",
        old_file=HOSTILE,
        cases=(change, change._replace(kind="removed")),
        callouts=(callout, callout._replace(kind=HOSTILE, level=HOSTILE, line=None)),
        problems=(HOSTILE,),
    )


@pytest.mark.parametrize("in_bytes", [False, True], ids=["comment", "summary"])
def test_a_hostile_review_renders_inert_with_only_our_links(in_bytes: bool) -> None:
    report = hostile_report()._replace(reviews=(hostile_review(),))
    links = make_links("https://ghe.example.com", "octo/shop", SHA)
    text = render_markdown(report, in_bytes=in_bytes, links=links)
    assert "Spec files changed in this pull request" in text
    assert live_parts(text, allow=f"{HEAD_LINKS}{SHA}/") == []
    assert f'href="{HEAD_LINKS}{SHA}/specs/' in gfm_html(text)  # our links are there


def test_the_missing_message_shows_its_command_as_code_in_the_table() -> None:
    from codemode.report.model import FunctionResult

    missing = FunctionResult(
        "shop.cart.total",
        "missing",
        message="added with no spec; run `codemode regen --base main` to write one",
        path="src/shop/cart.py",
    )
    html = gfm_html(render_markdown(Report(functions=(missing,))))
    assert "run <code>codemode regen --base main</code> to write one" in html
    assert "\\`" not in html and "`" not in html


@pytest.mark.slow
def test_the_action_posts_the_review_and_the_drifted_calls(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    root = tmp_path / "shop"
    base, head = make_pull_request(root)
    event = payload("pull_request", tmp_path, BASE_SHA=base, HEAD_SHA=head)
    inputs = {"github_token": "test-token", "python": sys.executable}
    env = actions_env(tmp_path, fake_github, "pull_request", event, **inputs)
    done = run_codemode(["action"], root, env)
    assert done.returncode == 1, done.stderr  # two drifted cases
    ours = [c for c in fake_github.pr_comments(7) if marker("default") in str(c["body"])]
    assert len(ours) == 1
    body = str(ours[0]["body"])
    assert "### Spec files changed in this pull request" in body
    assert "expectation edited with no change to the function" in body
    # the drifted cases and the review's call-outs show their calls
    assert "`loyalty_tier(4999)`: `'gold'` → `'silver'`" in body
    assert "`split_bill(1002, 4)`" in body
    # spec lines link into the head commit on the server the runner names
    assert f"({fake_github.url}/octo/shop/blob/{head}/specs/pricing.yml#L27)" in body
    assert live_parts(body, allow=f"{fake_github.url}/octo/shop/blob/{head}/") == []
    # the job log's annotations name the call too
    assert "::error file=specs/customers.yml,line=4," in done.stdout
    assert "loyalty_tier(4999): " in done.stdout


@pytest.mark.slow
def test_the_example_comment_in_the_docs_comes_from_a_real_run() -> None:
    """docs/github-action.md shows what tools/example_comment.py records from a real run."""
    import importlib.util

    tool = Path(__file__).resolve().parents[2] / "tools" / "example_comment.py"
    spec = importlib.util.spec_from_file_location("example_comment", tool)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0, "run: python tools/example_comment.py"


@pytest.mark.parametrize(
    ("reviews", "where"),
    [
        ([{"file": 5}], "report.reviews[0].file"),
        (
            [{"file": "a", "cases": [{"function": "f", "id": "c", "kind": "added", "line": "3"}]}],
            "cases[0].line",
        ),
        (
            [{"file": "a", "callouts": [{"kind": "k", "level": "warning", "message": 1}]}],
            "callouts[0].message",
        ),
        ([{"file": "a", "cases": "x"}], ""),
        (["x"], ""),
    ],
)
def test_a_review_with_wrong_types_is_one_clear_error(
    reviews: list[object], where: str, tmp_path: Path
) -> None:
    """A fork's report.json holds the review too: a wrong type is exit 2 naming the field."""
    import json

    from codemode.errors import FatalError
    from codemode.github.delivery import read_report

    path = tmp_path / "report.json"
    path.write_text(json.dumps({"reviews": reviews}))
    with pytest.raises(FatalError, match="cannot read the report") as info:
        read_report(path)
    assert where in str(info.value)


def test_a_review_of_thousands_of_cases_stays_in_the_comments_budget() -> None:
    from codemode.report.markdown import COMMENT_LIMIT

    many = tuple(
        CaseChange("pkg.f", f"c{i}", "removed", "passed", i, call=f"f({i})") for i in range(3000)
    )
    said = tuple(
        Callout("weakened", "warning", "removed, and it still passes at head", "pkg.f", f"c{i}")
        for i in range(3000)
    )
    review = SpecReview(
        "specs/big.yml",
        removed=tuple(f"pkg.f[c{i}]" for i in range(3000)),
        status="deleted",
        cases=many,
        callouts=said,
    )
    text = render_markdown(Report(reviews=(review,)))
    assert len(text) <= COMMENT_LIMIT
    assert "… 2980 more call-out(s)" in text and "… 2985 more case(s)" in text
