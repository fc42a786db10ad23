"""The operands a change compares against (explore/offline/change_operands.py) and the
least string a pattern matches (text_forms.regex_example(least=True)), on real files (#32)."""

from __future__ import annotations

import re
import time
import typing
from pathlib import Path

import pytest

from codemode.explore.offline.change_operands import TRUTH, Operand, module_operands
from codemode.explore.offline.text_forms import regex_example


@pytest.mark.parametrize(
    ("pattern", "least"),
    [
        (r"(NOT\s+)?(IN)\b", "IN"),
        (r"^v?(\d+)\.(\d+)$", "7.7"),
        (r"[A-Z]{2,3}-\d+", "AA-7"),
        (r"(a|b)+c", "ac"),
        (r"(?P<x>ab)(?P=x)", "abab"),
        (r"0x[0-9a-f]+(_[0-9a-f]+)*", "0x0"),
        (r"[\s\S]*?\*/", "*/"),
        (r"(?i)foo|bar", "foo"),
    ],
)
def test_the_least_example_takes_each_repeat_its_least(pattern: str, least: str) -> None:
    got = regex_example(pattern, least=True)
    assert got == least
    assert re.search(pattern, got)


@pytest.mark.parametrize(
    ("pattern", "other"),
    [
        (r"%[0-9A-Fa-f]{2}", "%AA"),  # a hex escape's letters beside its digits (least: %00)
        (r"\w+", "a"),  # a word character's letter (least: 7)
        (r"[A-Za-z_][A-Za-z_0-9]*", "_"),  # of another kind than a letter (least: A)
        (r"0x[0-9a-f]+", "0xa"),
        (r"\d+", "7"),  # a class of one kind: the least itself
        (r"[^0-9]", " "),  # a negated class: a probe outside it, of another kind than "a"
    ],
)
def test_the_other_example_takes_a_member_of_another_kind(pattern: str, other: str) -> None:
    got = regex_example(pattern, least=True, other=True)
    assert got == other
    assert re.search(pattern, got)


@pytest.mark.parametrize(
    "pattern",
    [
        r"x*",  # matches only the empty string at its least
        r"\d{1000}",  # past the repeat bound
        "(" * 300 + "a" + ")" * 300,  # past the parser's nesting or the walk's steps
        "(?:" + "|".join(f"a{i}" for i in range(3000)) + ")" + "b" * 600,
        "[unclosed",
    ],
)
def test_a_pattern_it_cannot_write_is_refused_in_bounded_time(pattern: str) -> None:
    start = time.perf_counter()
    assert regex_example(pattern, least=True) is None
    assert time.perf_counter() - start < 1.0


OLD = """\
import re

WIDTH = 10


def render(text, options, strict=False):
    if options.get("mode") == "wide":
        return text.center(WIDTH)
    return text
"""
NEW = """\
import re

WIDTH = 10


def render(text, options, strict=False):
    if options.get("mode") == "wide":
        if strict and "x-upper" in options:
            text = text.upper()
        if len(text) > 12 and text.startswith("~"):
            text = text[1:]
        return text.center(WIDTH)
    match options.get("align"):
        case "left":
            return re.sub(r"^\\s+(\\w+)", "", text)
    return text
"""


def test_the_operands_of_changed_lines_and_of_their_guards(tmp_path: Path) -> None:
    path = tmp_path / "render.py"
    path.write_text(NEW, encoding="utf-8")
    old = set(OLD.splitlines())
    fresh = frozenset(n for n, line in enumerate(NEW.splitlines(), 1) if line not in old)
    got = {(o.kind, o.value, o.family, o.name, o.paired) for o in module_operands(path, fresh)}
    assert {
        ("text", "x-upper", "key", "", None),  # a key a changed line tests
        ("name", TRUTH, "tested", "strict", None),  # a keyword a changed condition tests
        ("text", "mode", "key", "", "wide"),  # the guard: the key and what it is compared to
        ("text", "wide", "compared", "", None),
        ("number", 12, "length", "text", None),  # a length bound
        ("text", "~", "method", "", None),  # a prefix
        ("text", " 7", "regex", "", None),  # what the changed pattern matches, at its least
        ("text", " a", "regex", "", None),  # and with a letter where its class admits one
        ("text", "left", "compared", "", None),  # the match case around a changed line
    } - got == set(), got
    assert all(o.scope == "render" for o in module_operands(path, fresh))
    assert module_operands(path, frozenset()) == []
    assert typing.get_type_hints(Operand)["kind"] is str
