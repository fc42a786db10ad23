"""A small project of admission rules, shared by the tests of what a change reaches through
the state an instance was built with (#32): a base class whose constructor stores what a
subclass's override builds (``self.bound = self._compile(text)``), public methods that consult
it later, a subclass in another module, one that inherits its override, and a sibling that
overrides it. ``src/pkg/rules.py`` and ``src/pkg/plain.py`` of a package named as asked."""

from __future__ import annotations

RULES = """\
class Bound:
    def __init__(self, op, limit):
        self.op = op
        self.limit = limit

    def admits(self, n):
        if self.op == "<":
            return n < self.limit
        if self.op == ">":
            return n > self.limit
        return n == self.limit


class Rule:
    def __init__(self, text):
        self.text = text
        self.bound = self._compile(text)
        self.size = len(self.text)

    def _compile(self, text):
        raise NotImplementedError

    def admits(self, n):
        return self.bound.admits(n)

    def keep(self, numbers):
        return [n for n in numbers if self.admits(n)]

    def describe(self):
        return describe(self)

    def length(self):
        return self.size

    def label(self, n):
        return f"rule for {n}"


def describe(rule):
    return rule.text


class SpanRule(Rule):
    def _compile(self, text):
        low, _, high = text.partition("..")
        return Bound(">", int(low) - 1), Bound("<", int(high) + 1)

    def admits(self, n):
        return all(b.admits(n) for b in self.bound)

    def width(self):
        low, high = self.bound
        return high.limit - low.limit - 1
"""
PLAIN = """\
from PKG.rules import Bound, Rule, SpanRule


def _bound(text):
    op = text[0] if text[0] in "<>" else "="
    return Bound(op, int(text.lstrip("<>=")))


class PlainRule(Rule):
    def _compile(self, text):
        return _bound(text.strip())


class StrictRule(PlainRule):
    def strict(self, n):
        return self.bound.limit > 0 and self.admits(n)


def plain(text):
    return PlainRule(text)


def span(text):
    return SpanRule(text)
"""
# what a new release's override builds: "<=5" was "<5", it admits 5 now
AT_MOST = """\
    def _compile(self, text):
        text = text.strip()
        if text.startswith("<="):
            return Bound("<", int(text[2:]) + 1)
        return _bound(text)
"""


def sources(package: str, at_most: bool = False) -> dict[str, str]:
    """The two modules under ``src/<package>/``; ``at_most``: with the new override."""
    plain = PLAIN.replace("PKG", package)
    if at_most:
        start = plain.index("    def _compile")
        plain = plain[:start] + AT_MOST + plain[plain.index("\n\nclass StrictRule") :]
    return {f"src/{package}/rules.py": RULES, f"src/{package}/plain.py": plain}
