"""Impact: unchanged functions reached by a changed callee, constant or base-class method."""

from __future__ import annotations

import pytest

import codemode.change.diff
import codemode.change.impact


@pytest.fixture(autouse=True, params=["in-process", "helper"])
def words_from(request, monkeypatch):
    """Every test twice: identifiers read here, and by the forked helper (forced on)."""
    if request.param == "helper":
        monkeypatch.setattr(codemode.change.diff, "_HELPER_MIN_CHANGES", 0)
        monkeypatch.setattr(codemode.change.impact, "_HELPER_MIN_MODULES", 0)
        started = []
        real = codemode.change.impact.WordsHelper.start

        def start(*args):
            helper = real(*args)
            started.append(helper)
            return helper

        monkeypatch.setattr(codemode.change.impact.WordsHelper, "start", start)
        yield
        assert started and all(started)  # it ran: fork is available on the test platforms
    else:
        yield


HELPERS = """
    RATE = 0.1


    def helper(x):
        return x + 1


    def unused():
        return "helper is mentioned only in this string"  # and helper in a comment
"""


def project(repo):
    repo.write("src/pkg/__init__.py", "")
    repo.write("src/pkg/a.py", HELPERS)
    repo.write(
        "src/pkg/b.py",
        """
        from pkg.a import helper as h
        from . import a
        import pkg.a


        def via_alias(x):
            return h(x)


        def via_module(x):
            return a.helper(x) + pkg.a.helper(x)


        def reads_rate(x):
            return x * a.RATE


        def top(x):
            return via_alias(x)


        def topper(x):
            return top(x)


        def unrelated(helper):
            return 1
        """,
    )
    return repo.commit()


def test_callee_edit_impacts_callers_with_the_linking_path(repo):
    base = project(repo)
    repo.write("src/pkg/a.py", HELPERS.replace("x + 1", "x + 2"))
    repo.commit()
    result = repo.range(base)
    assert repo.statuses(result) == {
        "pkg.a.helper": "modified",
        "pkg.b.via_alias": "impacted",
        "pkg.b.via_module": "impacted",
        "pkg.b.top": "impacted",
        "pkg.b.topper": "impacted",
    }
    topper = repo.by_id(result)["pkg.b.topper"]
    assert topper.impacted_by == ("pkg.a.helper",)
    assert topper.via == ("pkg.a.helper", "pkg.b.via_alias", "pkg.b.top", "pkg.b.topper")
    assert (topper.lineno, topper.end_lineno) == (22, 23)
    assert topper.changed_lines == ()


WIDER = """
    from pkg.b import top


    def left(x):
        return top(x)


    def right(x):
        return top(x)
"""


def test_impact_depth_bounds_the_chain(repo):
    """The depth counts the levels where the scope widens: ``helper`` has two public callers
    (a level), ``via_alias`` one (``top``: a free step), ``top`` three (a level)."""
    repo.write("src/pkg/d.py", WIDER)
    base = project(repo)
    repo.write("src/pkg/a.py", HELPERS.replace("x + 1", "x + 2"))
    repo.commit()
    assert set(repo.statuses(repo.range(base, impact_depth=1))) == {
        "pkg.a.helper",
        "pkg.b.via_alias",
        "pkg.b.via_module",
        "pkg.b.top",
    }
    assert set(repo.statuses(repo.range(base, impact_depth=2))) == {
        "pkg.a.helper",
        "pkg.b.via_alias",
        "pkg.b.via_module",
        "pkg.b.top",
        "pkg.b.topper",
        "pkg.d.left",
        "pkg.d.right",
    }
    assert set(repo.statuses(repo.range(base, impact_depth=0))) == {"pkg.a.helper"}


def test_a_chain_of_sole_public_callers_is_followed_past_the_depth(repo):
    """``l1 -> l2 -> l3 -> l4 -> l5``: each the only caller of the next, so the chain adds one
    function a step and the depth does not stop it (#32)."""
    chain = "".join(f"\n\ndef l{i}(x):\n    return l{i + 1}(x)\n" for i in range(1, 5))
    repo.write("src/pkg/__init__.py", "")
    repo.write("src/pkg/e.py", chain + "\n\ndef l5(x):\n    return x + 1\n")
    base = repo.commit()
    repo.write("src/pkg/e.py", chain + "\n\ndef l5(x):\n    return x + 2\n")
    repo.commit()
    result = repo.range(base, impact_depth=1)
    assert repo.by_id(result)["pkg.e.l1"].via == tuple(f"pkg.e.l{i}" for i in range(5, 0, -1))


