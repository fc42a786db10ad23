"""Ways a public function reaches a change that the first reach rules missed (#32), each
through ``check --staged`` with real git and real workers on both sides: a registry a base
fills in ``__init_subclass__`` or a metaclass fills at class creation, a module-level
instance a factory function built (in place, or in a local name it returns), a closure a
factory returned, a lambda in a module-level table, a table of instances of a class
(a method reached through ``getattr``), a method reached through ``super()``
(both spellings) or ``type(self)``, a property, a descriptor, a compiled pattern, a constant
built from another or used as a default argument, an enum member read through its class, a
function ``singledispatch`` picks, one picked from ``globals()``, a decorator, a class a class
attribute holds (``lexer_class = Lexer``), and a chain of
public calls deeper than ``impact_depth``. Each case edits one line of one library module;
the report names the way, first to last."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import assert_reaches

LIB = """\
import re
from enum import Enum
from functools import singledispatch


class Node:
    kinds = {}

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        Node.kinds[cls.tag] = cls

    def __init__(self, v):
        self.v = v


class Bold(Node):
    tag = "b"

    def show(self):
        return "**" + self.v + "**"


def render(tag, v):
    return Node.kinds[tag](v).show()


_SHAPES = {}


class ShapeMeta(type):
    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        _SHAPES[name.lower()] = cls


class Shape(metaclass=ShapeMeta):
    def area(self):
        return 0


class Square(Shape):
    def area(self):
        return 4


def area_of(name):
    return _SHAPES[name]().area()


def _build():
    return Counter()


class Counter:
    def count(self, s):
        return len(s.split())


_counter = _build()


def words(s):
    return _counter.count(s)


def make_adder(n):
    def add(x):
        return x + n

    return add


add_two = make_adder(2)


def plus_two(x):
    return add_two(x)


OPS = {"neg": lambda a: -a, "abs": abs}


def apply_op(op, a):
    return OPS[op](a)


class Greeter:
    def greet(self, name):
        return "hi " + name


class LoudGreeter(Greeter):
    def shout(self, name):
        return super().greet(name).upper()


def loud_greet(name):
    return LoudGreeter().shout(name)


class OldGreeter(Greeter):
    def cheer(self, name):
        return super(OldGreeter, self).greet(name) + "!"


def old_greet(name):
    return OldGreeter().cheer(name)


class Box:
    def __init__(self, w):
        self.w = w

    @property
    def area(self):
        return self.w * self.w


def box_area(w):
    return Box(w).area


class Upper:
    def __get__(self, obj, owner):
        return obj.raw.upper()


class Record:
    name = Upper()

    def __init__(self, raw):
        self.raw = raw


def record_name(raw):
    return Record(raw).name


_WORD = re.compile(r"[a-z]+")


def first_word(s):
    m = _WORD.search(s)
    return m.group(0) if m else ""


SEP = ","
JOINER = SEP + " "


def join_all(xs):
    return JOINER.join(xs)


@singledispatch
def describe(v):
    return "thing"


@describe.register(int)
def _describe_int(v):
    return "int " + str(v)


class Tally:
    def __init__(self):
        self.ready = False

    def tally(self, s):
        return len(s)


def _configured():
    t = Tally()
    t.ready = True
    return t


_tally = _configured()


def size(s):
    return _tally.tally(s)


PAD = "-"


def pad(s, fill=PAD):
    return fill + s + fill


class Level(Enum):
    LOW = 1
    HIGH = 5


def level_of(name):
    return Level[name].value * 10


def bumped(fn):
    def inner(x):
        return fn(x) + 1

    return inner


@bumped
def bump(x):
    return x


def _handle_up(s):
    return s.upper()


def handle(kind, s):
    return globals()["_handle_" + kind](s)


class Shouter:
    def _loud(self, s):
        return s + "!"

    def shout(self, s):
        return type(self)._loud(self, s)


