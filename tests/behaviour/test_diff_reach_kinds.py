"""More ways a public function reaches a change (#32), each through ``check --staged`` with
real git and real workers on both sides: the function's own code did not change, it is
diffed like a changed one, its witness shows the difference, and its report names the way.

One library module holds the common shapes: a module-level instance whose method does the
work, a bound-method alias of one, a ``@classmethod`` constructor, an instance's
``__call__``, a class attribute (a compiled pattern, a table of handlers), a base class's
template method calling an override, a method named like a module function, instances kept
in a list, an operator's special method, a function held in an attribute, the object a
method returns, a class a decorator files in a table, a class statement. Each case edits one line of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import assert_reaches, check, functions, git, project, write

LIB = """\
import re


class Decoder:
    def decode(self, s):
        return self._scan(s)

    def _scan(self, s):
        return s.strip()


_default = Decoder()


def loads(s):
    return _default.decode(s)


class Encoder:
    def encode(self, o):
        return "<" + str(o) + ">"


_encoder = Encoder()
dumps = _encoder.encode


def to_text(o):
    return dumps(o)


class Money:
    def __init__(self, cents):
        self.cents = cents

    @classmethod
    def parse(cls, text):
        return cls(int(text))

    def show(self):
        return "%d.%02d" % divmod(self.cents, 100)


def price(text):
    return Money.parse(text).show()


class Doubler:
    def __call__(self, x):
        return x * 2


double = Doubler()


def twice(xs):
    return [double(x) for x in xs]


class Cleaner:
    SPACES = re.compile(r"\\s+")

    def clean(self, s):
        return self.SPACES.sub(" ", s)


def tidy(s):
    return Cleaner().clean(s)


def _upper(v):
    return v.upper()


class Formatter:
    handlers = {str: _upper}

    def format(self, v):
        return self.handlers[type(v)](v)


def shout(v):
    return Formatter().format(v)


class Base:
    def run(self, x):
        return self.step(x) + 1

    def step(self, x):
        return x


class Plus(Base):
    def step(self, x):
        return x + 10


def plus(x):
    return Plus().run(x)


class Expander:
    def expand(self, s):
        return s.split(",")


def expand(s):
    return list(Expander().expand(s))


class Item:
    def __init__(self, v):
        self.v = v

    def render(self):
        return "-" + self.v


class Listing:
    def __init__(self, values):
        self.items = [Item(v) for v in values]

    def render(self):
        return "\\n".join(item.render() for item in self.items)


def listing(values):
    return Listing(values).render()


class Version:
    def __init__(self, text):
        self.parts = [int(p) for p in text.split(".")]

    def __lt__(self, other):
        return self.parts < other.parts


def newest(a, b):
    return b if Version(a) < Version(b) else a


def _number(text):
    return int(text)


class Reader:
    def __init__(self):
        self.parse_number = _number

    def read(self, text):
        return self.parse_number(text)


class Doc:
    def __init__(self, words):
        self.words = words

    def html(self):
        return "<p>" + " ".join(self.words) + "</p>"


class Parser:
    def __init__(self, text):
        self.text = text

    def parse(self):
        return Doc(self.text.split())


def to_html(text):
    return Parser(text).parse().html()


_styles = {}


def style(name):
    def file(cls):
        _styles[name] = cls
        return cls

    return file


@style("loud")
class Loud:
    def apply(self, s):
        return s.upper()


def styled(kind, s):
    return _styles[kind]().apply(s)


class Plain:
    def tag(self):
        return "plain"


class Fancy:
    def tag(self):
        return "fancy"


class Label(Plain):
    pass


def label():
    return Label().tag()
"""
TEST_LIB = """\
from demo.lib import Reader, expand, label, listing, loads, newest, plus, styled, to_html, price, shout, tidy, to_text, twice


def test_lib():
    assert loads("  a ") == "a"
    assert to_text(1) == "<1>"
    assert price("250") == "2.50"
    assert twice([1, 2]) == [2, 4]
    assert tidy("a  b") == "a b"
    assert shout("a") == "A"
    assert plus(1) == 11
    assert expand("a,b") == ["a", "b"]
    assert listing(["a", "b"]) == "-a\\n-b"
    assert newest("1.0", "2.0") == "2.0"
    assert Reader().read("5") == 5
    assert to_html("a b") == "<p>a b</p>"
    assert styled("loud", "a") == "A"
    assert label() == "plain"
