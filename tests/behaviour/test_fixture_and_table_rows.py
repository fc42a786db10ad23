"""Inputs a test takes from a ``conftest.py`` fixture (#32), through the CLI with real git and
real workers on both sides: ``def test_count(doc)`` with ``doc`` built by a fixture of
tests/conftest.py was dropped ("a name the test file binds no value to"), and a method
called on a conftest fixture's instance was never harvested, so the row that shows the change
never ran (explore/offline/conftest_names.py). Nor were the values of a parametrized fixture
(``params=[...]``, ``request.param``), in the file or a conftest (explore/offline/
param_rows.py), nor the rows of a ``parametrize`` on the test's class or one written with
``argnames=``/``argvalues=``, nor a fixture that assigns names before it returns. Each fails
on the code before it."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import witness_calls

DOCS = """\
class Doc:
    def __init__(self, text):
        self.parts = text.split(",")


def count(doc):
    return len([p for p in doc.parts if p])
"""
# a part of blanks is no part now
DOCS_NEW = DOCS.replace("if p]", "if p.strip()]")
DOC_FIXTURE = """\
import pytest
from demo.docs import Doc

SAMPLE = "a, ,b"


@pytest.fixture
def doc():
    return Doc(SAMPLE)
"""

SPEC = """\
class Spec:
    def __init__(self, patterns):
        self.patterns = list(patterns)

    def match(self, name):
        return any(name.endswith(p.lstrip("*")) for p in self.patterns)
"""
# a pattern with a folder is matched by its two ends now
SPEC_NEW = SPEC.replace(
    'return any(name.endswith(p.lstrip("*")) for p in self.patterns)',
    "return any(_ends(name, p) for p in self.patterns)\n\n\n"
    "def _ends(name, p):\n"
    '    head, _, tail = p.rpartition("*")\n'
    '    return name.startswith(head) and name.endswith(tail) if "/" in head else name.endswith(tail)',
)
SPEC_FIXTURE = """\
import pytest
from demo.spec import Spec


@pytest.fixture
def spec():
    yield Spec(["*.py", "docs/*.md"])
"""

WIDTH = """\
def width(text):
    return len(text)
"""
# a tab counts to the next stop of four now
WIDTH_NEW = WIDTH.replace("len(text)", "len(text.expandtabs(4))")
WIDTH_FIXTURE = """\
import pytest


@pytest.fixture(params=["ab", pytest.param("a\\tb", id="tab")])
def text(request):
    return request.param
"""
WIDTH_TEST = "from demo.w import width\n\n\ndef test_width(text):\n    assert width(text) >= 2\n"

CASES = {
    # an argument the conftest's fixture builds, with the conftest's import and constant
    "argument": (
        {
            "src/demo/docs.py": DOCS,
            "tests/conftest.py": DOC_FIXTURE,
            "tests/unit/test_docs.py": "from demo.docs import count\n\n\n"
            "def test_count(doc):\n    assert count(doc) == 3\n",
        },
        {"src/demo/docs.py": DOCS_NEW},
        "demo.docs.count",
        "count(Doc('a, ,b'))",
    ),
    # a fixture of the test file that assigns names before it yields (its teardown after)
    "assigning_fixture": (
        {
            "src/demo/docs.py": DOCS,
            "tests/test_docs.py": "import pytest\nfrom demo.docs import Doc, count\n\n\n"
            "@pytest.fixture\ndef doc():\n    text = 'a, '\n    text = text + ',b'\n"
            "    yield Doc(text)\n    print('done')\n\n\n"
            "def test_count(doc):\n    assert count(doc) == 3\n",
        },
        {"src/demo/docs.py": DOCS_NEW},
        "demo.docs.count",
        "count(Doc('a, ' + ',b'))",
    ),
    # the instance a method is called on
    "instance": (
        {
            "src/demo/spec.py": SPEC,
            "tests/conftest.py": SPEC_FIXTURE,
            "tests/test_spec.py": "def test_match(spec):\n"
            "    assert spec.match('a/b.py')\n    assert spec.match('docs/x/readme.md')\n",
        },
        {"src/demo/spec.py": SPEC_NEW},
        "demo.spec.Spec.match",
        "Spec(['*.py', 'docs/*.md']).match('docs/x/readme.md')",
    ),
    # a parametrized fixture's values, in a conftest
    "params": (
        {"src/demo/w.py": WIDTH, "tests/conftest.py": WIDTH_FIXTURE, "tests/test_w.py": WIDTH_TEST},
        {"src/demo/w.py": WIDTH_NEW},
        "demo.w.width",
        "width('a\\tb')",
    ),
    # and in the test file
    "params_in_file": (
        {"src/demo/w.py": WIDTH, "tests/test_w.py": WIDTH_FIXTURE + "\n\n" + WIDTH_TEST},
        {"src/demo/w.py": WIDTH_NEW},
        "demo.w.width",
        "width('a\\tb')",
    ),
    # a parametrize on the test's class
    "class_table": (
        {
            "src/demo/w.py": WIDTH,
            "tests/test_w.py": "import pytest\nfrom demo.w import width\n\n\n"
            "@pytest.mark.parametrize('text', ['ab', 'a\\tb'])\nclass TestWidth:\n"
            "    def test_width(self, text):\n        assert width(text) >= 2\n",
        },
        {"src/demo/w.py": WIDTH_NEW},
        "demo.w.width",
        "width('a\\tb')",
    ),
    # a parametrize written with keywords
    "keyword_table": (
        {
            "src/demo/w.py": WIDTH,
            "tests/test_w.py": "import pytest\nfrom demo.w import width\n\n\n"
            "@pytest.mark.parametrize(argnames='text', argvalues=['ab', 'a\\tb'])\n"
            "def test_width(text):\n    assert width(text) >= 2\n",
        },
        {"src/demo/w.py": WIDTH_NEW},
        "demo.w.width",
        "width('a\\tb')",
    ),
}


@pytest.mark.parametrize("kind", list(CASES))
def test_an_input_a_fixture_or_table_gives_reaches_the_diff(
    kind: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old, new, fid, call = CASES[kind]
    calls = witness_calls(tmp_path, old, new, fid, capsys, monkeypatch)
    assert call in calls, calls