class Words:
    def to_cardinal(self, n):
        return str(n)


class English(Words):
    def to_ordinal(self, n):
        return self.to_cardinal(n) + "th"


CONVERTERS = {"en": English()}


def num2words(n, to="cardinal"):
    return getattr(CONVERTERS["en"], "to_" + to)(n)


class Lexer:
    def lex(self, s):
        return s.split()


class Engine:
    lexer_class = Lexer

    def run(self, s):
        lexer = self.lexer_class()
        return lexer.lex(s)


def tokens(s):
    return Engine().run(s)


def l1(x):
    return l2(x)


def l2(x):
    return l3(x)


def l3(x):
    return l4(x)


def l4(x):
    return l5(x)


def l5(x):
    return x + 1
"""
TEST_LIB = """\
from demo.lib import (
    apply_op, area_of, box_area, bump, describe, handle, num2words, Shouter, tokens, level_of, pad, size, first_word, join_all, l1, loud_greet, old_greet, plus_two,
    record_name, render, words,
)


def test_lib():
    assert render("b", "x") == "**x**"
    assert area_of("square") == 4
    assert words("a b") == 2
    assert plus_two(1) == 3
    assert apply_op("neg", 2) == -2
    assert loud_greet("bo") == "HI BO"
    assert old_greet("bo") == "hi bo!"
    assert box_area(3) == 9
    assert record_name("ab") == "AB"
    assert first_word("ab cd") == "ab"
    assert join_all(["a", "b"]) == "a, b"
    assert l1(1) == 2
    assert describe(3) == "int 3"
    assert bump(1) == 2
    assert tokens("a b") == ["a", "b"]
    assert num2words(3) == "3"
    assert handle("up", "a") == "A"
    assert Shouter().shout("a") == "a!"
    assert size("abc") == 3
    assert pad("a") == "-a-"
    assert level_of("HIGH") == 50