"""
# (the edit, the function it reaches, a witness call, its new outcome, the way: first to last)
KINDS = {
    "module-level instance": (
        ("return s.strip()", "return s.lstrip()"),
        "demo.lib.loads",
        "loads('  a ')",
        "a ",
        ["demo.lib.Decoder._scan", "demo.lib.Decoder.decode", "demo.lib.loads"],
    ),
    "bound-method alias": (
        ('"<" + str(o)', '"[" + str(o)'),
        "demo.lib.to_text",
        "to_text(1)",
        "[1>",
        ["demo.lib.Encoder.encode", "demo.lib.dumps", "demo.lib.to_text"],
    ),
    "classmethod constructor": (
        ('"%d.%02d"', '"%d,%02d"'),
        "demo.lib.price",
        "price('250')",
        "2,50",
        ["demo.lib.Money.show", "demo.lib.price"],
    ),
    "__call__ of a module-level instance": (
        ("x * 2", "x * 3"),
        "demo.lib.twice",
        "twice([1, 2])",
        [3, 6],
        ["demo.lib.Doubler.__call__", "demo.lib.double", "demo.lib.twice"],
    ),
    "class attribute": (
        ('re.compile(r"\\s+")', 're.compile(r"\\s")'),
        "demo.lib.tidy",
        "tidy('a  b')",
        "a  b",
        ["demo.lib.Cleaner.SPACES", "demo.lib.Cleaner.clean", "demo.lib.tidy"],
    ),
    "class-level table": (
        ("v.upper()", 'v.upper() + "!"'),
        "demo.lib.shout",
        "shout('a')",
        "A!",
        [
            "demo.lib._upper",
            "demo.lib.Formatter.handlers",
            "demo.lib.Formatter.format",
            "demo.lib.shout",
        ],
    ),
    "template method of a base": (
        ("x + 10", "x + 20"),
        "demo.lib.plus",
        "plus(1)",
        22,
        ["demo.lib.Plus.step", "demo.lib.Base.run", "demo.lib.plus"],
    ),
    "method named like a module function": (
        ('s.split(",")', 's.split(";")'),
        "demo.lib.expand",
        "expand('a,b')",
        ["a,b"],
        ["demo.lib.Expander.expand", "demo.lib.expand"],
    ),
    "special method (an operator)": (
        ("self.parts < other.parts", "self.parts > other.parts"),
        "demo.lib.newest",
        "newest('1.0', '2.0')",
        "1.0",
        ["demo.lib.Version.__lt__", "demo.lib.newest"],
    ),
    "a function held in an instance attribute": (
        ("return int(text)", "return int(text) * 10"),
        "demo.lib.Reader.read",
        "Reader().read('5')",
        50,
        ["demo.lib._number", "demo.lib.Reader.parse_number", "demo.lib.Reader.read"],
    ),
    "the object a method returns": (
        ('"<p>" + " ".join', '"<p>" + "-".join'),
        "demo.lib.to_html",
        "to_html('a b')",
        "<p>a-b</p>",
        ["demo.lib.Doc.html", "demo.lib.to_html"],
    ),
    "a class a decorator files in a table": (
        ("return s.upper()", 'return s.upper() + "!"'),
        "demo.lib.styled",
        "styled('loud', 'a')",
        "A!",
        ["demo.lib.Loud.apply", "demo.lib._styles", "demo.lib.styled"],
    ),
    "a class statement (a new base)": (
        ("class Label(Plain):", "class Label(Fancy):"),
        "demo.lib.label",
        "label()",
        "fancy",
        ["demo.lib.Label.__class__", "demo.lib.label"],
    ),
    "instances kept in a list": (
        ('"-" + self.v', '"*" + self.v'),
        "demo.lib.listing",
        "listing(['a', 'b'])",
        "*a\n*b",
        ["demo.lib.Item.render", "demo.lib.Listing.render", "demo.lib.listing"],
    ),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_function_reaching_a_change_this_way_is_diffed_and_says_through_what(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_reaches(tmp_path, LIB, TEST_LIB, KINDS[kind], capsys, monkeypatch)


IBAN = """\
import os


def _load(name):
    with open(os.path.join(os.path.dirname(__file__), name)) as f:
        return dict(line.split() for line in f)


_LENGTHS = _load("lengths.txt")


def length(country):
    return int(_LENGTHS[country])
"""


def test_a_reader_of_a_changed_data_file_is_diffed_on_the_old_data(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table shipped in the package changes what its reader returns, though no Python
    changed: the reader is impacted through the file, and the old side reads the old table."""
    test = "from demo.iban import length\n\n\ndef test_length():\n    assert length('DE') == 22\n"
    files = {"src/demo/iban.py": IBAN, "src/demo/lengths.txt": "DE 22\nFR 27\n"}
    repo = project(tmp_path, {**files, "tests/test_iban.py": test})
    write(repo, {"src/demo/lengths.txt": "DE 23\nFR 27\n"})
    git(repo, "commit", "-qam", "a new table")
    rc, report = check(repo, "--base", "HEAD~1", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.iban.length"]
    assert f["status"] == "changed" and rc == 1, f
    calls = {w["call"]: w for w in f["witnesses"]}
    assert calls["length('DE')"]["old"] == {"returned": 22}, list(calls)
    assert calls["length('DE')"]["new"] == {"returned": 23}
    assert "length('FR')" not in calls
    assert f["via"] == ["src/demo/lengths.txt", "demo.iban._LENGTHS", "demo.iban.length"]


def test_a_staged_change_of_a_package_data_file_alone_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook's fast path ("nothing to verify") lets a data file inside a package through:
    a commit that edits only the table its reader loads is diffed like the --base case."""
    test = "from demo.iban import length\n\n\ndef test_length():\n    assert length('DE') == 22\n"
    files = {"src/demo/iban.py": IBAN, "src/demo/lengths.txt": "DE 22\nFR 27\n"}
    repo = project(tmp_path, {**files, "tests/test_iban.py": test, "NOTES.txt": "n\n"})
    write(repo, {"src/demo/lengths.txt": "DE 23\nFR 27\n"})
    git(repo, "add", "src/demo/lengths.txt")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report)["demo.iban.length"]
    assert f["status"] == "changed" and rc == 1, f
    assert f["via"][0] == "src/demo/lengths.txt"
    git(repo, "commit", "-qm", "the table")
    write(repo, {"NOTES.txt": "a note beside the code, in no package\n"})
    git(repo, "add", "NOTES.txt")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    assert rc == 0 and "nothing to verify" in " ".join(report["notes"]), report
