"""Text built from what the code itself looks for: a string its regular expressions match,
and each literal where the code looks for it (alone, ending a word, starting one, inside).

A regex of the body (``&#(\\d+);``) changes the output only on text it matches, and the
general texts rarely do; a literal checked with ``endswith``/``startswith`` (``'ch'``) only
on a word that ends or starts with it. Bytes forms of text reach a body that decodes what
it is given (``text.decode('utf-8')``), with a non-ASCII character and an invalid byte so
the codec and the error handler both matter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from codemode import saferegex

_PROBES = " !#-_.,;:/'\"aZ7é\t"  # what a negated class may match: the first one outside it
_OTHER_PROBES = "bZ9"  # after those: a member of another kind than the first, for ``other``
_MAX_REPEAT = 3
_CATEGORIES: dict[str, Callable[[str], bool]] = {
    "CATEGORY_DIGIT": str.isdigit,
    "CATEGORY_NOT_DIGIT": lambda c: not c.isdigit(),
    "CATEGORY_SPACE": str.isspace,
    "CATEGORY_NOT_SPACE": lambda c: not c.isspace(),
    "CATEGORY_WORD": lambda c: c.isalnum() or c == "_",
    "CATEGORY_NOT_WORD": lambda c: not (c.isalnum() or c == "_"),
}


def _parse(pattern: str) -> Any:
    try:
        import re._parser as sre_parse  # type: ignore[import-not-found]
    except ImportError:  # Python 3.10
        import sre_parse  # type: ignore[no-redef,unused-ignore]
    try:
        return sre_parse.parse(pattern)
    except Exception:
        return None


def _in_class(c: str, items: Any) -> bool:
    negate = False
    hit = False
    for op, av in items:
        name = op.name
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            hit = hit or c == chr(av)
        elif name == "RANGE":
            hit = hit or av[0] <= ord(c) <= av[1]
        elif name == "CATEGORY":
            test = _CATEGORIES.get(av.name)
            hit = hit or bool(test and test(c))
    return hit != negate


def _class_member(items: Any, other: bool = False) -> str:
    """The class's own first member (a range's first, when it is not negated; else the first
    probe it admits); with ``other``, its first member of another kind than that one (a
    letter for a digit, a digit or a sign for a letter: ``[0-9A-Fa-f]`` -> ``A``), when it
    has one."""
    members = _members(items)
    first = next(members, "")
    if other:
        return next((c for c in members if _kind(c) != _kind(first)), first)
    return first


def _members(items: Any) -> Iterator[str]:
    for op, av in items:  # the class's own members, when it is not negated
        if op.name == "NEGATE":
            break
        if op.name == "LITERAL":
            yield chr(av)
        elif op.name == "RANGE":
            yield chr(av[0])
    yield from (c for c in "7a _" + _PROBES + _OTHER_PROBES if _in_class(c, items))


def _kind(c: str) -> int:
    return 0 if c.isdigit() else 1 if c.isalpha() else 2


class _Example:
    """One string the pattern matches: each repeat twice (or its least, or once), the first
    branch, the first member of each class (a character outside a negated one)."""

    def __init__(
        self, alphabet: str = "", last: bool = False, least: bool = False, other: bool = False
    ) -> None:
        self.groups: dict[int, str] = {}
        self.steps = 0
        self.alphabet = alphabet  # characters the body treats specially, for free-text runs
        self.last = last  # each alternation's last branch rather than its first
        self.least = least  # each repeat its least (once for ``+``, never for ``?`` and ``*``)
        self.other = other  # each class's member of another kind than its first

    def seq(self, items: Any) -> str:
        return "".join(self.item(op, av) for op, av in items)

    def item(self, op: Any, av: Any) -> str:
        self.steps += 1
        if self.steps > 500:
            raise ValueError("pattern too large")
        name = op.name
        if name == "LITERAL":
            return chr(av)
        if name == "NOT_LITERAL":
            return next(c for c in "a" + _PROBES if c != chr(av))
        if name == "ANY":
            return "a"
        if name == "IN":
            return _class_member(av, self.other)
        if name == "CATEGORY":
            return _class_member([(op, av)], self.other)
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = av  # twice where it may repeat: "&#x(\w+);" -> "&#xaa;"
            if self.least:
                return "".join(self.seq(sub) for _ in range(min(int(low), 10)))
            if self.alphabet and high > 2 and len(sub) == 1 and sub[0][0].name == "IN":
                text = self.run(sub[0][1])
                if len(text) > 1:
                    return text
            return "".join(self.seq(sub) for _ in range(max(min(2, int(high)), min(int(low), 10))))
        if name == "SUBPATTERN":
            text = self.seq(av[-1])
            if av[0] is not None:
                self.groups[av[0]] = text
            return text
        if name == "BRANCH":
            return self.seq(av[1][-1 if self.last else 0])
        if name == "ASSERT":
            return self.seq(av[1])  # (?<=\d),(?=\d): the digits around the comma
        if name == "GROUPREF":
            return self.groups.get(av, "")
        if name == "ATOMIC_GROUP":
            return self.seq(av)
        return ""  # anchors, negative assertions

    def run(self, items: Any) -> str:
        """A free-text run ``[^/?#]*`` holding the body's own special characters it admits,
        each between two ordinary members: an authority ``a@a:a`` rather than ``aa``."""
        member = _class_member(items)
        admitted = [c for c in self.alphabet if _in_class(c, items)][:4]
        return member + "".join(c + member for c in admitted)


def regex_example(
    pattern: str,
    alphabet: str = "",
    last: bool = False,
    least: bool = False,
    other: bool = False,
) -> str | None:
    """A short string ``pattern`` matches (checked by a search with a deadline), or None;
    with ``alphabet``, its free-text runs hold those characters where they are admitted;
    with ``last``, each alternation takes its last branch (``({{)|(}})|({[:!.}])``); with
    ``least``, each repeat its least: ``(NOT\\s+)?(IN)\\b`` -> ``IN``, the first example
    Hypothesis's ``st.from_regex`` would shrink to (explore/offline/splice.py, #32); with
    ``other``, each class its member of another kind than its first: ``%[0-9A-Fa-f]{2}``
    -> ``%AA`` beside the least ``%00`` (a hex escape's letters, which a decoder or a case
    rule may treat apart from its digits)."""
    parsed = _parse(pattern)
    if parsed is None:
        return None
    try:
        text = _Example(alphabet, last, least, other).seq(getattr(parsed, "data", parsed))
    except (ValueError, TypeError, RecursionError, StopIteration):
        return None
    if not text or len(text) > 60:
        return None
    try:  # the project's pattern may backtrack without bound: on the host, with a deadline
        return text if saferegex.search(pattern, text, timeout=0.2) else None
    except saferegex.RegexError:
        return None


def literal_forms(text: str, name: str) -> list[tuple[str, str]]:
    """Where the code may look for a literal: alone, ending a word, starting one, inside."""
    out = [(text, f"literal_{name}")]
    if not text.strip():  # "\t" checked with `in`: inside a word, not with spaces around
        return [*out, (f"ab{text}cd", f"inside_{name}")]
    if len(text) == 1 and not text.isalnum():  # a delimiter: numbers it separates
        out.append((f"9{text}1{text}3", f"digits_joined_by_{name}"))
    if len(text) == 1 and text.isdigit():  # a digit the code compares: in the tens place too
        out.append((text * 2, f"repeated_{name}"))
    if text.strip() == text and len(text) <= 12:
        out += [(f"word{text}", f"ends_with_{name}"), (f"{text}word", f"starts_with_{name}")]
    out.append((f"Ab{text}cd 9", f"around_{name}"))
    if text.upper() != text:
        out.append((text.upper(), f"upper_{name}"))
    return out


BYTES_FORMS: tuple[tuple[bytes, str], ...] = (
    ("Crème brûlée".encode(), "utf8_bytes"),
    (b"Hello World", "ascii_bytes"),
    (b"", "empty_bytes"),
    (b"caf\xc3\xa9 \xff end", "invalid_utf8_bytes"),
)
