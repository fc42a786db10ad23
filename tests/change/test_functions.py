"""Function ids, fingerprints and the outline, on plain text (no git)."""

from __future__ import annotations

import textwrap

import pytest

from codemode.change.chunks import Function, SourceError, decode_source, module_name, split_chunks
from codemode.change.functions import SourceFile

SOURCE = '''
"""Module docstring.

def not_a_function(): this line is inside the docstring, at column 0
"""
import functools
from typing import overload

LIMIT = 3


@functools.lru_cache
def cached(x):
    return x


async def fetch():
    def helper():
        async def deep():
            return 1
        return deep
    return helper


class Shape:
    """A shape."""

    @property
    def area(self):
        return 1

    @area.setter
    def area(self, value):
        self._area = value

    class Inner:
        def method(self):
            return 2


@overload
def parse(x: int) -> int: ...
@overload
def parse(x: str) -> str: ...
def parse(x):
    return x


if LIMIT:
    def conditional():
        return LIMIT
'''


def load(text: str, module: str = "pkg.mod") -> SourceFile:
    src = SourceFile("src/pkg/mod.py", module, textwrap.dedent(text).lstrip("\n"))
    src.parse_all()
    return src


def test_ids_for_nested_async_decorated_overloads_and_properties():
    fns = load(SOURCE).functions()
    assert sorted(f.id for f in fns.values()) == [
        "pkg.mod.Shape.Inner.method",
        "pkg.mod.Shape.area",
        "pkg.mod.cached",
        "pkg.mod.conditional",
        "pkg.mod.fetch",  # its nested helper (and helper.deep) are part of it, not importable
        "pkg.mod.parse",
    ]
    assert fns["cached"].lineno == 11  # the decorator's line
    assert (fns["parse"].lineno, fns["parse"].end_lineno) == (40, 45)  # all three definitions
    assert fns["Shape.area"].cls == "Shape"


def test_outline_agrees_with_the_parse_without_parsing():
    outlined = SourceFile("src/pkg/mod.py", "pkg.mod", textwrap.dedent(SOURCE).lstrip("\n"))
    parsed = load(SOURCE)
    assert {q: (f.lineno, f.end_lineno) for q, f in outlined.functions().items()} == {
        q: (f.lineno, f.end_lineno) for q, f in parsed.functions().items()
    }
    assert all(f.fingerprint is None for f in outlined.functions().values())


def test_overload_and_setter_edits_change_the_combined_fingerprint():
    base = load(SOURCE).functions()
    edited = load(SOURCE.replace("self._area = value", "self._area = -value")).functions()
    assert base["Shape.area"].fingerprint != edited["Shape.area"].fingerprint
    edited = load(SOURCE.replace("def parse(x: str) -> str", "def parse(x: bytes) -> str"))
    assert base["parse"].fingerprint != edited.functions()["parse"].fingerprint


@pytest.mark.parametrize(
    "variant",
    [
        "def f(a, b):\n    return a + b  # sum\n",
        'def f(a, b):\n    """Sum."""\n    return a + b\n',
        "def f(\n    a,\n    b,\n):\n\n    return (a +\n            b)\n",
        "def f(a, b):\n    # why\n    return a + b\n",
        "def g(a, b):\n    return a + b\n",  # a rename keeps the fingerprint
    ],
)
def test_fingerprint_ignores_comments_docstrings_formatting_and_the_name(variant):
    base = load("def f(a, b):\n    return a + b\n").functions()["f"].fingerprint
    (fn,) = load(variant).functions().values()
    assert fn.fingerprint == base


@pytest.mark.parametrize(
    "variant",
    [
        "def f(a, b):\n    return a - b\n",
        "def f(a, c):\n    return a + c\n",
        "@cache\ndef f(a, b):\n    return a + b\n",
        "async def f(a, b):\n    return a + b\n",
        "def f(a, b=1):\n    return a + b\n",
        "def f(a, b):\n    return a + b + 0.0\n",
    ],
)
def test_fingerprint_sees_behaviour(variant):
    base = load("def f(a, b):\n    return a + b\n").functions()["f"].fingerprint
    (fn,) = load(variant).functions().values()
    assert fn.fingerprint != base


def test_renaming_an_inner_function_changes_the_outer_one():
    a = load("def f():\n    def g():\n        return 1\n    return g\n").functions()
    b = load("def f():\n    def h():\n        return 1\n    return g\n").functions()
    assert a["f"].fingerprint != b["f"].fingerprint
    assert set(a) == set(b) == {"f"}  # the inner def is part of f, not a function of its own


def test_editing_a_nested_function_or_local_class_is_a_change_of_the_enclosing_one():
    src = (
        "def f(x):\n    def g(y):\n        return y + 1\n\n"
        "    class Local:\n        def m(self):\n            return 2\n\n    return g(x)\n"
    )
    a = load(src).functions()
    assert set(a) == {"f"}
    assert load(src).classes() == {}
    for edit in ("return y + 2", "return 3"):
        old = "return y + 1" if edit == "return y + 2" else "return 2"
        assert load(src.replace(old, edit)).functions()["f"].fingerprint != a["f"].fingerprint
    outlined = SourceFile("src/pkg/mod.py", "pkg.mod", src)
    assert set(outlined.functions()) == {"f"}


def test_constants_and_imports():
    src = load(SOURCE)
    # module-level constants, and each class's statement and attributes (#32)
    assert {c for c in src.constants() if "." not in c} == {"LIMIT"}
    assert "Shape.__class__" in src.constants()
    assert ("functools", "functools") in src.imports()
    assert ("overload", "typing.overload") in src.imports()
    relative = SourceFile(
        "src/pkg/sub/__init__.py", "pkg.sub", "from . import a\nfrom ..b import c as d\n"
    )
    relative.parse_all()
    assert relative.imports() == [("a", "pkg.sub.a"), ("d", "pkg.b.c")]