PRIVATE_CHAIN = """
    def _leaf(x):
        return x + 1


    def _mid(x):
        return _leaf(x)


    class Parser:
        def _inner(self, x):
            return _mid(x)

        def parse(self, x):
            return self._inner(x)


    def api(x):
        return Parser().parse(x)


    def outer(x):
        return api(x)


    def also(x):
        return api(x) * 2


    def top(x):
        return outer(x)


    def top2(x):
        return outer(x) - 1
"""


def test_impact_depth_counts_public_callers_only(repo):
    """A library's public function often reaches its change through a chain of private
    helpers: they are steps the depth does not count (#32)."""
    repo.write("src/pkg/__init__.py", "")
    repo.write("src/pkg/c.py", PRIVATE_CHAIN)
    base = repo.commit()
    repo.write("src/pkg/c.py", PRIVATE_CHAIN.replace("x + 1", "x + 2"))
    repo.commit()
    result = repo.range(base, impact_depth=1)
    assert repo.statuses(result) == {
        "pkg.c._leaf": "modified",
        "pkg.c._mid": "impacted",
        "pkg.c.Parser._inner": "impacted",
        "pkg.c.Parser.parse": "impacted",
        "pkg.c.api": "impacted",
        "pkg.c.outer": "impacted",
        "pkg.c.also": "impacted",
    }
    assert repo.by_id(result)["pkg.c.api"].via[-2:] == ("pkg.c.Parser.parse", "pkg.c.api")
    assert "pkg.c.top" in repo.statuses(repo.range(base, impact_depth=2))


def test_constant_edit_impacts_its_readers(repo):
    base = project(repo)
    repo.write("src/pkg/a.py", HELPERS.replace("RATE = 0.1", "RATE = 0.2"))
    repo.commit()
    result = repo.range(base)
    assert repo.statuses(result) == {"pkg.b.reads_rate": "impacted"}
    assert repo.by_id(result)["pkg.b.reads_rate"].impacted_by == ("pkg.a.RATE",)


def test_removed_callee_impacts_its_callers(repo):
    base = project(repo)
    repo.write("src/pkg/a.py", "RATE = 0.1\n")
    repo.commit()
    statuses = repo.statuses(repo.range(base))
    assert statuses["pkg.a.helper"] == "removed"
    assert statuses["pkg.b.via_alias"] == "impacted"


def test_base_class_method_edit_impacts_subclass_users(repo):
    repo.write(
        "src/pkg/base.py",
        """
        class Base:
            def greet(self):
                return "hi"

            def __init__(self):
                self.n = 0
        """,
    )
    repo.write(
        "src/pkg/child.py",
        """
        from pkg.base import Base


        class Child(Base):
            def hello(self):
                return self.greet() + "!"

            def greet(self):
                return super().greet().upper()


        class Grandchild(Child):
            def shout(self):
                return self.hello()


        def make():
            return Base()
        """,
    )
    base = repo.commit()
    repo.write(
        "src/pkg/base.py", (repo.root / "src/pkg/base.py").read_text().replace('"hi"', '"hey"')
    )
    repo.commit()
    result = repo.range(base)
    assert repo.statuses(result) == {
        "pkg.base.Base.greet": "modified",
        "pkg.child.Child.greet": "impacted",  # super().greet()
        "pkg.child.Child.hello": "impacted",  # self.greet() -> Child.greet -> Base.greet
        "pkg.child.Grandchild.shout": "impacted",
    }
    # a constructor edit reaches whoever calls the class
    repo.write("src/pkg/base.py", (repo.root / "src/pkg/base.py").read_text().replace("= 0", "= 1"))
    head = repo.commit()
    assert repo.statuses(repo.range(f"{head}~1")) == {
        "pkg.base.Base.__init__": "modified",
        "pkg.child.make": "impacted",
    }