"""
# (the edit, the function it reaches, a witness call, its new outcome, the way: first to last)
KINDS = {
    "a registry __init_subclass__ fills": (
        ('"**" + self.v + "**"', '"__" + self.v + "__"'),
        "demo.lib.render",
        "render('b', 'x')",
        "__x__",
        ["demo.lib.Bold.show", "demo.lib.Node.kinds", "demo.lib.render"],
    ),
    "a registry a metaclass fills": (
        ("return 4", "return 16"),
        "demo.lib.area_of",
        "area_of('square')",
        16,
        ["demo.lib.Square.area", "demo.lib._SHAPES", "demo.lib.area_of"],
    ),
    "a module-level instance a factory built": (
        ("len(s.split())", "len(s.split()) + 1"),
        "demo.lib.words",
        "words('a b')",
        3,
        ["demo.lib.Counter.count", "demo.lib.words"],
    ),
    "a closure a factory returned": (
        ("return x + n", "return x + n + 1"),
        "demo.lib.plus_two",
        "plus_two(1)",
        4,
        ["demo.lib.make_adder", "demo.lib.add_two", "demo.lib.plus_two"],
    ),
    "a lambda in a module-level table": (
        ('"neg": lambda a: -a', '"neg": lambda a: a'),
        "demo.lib.apply_op",
        "apply_op('neg', 2)",
        2,
        ["demo.lib.OPS", "demo.lib.apply_op"],
    ),
    "a method reached through super()": (
        ('"hi " + name', '"hello " + name'),
        "demo.lib.loud_greet",
        "loud_greet('bo')",
        "HELLO BO",
        ["demo.lib.Greeter.greet", "demo.lib.LoudGreeter.shout", "demo.lib.loud_greet"],
    ),
    "a method reached through super(Cls, self)": (
        ('"hi " + name', '"hello " + name'),
        "demo.lib.old_greet",
        "old_greet('bo')",
        "hello bo!",
        ["demo.lib.Greeter.greet", "demo.lib.OldGreeter.cheer", "demo.lib.old_greet"],
    ),
    "a property": (
        ("self.w * self.w", "self.w * 2"),
        "demo.lib.box_area",
        "box_area(3)",
        6,
        ["demo.lib.Box.area", "demo.lib.box_area"],
    ),
    "a descriptor": (
        ("obj.raw.upper()", "obj.raw.title()"),
        "demo.lib.record_name",
        "record_name('ab')",
        "Ab",
        ["demo.lib.Upper.__get__", "demo.lib.Record.name", "demo.lib.record_name"],
    ),
    "a compiled pattern": (
        ('r"[a-z]+"', 'r"[a-z]"'),
        "demo.lib.first_word",
        "first_word('ab cd')",
        "a",
        ["demo.lib._WORD", "demo.lib.first_word"],
    ),
    "a constant built from another": (
        ('SEP = ","', 'SEP = ";"'),
        "demo.lib.join_all",
        "join_all(['a', 'b'])",
        "a; b",
        ["demo.lib.SEP", "demo.lib.JOINER", "demo.lib.join_all"],
    ),
    "a function singledispatch picks": (
        ('"int " + str(v)', '"int: " + str(v)'),
        "demo.lib.describe",
        "describe(3)",
        "int: 3",
        ["demo.lib._describe_int", "demo.lib.describe"],
    ),
    "an instance a factory sets up in a local name": (
        ("return len(s)", "return len(s) + 1"),
        "demo.lib.size",
        "size('abc')",
        4,
        ["demo.lib.Tally.tally", "demo.lib.size"],
    ),
    "a constant as a default argument": (
        ('PAD = "-"', 'PAD = "="'),
        "demo.lib.pad",
        "pad('a')",
        "=a=",
        ["demo.lib.PAD", "demo.lib.pad"],
    ),
    "an enum member's value": (
        ("HIGH = 5", "HIGH = 6"),
        "demo.lib.level_of",
        "level_of('HIGH')",
        60,
        ["demo.lib.Level.HIGH", "demo.lib.level_of"],
    ),
    "a decorator": (
        ("return fn(x) + 1", "return fn(x) + 2"),
        "demo.lib.bump",
        "bump(1)",
        3,
        ["demo.lib.bumped", "demo.lib.bump"],
    ),
    "a function picked from globals()": (
        ("return s.upper()", "return s.upper() + '?'"),
        "demo.lib.handle",
        "handle('up', 'a')",
        "A?",
        ["demo.lib._handle_up", "demo.lib.handle"],
    ),
    "a method called through type(self)": (
        ('return s + "!"', 'return s + "!!"'),
        "demo.lib.Shouter.shout",
        "Shouter().shout('a')",
        "a!!",
        ["demo.lib.Shouter._loud", "demo.lib.Shouter.shout"],
    ),
    "a table of instances": (
        ("return str(n)", 'return "#" + str(n)'),
        "demo.lib.num2words",
        "num2words(3)",
        "#3",
        ["demo.lib.Words.to_cardinal", "demo.lib.CONVERTERS", "demo.lib.num2words"],
    ),
    "a class a class attribute holds": (
        ("return s.split()", "return s.upper().split()"),
        "demo.lib.tokens",
        "tokens('a b')",
        ["A", "B"],
        ["demo.lib.Lexer.lex", "demo.lib.Engine.run", "demo.lib.tokens"],
    ),
    "a chain of public calls deeper than impact_depth": (
        ("return x + 1", "return x + 2"),
        "demo.lib.l1",
        "l1(1)",
        3,
        ["demo.lib.l5", "demo.lib.l4", "demo.lib.l3", "demo.lib.l2", "demo.lib.l1"],
    ),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_function_reaching_a_change_this_way_is_diffed_and_says_through_what(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_reaches(tmp_path, LIB, TEST_LIB, KINDS[kind], capsys, monkeypatch)
