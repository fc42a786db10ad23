"""Impact through the state an instance holds (#32): what its construction, or another of its
methods, set from the changed code; and the class of what a base stores from a call its
subclasses override."""

from __future__ import annotations

BASE = """
    class Bound:
        def __init__(self, op, limit):
            self.op = op
            self.limit = limit

        def admits(self, n):
            return n < self.limit if self.op == "<" else n == self.limit


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
            return Bound("<", int(text.partition("..")[2]) + 1)

        def width(self):
            return self.bound.limit
"""
PLAIN = """
    from pkg.base import Bound, Rule


    def _bound(text):
        return Bound(text[0] if text[0] == "<" else "=", int(text.lstrip("<=")))


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


def _project(repo):
    repo.write("src/pkg/__init__.py", "")
    repo.write("src/pkg/base.py", BASE)
    repo.write("src/pkg/plain.py", PLAIN.replace("Bound, Rule", "Bound, Rule, SpanRule"))
    return repo.commit()


def test_an_override_the_base_constructor_calls_reaches_what_reads_what_it_built(repo):
    base = _project(repo)
    plain = (repo.root / "src/pkg/plain.py").read_text()
    repo.write("src/pkg/plain.py", plain.replace("text.strip()", "text.strip().lower()"))
    repo.commit()
    result = repo.range(base)
    statuses = repo.statuses(result)
    by_id = repo.by_id(result)
    building = "pkg.plain.PlainRule._compile (building PlainRule)"
    assert by_id["pkg.base.Rule.admits"].via == (building, "pkg.base.Rule.admits")
    assert by_id["pkg.base.Rule.describe"].via == (building, "pkg.base.Rule.describe")  # self
    # a subclass that inherits the override is built the same way; a caller building one
    assert by_id["pkg.plain.StrictRule.strict"].via[0] == (
        "pkg.plain.PlainRule._compile (building StrictRule)"
    )
    assert statuses.get("pkg.plain.plain") == "impacted", statuses
    for fid in ("pkg.base.Rule.keep", "pkg.base.Rule.admits"):
        assert statuses.get(fid) == "impacted", (fid, statuses)
    # the sibling overrides _compile; length and label read nothing _compile decides; the
    # base's constructor runs the override only on the subclass's instances
    for fid in (
        "pkg.base.SpanRule.width",
        "pkg.plain.span",
        "pkg.base.Rule.length",
        "pkg.base.Rule.label",
        "pkg.base.Rule.__init__",
    ):
        assert fid not in statuses, (fid, statuses)


def test_a_constructor_edit_reaches_the_readers_of_what_it_sets(repo):
    base = _project(repo)
    text = (repo.root / "src/pkg/base.py").read_text()
    repo.write("src/pkg/base.py", text.replace("len(self.text)", "len(self.text) + 1"))
    repo.commit()
    result = repo.range(base)
    by_id = repo.by_id(result)
    assert by_id["pkg.base.Rule.length"].via == ("pkg.base.Rule.__init__", "pkg.base.Rule.length")
    assert by_id["pkg.base.SpanRule.width"].via[0] == ("pkg.base.Rule.__init__ (building SpanRule)")
    assert "pkg.base.Rule.label" not in repo.statuses(result)


def test_the_class_a_base_stores_from_a_subclass_override_is_followed(repo):
    """``self.bound = self._compile(text)`` in the base: each subclass's override returns what
    ``_bound`` returns, a ``Bound``, so ``self.bound.admits(n)`` reaches ``Bound.admits``."""
    base = _project(repo)
    text = (repo.root / "src/pkg/base.py").read_text()
    repo.write("src/pkg/base.py", text.replace("n == self.limit", "n <= self.limit"))
    repo.commit()
    by_id = repo.by_id(repo.range(base))
    assert by_id["pkg.base.Rule.admits"].via == ("pkg.base.Bound.admits", "pkg.base.Rule.admits")


COMPILED = """
    class Query:
        def __init__(self, text):
            self.text = text
            self.tree = None

        def compile(self):
            self.tree = self.text.split()
            return self

        def run(self, words):
            return [w for w in words if w in self.tree]

        def source(self):
            return self.text
"""


def test_an_attribute_a_changed_method_sets_reaches_its_readers(repo):
    """``compile()`` sets ``self.tree`` after construction: ``run`` reads it. ``__init__``
    writes ``self.tree = None``, and so reaches the change through the attribute, but what
    it sets otherwise (``self.text``) does not depend on it: ``source`` stays out."""
    repo.write("src/pkg/__init__.py", "")
    repo.write("src/pkg/query.py", COMPILED)
    base = repo.commit()
    repo.write("src/pkg/query.py", COMPILED.replace("text.split()", "text.lower().split()"))
    repo.commit()
    result = repo.range(base)
    assert repo.by_id(result)["pkg.query.Query.run"].via == (
        "pkg.query.Query.compile (stored in self.tree)",
        "pkg.query.Query.run",
    )
    assert "pkg.query.Query.source" not in repo.statuses(result)