def test_same_module_and_nested_and_lazy_import_callers(repo):
    repo.write(
        "src/pkg/m.py",
        """
        def leaf():
            return 1


        def outer():
            def inner():
                return leaf()
            return inner()


        def lazy():
            from pkg.other import far
            return far()
        """,
    )
    repo.write("src/pkg/other.py", "def far():\n    return 1\n")
    base = repo.commit()
    repo.write("src/pkg/other.py", "def far():\n    return 2\n")
    m = (repo.root / "src/pkg/m.py").read_text()
    repo.write("src/pkg/m.py", m.replace("return 1", "return 3", 1))
    repo.commit()
    assert repo.statuses(repo.range(base)) == {
        "pkg.m.leaf": "modified",
        "pkg.m.outer": "impacted",  # through its nested inner, which is part of it
        "pkg.m.lazy": "impacted",
        "pkg.other.far": "modified",
    }


def test_star_import_and_reexport_from_a_package(repo):
    repo.write("src/pkg/__init__.py", "from pkg.core import compute\n")
    repo.write("src/pkg/core.py", "def compute():\n    return 1\n")
    repo.write("src/app/use.py", "from pkg import compute\n\ndef run():\n    return compute()\n")
    repo.write("src/app/star.py", "from pkg.core import *\n\ndef go():\n    return compute()\n")
    base = repo.commit()
    repo.write("src/pkg/core.py", "def compute():\n    return 2\n")
    repo.commit()
    assert repo.statuses(repo.range(base)) == {
        "pkg.core.compute": "modified",
        "app.use.run": "impacted",
        "app.star.go": "impacted",
    }


def test_a_method_reaches_subclasses_in_other_modules_but_not_namesakes(repo):
    repo.write("src/pkg/base.py", "class Base:\n    def run(self):\n        return 1\n")
    repo.write(
        "src/pkg/child.py",
        "from pkg.base import Base\n\n\nclass Child(Base):\n    def go(self):\n"
        "        return self.run()\n",
    )
    repo.write(
        "src/pkg/grand.py",  # names Child, not Base: found through the class family
        "from pkg.child import Child\n\n\nclass Grand(Child):\n    def again(self):\n"
        "        return self.run()\n",
    )
    repo.write(
        "src/pkg/other.py",  # a namesake method in an unrelated class
        "class Other:\n    def run(self):\n        return 2\n\n    def use(self):\n"
        "        return self.run()\n",
    )
    base = repo.commit()
    repo.write("src/pkg/base.py", "class Base:\n    def run(self):\n        return 3\n")
    repo.commit()
    assert repo.statuses(repo.range(base)) == {
        "pkg.base.Base.run": "modified",
        "pkg.child.Child.go": "impacted",
        "pkg.grand.Grand.again": "impacted",
    }


CONVERTER = """
    class Converter:
        def __init__(self, **options):
            self.options = options
            self.handlers = {"b": self.bold}

        def convert(self, text):
            return self.process(text)

        def process(self, text):
            tag, _, body = text.partition(":")
            return getattr(self, "convert_" + tag)(body)

        def convert_hn(self, body):
            return "# " + body

        def convert_p(self, body):
            return body

        def apply(self, key, body):
            return self.handlers[key](body)

        def bold(self, body):
            return "**" + body + "**"
    """
USERS = """
    from pkg.conv import Converter


    def markdownify(text, **options):
        return Converter(**options).convert(text)


    def twice(text):
        c = Converter()
        return c.convert(text) + c.convert(text)


    def handed(c: Converter, text):
        return c.convert(text)


    def unrelated(text):
        return text.convert()
    """


def test_methods_of_instances_a_function_builds_and_dispatch_tables_are_followed(repo):
    # #32: a public function reaching a changed method through an object it builds, and a
    # class whose methods are picked by getattr or a table.
    repo.write("src/pkg/conv.py", CONVERTER)
    repo.write("src/pkg/use.py", USERS)
    base = repo.commit()
    conv = (repo.root / "src/pkg/conv.py").read_text()
    repo.write("src/pkg/conv.py", conv.replace('"# " + body', '"## " + body'))
    repo.commit()
    result = repo.range(base)
    assert repo.statuses(result) == {
        "pkg.conv.Converter.convert_hn": "modified",
        "pkg.conv.Converter.process": "impacted",  # getattr(self, "convert_" + tag)
        "pkg.conv.Converter.apply": "impacted",  # self.handlers[key](...)
        "pkg.conv.Converter.convert": "impacted",
        "pkg.use.markdownify": "impacted",  # Converter(**options).convert(...)
        "pkg.use.twice": "impacted",  # c = Converter(); c.convert(...)
        "pkg.use.handed": "impacted",  # c: Converter
    }
    assert repo.by_id(result)["pkg.use.markdownify"].via == (
        "pkg.conv.Converter.convert_hn",
        "pkg.conv.Converter.process",
        "pkg.conv.Converter.convert",
        "pkg.use.markdownify",
    )


