"""A busy pull request's comment reads in 10 seconds (#35): made by the real pipeline (a real git
repository, `codemode check --base main --format json` in a subprocess, the Markdown renderer),
rendered as GitHub renders it (cmarkgfm), and measured in a 1000 px window (Chromium).

The pull request (tests/commentkit.py) holds a behaviour change with 100+ witnesses, a
refactor, every kind of spec edit and a missing dependency that fails 104 cases alike.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from inert import gfm_html, live_parts

from codemode.report.call import literal
from codemode.report.links import make_links
from codemode.report.markdown import render_markdown
from codemode.report.model import Report
from commentkit import MISSING, busy_report, make_busy_pull_request

ROOT = Path(__file__).resolve().parents[2]
HEAD_LINKS = "https://github.com/octo/shop/blob/"


@pytest.fixture(scope="module")
def busy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, str]:
    root = tmp_path_factory.mktemp("busy") / "shop"
    _, head = make_busy_pull_request(root)
    report = Report.from_dict(busy_report(root))
    return report, render_markdown(
        report, links=make_links("https://github.com", "octo/shop", head)
    )


def _section(markdown: str, title: str) -> str:
    start = markdown.index(f"### {title}\n")
    end = markdown.find("\n### ", start + 1)
    return markdown[start : end if end != -1 else len(markdown)]


def test_the_pull_request_is_as_busy_as_a_real_one(busy: tuple[Report, str]) -> None:
    report, _ = busy
    assert sum(len(f.witnesses) for f in report.functions) >= 100
    errors = [c for f in report.functions for c in f.cases if c.status == "error"]
    assert len(errors) == 104 and len({c.message for c in errors}) == 1
    assert {r.file for r in report.reviews} >= {"specs/pricing.yml", "specs/feeds.yml"}
    refactor = next(f for f in report.functions if f.id == "shop.text.initials")
    assert refactor.status == "ok" and not refactor.witnesses


def test_the_comment_reads_top_down_and_stays_small(busy: tuple[Report, str]) -> None:
    _, markdown = busy
    assert len(markdown.encode("utf-8")) < 20_000
    order = [
        "### Functions",
        "### Drifted and failing cases",
        "### Spec files changed in this pull request",
        "### Behaviour changes",
        "### How to accept",
    ]
    assert [markdown.index(t) for t in order] == sorted(markdown.index(t) for t in order)
    # the narrow table: four columns, one verdict word each, no commit SHA anywhere a reader sees
    table = _section(markdown, "Functions")
    assert table.splitlines()[1] == "| Function | Verdict | Cases | Spec |"
    assert all(line.count(" | ") == 3 for line in table.splitlines()[3:] if line.startswith("|"))
    visible = re.sub(r"\]\([^)]*\)", "]", markdown)  # the text, without the links' targets
    assert not re.search(r"\b[0-9a-f]{40}\b", visible)
    assert "elapsed" not in markdown
    # only codemode's own permalinks are live
    assert live_parts(markdown, allow=HEAD_LINKS) == []
    assert "<h3>Behaviour changes</h3>" in gfm_html(markdown)


def test_a_few_calls_per_function_each_of_another_kind(busy: tuple[Report, str]) -> None:
    report, markdown = busy
    changes = _section(markdown, "Behaviour changes")
    blocks = re.split(r"\n(?=🔀 )", changes)[1:]
    changed = {f.id: f for f in report.functions if f.witnesses}
    assert len(blocks) == len(changed)
    for block in blocks:
        fid = re.match(r"🔀 \*\*`([\w.]+)`\*\*", block)
        assert fid is not None
        calls = re.findall(r"^- `", block, flags=re.M)
        assert 1 <= len(calls) <= 5
        total = len(changed[fid.group(1)].witnesses)
        more = re.search(r"… (\d+) more call", block)
        assert len(calls) + (int(more.group(1)) if more else 0) == total
    # a function whose calls changed in two ways shows both: a value, and a new exception
    slug = next(b for b in blocks if "`shop.catalog.anchor`" in b)
    assert "→ `'#Green-tea'`" in slug and "→ `raises ValueError: nothing to make a slug" in slug
    # the budget's note is on the function's line, not under its last call
    cut = next(b for b in blocks if "the diff budget" in b)
    assert "the diff budget" in cut.splitlines()[0]


def test_one_error_once_and_never_as_an_outcome(busy: tuple[Report, str]) -> None:
    _, markdown = busy
    assert markdown.count(f"No module named '{MISSING}'") == 1
    assert "**104 cases** in 2 functions" in markdown
    review = _section(markdown, "Spec files changed in this pull request")
    feeds = review[review.index("specs/feeds.yml") :].split("\n\n**", 1)[0]
    rows = [line for line in feeds.splitlines() if line.startswith("| `")]
    assert len(rows) == 2 and all("| 🛑 error |" in row for row in rows), rows
    assert "→" not in feeds  # an import error has no observed value (`31 → null`, #35)


def _values(report: Report) -> list[Any]:
    out: list[Any] = []
    for f in report.functions:
        for c in f.cases:
            if c.status == "drifted":
                out += [c.expected, c.observed]
        for w in f.witnesses:
            out += [o.get("returned") for o in (w.old, w.new) if isinstance(o, dict)]
    return [v for v in out if v is not None]


def test_values_in_one_notation(busy: tuple[Report, str]) -> None:
    report, markdown = busy
    spans = re.findall(r"(?<!`)`([^`\n]+)`(?!`)", markdown)
    for value in _values(report):
        as_json = json.dumps(value, ensure_ascii=False)
        if as_json != literal(value):
            assert f"`{as_json}`" not in markdown, as_json
    # nothing JSON wrote: no null/true/false, no double-quoted strings, no {"raised": ...}
    for text in spans:
        assert not re.search(r"\b(null|true|false)\b|^\"|\{\"raised\"", text), text


def test_every_column_of_the_functions_table_shows_at_1000_px(busy: tuple[Report, str]) -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    import comment_preview

    if comment_preview.chromium() is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    _, markdown = busy
    tables = dict(comment_preview.overflow(markdown))
    assert tables["Function|Verdict|Cases|Spec"] == 0, tables
