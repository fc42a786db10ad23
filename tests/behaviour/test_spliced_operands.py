"""The values a change compares against, spliced into the maintainers' calls (#32), through
the CLI with real git and real workers on both sides. In each project no test call, no
variant of one and no whole literal of the change shows the new behaviour: only a test's call
with the changed line's operand spliced in does (explore/offline/splice.py). Each fails on
the code before it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from diffkit import check, functions, git, project, witness_calls, write

RENDER = """\
from typing import Any


def render(text: str, options: dict[str, Any]) -> str:
    width = options["width"]
    out = text[:width]
    return out
"""
RENDER_NEW = RENDER.replace(
    "    return out\n",
    '    if options.get("x-upper"):\n        out = out.upper()\n    return out\n',
)
RENDER_TEST = """\
from demo.render import render


def test_render():
    assert render("hello world", {"width": 5}) == "hello"
"""


TIDY = """\
def tidy(sentence: str) -> str:
    head, _, rest = sentence.partition(" ")
    out = [head.capitalize()]
    for word in rest.split():
        out.append(word.upper() if word.lower() in ("and", "or") else word)
    return " ".join(out)
"""
TIDY_TEST = """\
from demo.tidy import tidy


def test_tidy():
    assert tidy("the cat and the dog") == "The cat AND the dog"
"""


LEXICON = """\
import re

PATTERNS = [
    (r"[0-9]+", "NUM"),
    (r"[A-Za-z_][A-Za-z_0-9]*", "NAME"),
    (r"[-+*/=]", "OP"),
]
COMPILED = [(re.compile(p), kind) for p, kind in PATTERNS]
"""
LEXICON_NEW = LEXICON.replace("PATTERNS = [\n", 'PATTERNS = [\n    (r"0x[0-9a-f]+", "HEX"),\n')
LEXER = """\
from demo.lexicon import COMPILED


def kinds(source: str) -> list[str]:
    out = []
    for token in source.split():
        out.append(next((k for p, k in COMPILED if p.fullmatch(token)), "?"))
    return out
"""
LEXER_TEST = """\
from demo.lexer import kinds


def test_kinds():
    assert kinds("x = 42 + y") == ["NAME", "OP", "NUM", "OP", "NAME"]
"""


WRAP = """\
from typing import Any


def wrap(text: str, **options: Any) -> str:
    out = text[: options.get("width", 10)]
    return out
"""
WRAP_NEW = WRAP.replace(
    "    return out\n",
    '    if options.get("upper_case"):\n        out = out.upper()\n    return out\n',
)
WRAP_TEST = """\
from demo.wrap import wrap


def test_wrap():
    assert wrap("hello world", width=5) == "hello"
"""
# (the project's files, their edit, the function, a witness call only a splice makes)
SPLICED = {
    # a key a changed line tests, added to the test's options: a mapping without the test's
    # "width" raises on both sides
    "option_key": (
        {"src/demo/render.py": RENDER, "tests/test_render.py": RENDER_TEST},
        {"src/demo/render.py": RENDER_NEW},
        "demo.render.render",
        "render('hello world', {'width': 5, 'x-upper': True})",
    ),
    # a key a changed line looks up in the function's ``**options``, passed as a keyword
    "options_keyword": (
        {"src/demo/wrap.py": WRAP, "tests/test_wrap.py": WRAP_TEST},
        {"src/demo/wrap.py": WRAP_NEW},
        "demo.wrap.wrap",
        "wrap('hello world', width=5, upper_case=True)",
    ),
    # a keyword a changed comparison adds, in place of a word of the test's sentence: "not"
    # alone is the sentence's head, capitalized on both sides
    "keyword_in_sentence": (
        {"src/demo/tidy.py": TIDY, "tests/test_tidy.py": TIDY_TEST},
        {"src/demo/tidy.py": TIDY.replace('("and", "or")', '("and", "or", "not")')},
        "demo.tidy.tidy",
        "tidy('the cat and the not')",
    ),
    # what a pattern another module's table gained matches, in place of a word of the
    # test's source: the function's own lines are the same, the pattern's text matches nothing
    "table_pattern": (
        {
            "src/demo/lexicon.py": LEXICON,
            "src/demo/lexer.py": LEXER,
            "tests/test_lexer.py": LEXER_TEST,
        },
        {"src/demo/lexicon.py": LEXICON_NEW},
        "demo.lexer.kinds",
        "kinds('x = 0x0 + y')",
    ),
}


@pytest.mark.parametrize("kind", list(SPLICED))
def test_a_value_the_change_compares_against_is_spliced_into_a_tests_call(
    kind: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old, new, fid, call = SPLICED[kind]
    calls = witness_calls(tmp_path, old, new, fid, capsys, monkeypatch)
    assert call in calls, calls


LABEL = """\
def short_label(text: str) -> str:
    if len(text) > 36:
        return text[:9] + "..."
    return text
"""
LABEL_TEST = """\
from demo.label import short_label


def test_short_label():
    assert short_label("tea") == "tea"
    assert short_label("a label far too long to show") == "a label f..."
"""


def test_a_length_a_changed_condition_compares_gives_the_seed_cut_to_its_boundary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = project(tmp_path, {"src/demo/label.py": LABEL, "tests/test_label.py": LABEL_TEST})
    write(repo, {"src/demo/label.py": LABEL.replace("> 36", "> 34")})
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get("demo.label.short_label")
    assert f is not None and f["status"] == "changed" and rc == 1, f
    differing = [ast.literal_eval(w["call"].removeprefix("short_label")) for w in f["witnesses"]]
    # the only inputs that differ have 35 or 36 characters: a test's text padded to them
    assert differing and {len(t) for t in differing} <= {35, 36}, differing
    assert "a label far too long to showa label" in differing, differing