def test_partials_hand_applied_decorators_and_decorated_functions_reach_the_change(repo):
    repo.write(
        "src/pkg/core.py",
        "def parse(text, lang):\n    return (text, lang)\n\n\ndef cached(fn):\n    return fn\n",
    )
    repo.write(
        "src/pkg/api.py",
        """
        import functools

        from pkg.core import cached, parse

        parse_en = functools.partial(parse, lang="en")
        fast = cached(parse)
        UNRELATED = 3


        def english(text):
            return parse_en(text)


        def quick(text):
            return fast(text, "de")


        @cached
        def decorated(text):
            return text


        def plain(text):
            return UNRELATED
        """,
    )
    base = repo.commit()
    repo.write(
        "src/pkg/core.py",
        "def parse(text, lang):\n    return [text, lang]\n\n\ndef cached(fn):\n    return fn\n",
    )
    repo.commit()
    result = repo.range(base)
    assert repo.statuses(result) == {
        "pkg.core.parse": "modified",
        "pkg.api.english": "impacted",  # through parse_en, a partial: no function of its own
        "pkg.api.quick": "impacted",  # through fast = cached(parse)
    }
    assert repo.by_id(result)["pkg.api.english"].via == (
        "pkg.core.parse",
        "pkg.api.parse_en",
        "pkg.api.english",
    )
    repo.write(
        "src/pkg/core.py",
        "def parse(text, lang):\n    return [text, lang]\n\n\n"
        "def cached(fn):\n    return functools.cache(fn)\n",
    )
    head = repo.commit()
    statuses = repo.statuses(repo.range(f"{head}~1"))
    assert statuses["pkg.api.decorated"] == "impacted"  # @cached changed
    assert statuses["pkg.api.quick"] == "impacted"


FACTORIES = """
    from pkg.conv import Converter


    def make(**options) -> Converter:
        return Converter(**options)


    def build():
        return Converter()


    class Fancy(Converter):
        def render(self, tag, body):
            return getattr(self, "convert_" + tag)(body)

        def table(self):
            return {}


    class Page:
        def __init__(self):
            self.conv = Converter()

        def show(self, text):
            return self.conv.convert(text)


    class Plain:
        def show(self, text):
            return self.other.convert(text)
    """
FACTORY_USERS = """
    from pkg.more import build, make


    def via_make(text):
        c = make()
        return c.convert(text)


    def via_build(text):
        return build().convert(text)


    def unrelated(thing, text):
        return thing.convert(text)
    """


def test_instances_from_factories_attributes_and_subclass_dispatchers_are_followed(repo):
    # #32: an instance another call returns (`c = make(); c.convert()`), one the class keeps
    # in an attribute (`self.conv = Converter()`), and a subclass that dispatches by table.
    repo.write("src/pkg/conv.py", CONVERTER)
    repo.write("src/pkg/more.py", FACTORIES)
    repo.write("src/pkg/users.py", FACTORY_USERS)
    base = repo.commit()
    conv = (repo.root / "src/pkg/conv.py").read_text()
    repo.write("src/pkg/conv.py", conv.replace('"# " + body', '"## " + body'))
    repo.commit()
    statuses = repo.statuses(repo.range(base))
    for fid in (
        "pkg.users.via_make",  # make() -> Converter
        "pkg.users.via_build",  # build() returns Converter()
        "pkg.more.Page.show",  # self.conv = Converter()
        "pkg.more.Fancy.render",  # a subclass's table dispatch reaches the base's method
    ):
        assert statuses.get(fid) == "impacted", (fid, statuses)
    for fid in ("pkg.users.unrelated", "pkg.more.Plain.show", "pkg.more.Fancy.table"):
        assert fid not in statuses, (fid, statuses)
