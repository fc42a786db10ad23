"""The values a change compares against, spliced into the values a call passes through
``**kwargs`` and ``*args`` and into the text inside its list and dict arguments (#32),
through the CLI with real git and real workers on both sides.

The project escapes text for markup; the change leaves a numeric character reference
(``&#38;``) alone where it used to escape its ampersand. Its pattern is the only place the
change writes the reference, and the tests' values hold an ampersand but no reference: only
a test's value with the pattern's example spliced in shows the change, and that value
reaches the function through ``**fields``, ``*cells``, a mapping's values or a pair's items,
never through a named text parameter. Each fails on the code before it."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from typing import Any

import pytest
from diffkit import functions, git, project, write

MARKUP = """\
import re


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")


def fill(template: str, **fields: str) -> str:
    out = template
    for name, value in fields.items():
        out = out.replace("{" + name + "}", escape(value))
    return out


def fill_from(template: str, fields: dict[str, str]) -> str:
    return fill(template, **fields)


def cells(*texts: str) -> str:
    return "<td>" + "</td><td>".join(escape(t) for t in texts) + "</td>"


def anchor(link: tuple[str, str]) -> str:
    href, text = link
    return '<a href="' + escape(href) + '">' + escape(text) + "</a>"
"""
MARKUP_NEW = MARKUP.replace(
    """def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")
""",
    """REFERENCE = re.compile(r"(&#[0-9]+;)")


def escape(text: str) -> str:
    parts = REFERENCE.split(text)
    return "".join(p if n % 2 else _escaped(p) for n, p in enumerate(parts))


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")
""",
)
MARKUP_TEST = """\
from demo.markup import anchor, cells, fill, fill_from


def test_fill():
    assert fill("<p>{who}</p>", who="Tom & Jerry") == "<p>Tom &amp; Jerry</p>"


def test_fill_from():
    assert fill_from("<b>{what}</b>", {"what": "salt & pepper"}) == "<b>salt &amp; pepper</b>"


def test_cells():
    assert cells("fish & chips", "tea") == "<td>fish &amp; chips</td><td>tea</td>"


def test_anchor():
    got = anchor(("/menu?a=1&b=2", "Menu & more"))
    assert got == '<a href="/menu?a=1&amp;b=2">Menu &amp; more</a>'
"""
# the function, and the test's call whose passed-through text the change shows in
THROUGH = {
    "keyword_arguments": ("demo.markup.fill", "fill('<p>{who}</p>', who='Tom & Jerry')"),
    "positional_arguments": ("demo.markup.cells", "cells('fish & chips', 'tea')"),
    "mapping_values": (
        "demo.markup.fill_from",
        "fill_from('<b>{what}</b>', {'what': 'salt & pepper'})",
    ),
    "pair_items": ("demo.markup.anchor", "anchor(('/menu?a=1&b=2', 'Menu & more'))"),
}
EXAMPLE = "&#0;"  # what the change's pattern matches (text_forms.regex_example)


@pytest.fixture(scope="module")
def changed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The functions of ``codemode check --base HEAD~1`` on the change, run once for all
    four (a process of its own: the report is its stdout)."""
    files = {"src/demo/markup.py": MARKUP, "tests/test_markup.py": MARKUP_TEST}
    repo = project(tmp_path_factory.mktemp("through"), files)
    write(repo, {"src/demo/markup.py": MARKUP_NEW})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "new")
    done = subprocess.run(
        [sys.executable, "-m", "codemode", "check", "--base", "HEAD~1", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    return functions(json.loads(done.stdout))


@pytest.mark.parametrize("way", list(THROUGH))
def test_an_operand_is_spliced_into_a_value_passed_through(
    way: str, changed: dict[str, dict[str, Any]]
) -> None:
    fid, test_call = THROUGH[way]
    f = changed.get(fid)
    assert f is not None and f["status"] == "changed", f
    calls = [w["call"] for w in f["witnesses"]]
    # a witness is the test's call with the example in one of its text values, among the
    # test's own text: not a mutant with other values changed, nor the example alone
    assert any(_spliced(test_call, c) for c in calls), calls


def _spliced(test_call: str, call: str) -> bool:
    """``call`` is ``test_call`` with ``EXAMPLE`` put into one text value, the rest as is."""
    was, now = _leaves(test_call), _leaves(call)
    if was.keys() != now.keys():
        return False
    differ = [now[k] for k in was if was[k] != now[k]]
    return len(differ) == 1 and isinstance(differ[0], str) and EXAMPLE in differ[0] != EXAMPLE


def _leaves(call: str) -> dict[tuple[object, ...], object]:
    """A call's literal values by where they sit: ``(0,)``, ``("who",)``, ``(1, "what")``."""
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call)
    top: dict[object, object] = {n: ast.literal_eval(a) for n, a in enumerate(node.args)}
    top.update({k.arg: ast.literal_eval(k.value) for k in node.keywords})
    out: dict[tuple[object, ...], object] = {}

    def walk(path: tuple[object, ...], value: object) -> None:
        items = dict(enumerate(value)) if isinstance(value, (list, tuple)) else value
        if isinstance(items, dict):
            shape = (*path, "#")  # a list cut or grown is not a splice into its items
            out[shape] = (type(value).__name__, len(items))
            for k, v in items.items():
                walk((*path, k), v)
        else:
            out[path] = value

    for k, v in top.items():
        walk((k,), v)
    return out
