"""Impact through the state an instance holds (#32): what its construction, or another of its
methods, set from the changed code; and the class of what a base stores from a call its
subclasses override."""

from __future__ import annotations

from rulekit import sources


def _project(repo):
    repo.write("src/pkg/__init__.py", "")
    for rel, text in sources("pkg").items():
        repo.write(rel, text)
    return repo.commit()


def _edited(repo, rel, old, new):
    """The analysis of one edit of ``rel`` (``old`` -> ``new``) on the rules project."""
    base = _project(repo)
    text = (repo.root / rel).read_text()
    assert text.count(old) == 1, old
    repo.write(rel, text.replace(old, new))
    repo.commit()
    return repo.range(base)


def test_an_override_the_base_constructor_calls_reaches_what_reads_what_it_built(repo):
    result = _edited(repo, "src/pkg/plain.py", "text.strip()", "text.strip().lower()")
    statuses = repo.statuses(result)
    by_id = repo.by_id(result)
    building = "pkg.plain.PlainRule._compile (building PlainRule)"
    assert by_id["pkg.rules.Rule.admits"].via == (building, "pkg.rules.Rule.admits")
    assert by_id["pkg.rules.Rule.describe"].via == (building, "pkg.rules.Rule.describe")  # self
    # a subclass that inherits the override is built the same way; a caller building one
    assert by_id["pkg.plain.StrictRule.strict"].via[0] == (
        "pkg.plain.PlainRule._compile (building StrictRule)"
    )
    assert statuses.get("pkg.plain.plain") == "impacted", statuses
    for fid in ("pkg.rules.Rule.keep", "pkg.rules.Rule.admits"):
        assert statuses.get(fid) == "impacted", (fid, statuses)
    # the sibling overrides _compile; length and label read nothing _compile decides; the
    # base's constructor runs the override only on the subclass's instances
    for fid in (
        "pkg.rules.SpanRule.width",
        "pkg.plain.span",
        "pkg.rules.Rule.length",
        "pkg.rules.Rule.label",
        "pkg.rules.Rule.__init__",
    ):
        assert fid not in statuses, (fid, statuses)


def test_a_constructor_edit_reaches_the_readers_of_what_it_sets(repo):
    result = _edited(repo, "src/pkg/rules.py", "len(self.text)", "len(self.text) + 1")
    by_id = repo.by_id(result)
    assert by_id["pkg.rules.Rule.length"].via == (
        "pkg.rules.Rule.__init__",
        "pkg.rules.Rule.length",
    )
    assert by_id["pkg.rules.SpanRule.width"].via[0] == (
        "pkg.rules.Rule.__init__ (building SpanRule)"
    )
    assert "pkg.rules.Rule.label" not in repo.statuses(result)


def test_the_class_a_base_stores_from_a_subclass_override_is_followed(repo):
    """``self.bound = self._compile(text)`` in the base: each subclass's override returns what
    ``_bound`` returns, a ``Bound``, so ``self.bound.admits(n)`` reaches ``Bound.admits``."""
    result = _edited(repo, "src/pkg/rules.py", "n == self.limit", "n <= self.limit")
    by_id = repo.by_id(result)
    assert by_id["pkg.rules.Rule.admits"].via == ("pkg.rules.Bound.admits", "pkg.rules.Rule.admits")


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


NESTED = """
    class Below:
        def __init__(self, limit):
            self.limit = limit

        def match(self, n):
            return n < self.limit


    class Base:
        def __init__(self, text):
            self.clause = self._parse(text)

        def _parse(self, text):
            raise NotImplementedError

        def match(self, n):
            return self.clause.match(n)


    class Simple(Base):
        class Parser:
            @classmethod
            def parse(cls, text):
                return Below(int(text.lstrip("<")))

        def _parse(self, text):
            return self.Parser.parse(text)
"""


def test_what_a_nested_parser_of_a_subclass_builds_is_followed_to_its_methods(repo):
    """``self.clause`` holds what ``Simple.Parser.parse`` returns, through the override of
    ``_parse``: a change to ``Below.match`` reaches ``Base.match``."""
    repo.write("src/pkg/__init__.py", "")
    repo.write("src/pkg/spec.py", NESTED)
    base = repo.commit()
    repo.write("src/pkg/spec.py", NESTED.replace("n < self.limit", "n <= self.limit"))
    repo.commit()
    assert repo.by_id(repo.range(base))["pkg.spec.Base.match"].via == (
        "pkg.spec.Below.match",
        "pkg.spec.Base.match",
    )