def test_chunks_do_not_split_inside_a_docstring():
    chunks = split_chunks(textwrap.dedent(SOURCE).lstrip("\n"))
    assert [c.name for c in chunks if c.is_def] == [
        "cached",
        "fetch",
        "Shape",
        "parse",
        "parse",
        "parse",
    ]
    assert chunks[0].start == 1 and chunks[0].end >= 8


def test_references_skip_strings_comments_and_the_definition():
    src = SourceFile(
        "src/pkg/mod.py",
        "pkg.mod",
        "def helper():\n    return 'helper'  # helper\n\n\ndef user(self):\n"
        "    return helper() + mod.helper + self.helper + super().helper\n",
    )
    refs = [(line, ref, [d.qual for d in defs]) for line, ref, defs in src.references(["helper"])]
    assert refs == [
        (6, "helper", ["user"]),
        (6, "mod.helper", ["user"]),
        (6, "self.helper", ["user"]),
        (6, "super().helper", ["user"]),
    ]


def test_module_names_for_src_and_flat_layouts():
    roots = ("src", ".")
    assert module_name("src/pkg/mod.py", roots) == "pkg.mod"
    assert module_name("src/pkg/__init__.py", roots) == "pkg"
    assert module_name("pkg/mod.py", roots) == "pkg.mod"
    assert module_name("tools/my-script.py", roots) is None  # not importable
    assert module_name("scripts/x.py", ("src",)) is None
    assert module_name("lib/python/pkg/x.py", ("lib/python",)) == "pkg.x"


def test_decoding():
    assert decode_source("# coding: latin-1\nx = 'é'\n".encode("latin-1")).endswith("'é'\n")
    assert decode_source(b"\xef\xbb\xbfx = 1\n") == "x = 1\n"  # a BOM
    with pytest.raises(SourceError, match="cannot decode"):
        decode_source(b"x = '\xff'\n")
    with pytest.raises(SourceError, match="binary"):
        decode_source(b"x = 1\x00\n")


def test_a_syntax_error_names_its_line():
    src = SourceFile("a.py", "a", "def f():\n    return (\n")
    with pytest.raises(SourceError, match=r"^2: syntax error|^1: syntax error"):
        src.parse_all()


def test_the_statement_scan_finds_what_the_parse_finds():
    text = textwrap.dedent(
        '''
        """Doc: import nothing from here."""
        import os, sys as system
        import a.b.c
        import a.b as ab
        from . import sibling
        from .. import up as upper
        from .mod import (
            one,
            two as deux,  # a comment
        )
        from pkg.star import *
        try:
            import json
        except ImportError:  # pragma: no cover
            json = None
        LIMIT: int = 3
        A, B = 1, 2
        COUNT += 1
        if LIMIT:
            def conditional():
                return 1
        '''
    ).lstrip("\n")
    scanned = SourceFile("src/pkg/sub/mod.py", "pkg.sub.mod", text)
    scanned.scan_statements()
    parsed = SourceFile("src/pkg/sub/mod.py", "pkg.sub.mod", text)
    parsed.parse_all()
    assert sorted(scanned.imports()) == sorted(parsed.imports())
    assert scanned.stars() == parsed.stars() == ["pkg.star"]
    for name in ("LIMIT", "A", "B", "COUNT", "json", "conditional"):
        assert scanned.is_top_level(name), name
    assert scanned.defines("conditional")


@pytest.mark.parametrize(
    "text",
    [
        "",
        '"""Only a docstring."""\n',
        "def f():\r\n    return 1\r\n\r\n\r\ndef g():\r\n    return f()\r\n",  # CRLF
        "def f():\n\treturn 1\n\n\nclass C:\n\tdef m(self):\n\t\treturn f()\n",  # tabs
        "x = 1\n\x0c\ndef f():\n    return x\n",  # a form feed between statements
        "def f(): return 1\ndef g(): return f()",  # no final newline
        "@dec\nclass C:\n    @staticmethod\n    def s():\n        return 1\n",
    ],
)
def test_odd_files_give_the_same_functions_outlined_and_parsed(text):
    outlined = SourceFile("src/pkg/m.py", "pkg.m", text)
    parsed = SourceFile("src/pkg/m.py", "pkg.m", text)
    parsed.parse_all()
    assert set(outlined.functions()) == set(parsed.functions())
    for qual, fn in parsed.functions().items():
        assert fn.fingerprint is not None
        assert outlined.functions()[qual].lineno == fn.lineno, qual


MERGED = """import re

def first(text):
    return text.find("\'\'\'")


def second(x):
    return x + 1


class Base:
    def price(self):
        return 10
"""


def test_defs_merged_into_an_earlier_chunk_are_still_found_unparsed():
    """A triple quote in a one-line string merges later defs into the chunk of ``first``;
    lookups by name must still find them before anything is parsed."""
    src = SourceFile.from_bytes("src/pkg/m.py", "pkg.m", MERGED.encode())
    assert [c.name for c in src.chunks if c.is_def] == ["first"]  # the merge this test is about
    assert src.defines("second") and src.is_class("Base") and src.defines("Base.price")
    assert src.function("second") == Function("pkg.m.second", "second", 7, 8, None, None)
    src.ensure(["second"])
    assert src.parsed_functions()["second"].fingerprint is not None
