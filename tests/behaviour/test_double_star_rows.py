"""A test's ``**kwargs`` built from its row, read as the keywords it holds (#32), through the
CLI with real git and real workers on both sides: ``shelf.pick(items, **kwargs)`` with
``kwargs = {"strict": strict} if strict is not None else {}``, or ``clip(text, **options)``
with a row's mapping, was dropped for its ``**``, and the row that shows the change was never
run (explore/offline/double_star.py). So was a ``*args``: ``lookup(*case)`` with a row's tuple
of arguments, or a tuple the test assigns. Each fails on the code before it."""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import witness_calls

SHELF = """\
class Shelf:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def pick(self, items: list[str], strict: bool = False) -> list[str]:
        out = [i for i in items if i.startswith(self.prefix)]
        return out
"""
# strict leaves out the item that is the prefix itself
SHELF_NEW = SHELF.replace(
    "        return out\n",
    "        if strict:\n            out = [i for i in out if i != self.prefix]\n        return out\n",
)
SHELF_TEST = """\
import pytest

from demo.shelf import Shelf


@pytest.mark.parametrize(
    ("items", "strict", "expected"),
    [
        (["shoe", "shoelace", "hat"], None, ["shoe", "shoelace"]),
        (["shoe", "shoelace"], True, ["shoelace"]),
    ],
)
def test_pick(items, strict, expected):
    shelf = Shelf("shoe")
    kwargs = {"strict": strict} if strict is not None else {}
    assert shelf.pick(items, **kwargs) == expected
"""


CLIP = """\
def clip(text: str, width: int = 10, keep: str = "") -> str:
    return text[:width]
"""
# the row's option, never written in the code: what the text keeps past its width
CLIP_NEW = CLIP.replace(
    "    return text[:width]\n",
    "    return text[:width] + text[width:].count(keep) * keep if keep else text[:width]\n",
)
CLIP_TEST = """\
import pytest

from demo.clip import clip


@pytest.mark.parametrize(
    ("text", "options", "expected"),
    [("hello world", {"width": 5}, "hello"), ("ha ha ha", {"width": 2, "keep": " ha"}, "ha ha ha")],
)
def test_clip(text, options, expected):
    assert clip(text, **options) == expected
"""


LOOKUP = """\
def lookup(data: list, index: str) -> object:
    i = int(index)
    return data[i] if 0 <= i < len(data) else None
"""
# a negative index counts from the end now
LOOKUP_NEW = LOOKUP.replace("0 <= i < len(data)", "-len(data) <= i < len(data)")
LOOKUP_TEST = """\
import pytest

from demo.lookup import lookup


@pytest.mark.parametrize("case,expected", [(([1, 2], "0"), 1), (([1, 2, 3], "-1"), 3)])
def test_lookup(case, expected):
    assert lookup(*case) == expected
"""
LOOKUP_ASSIGNED = """\
from demo.lookup import lookup


def test_lookup_first():
    args = (["a", "b"], "-2")
    assert lookup(*args) == "a"
"""


# (the project's files, their edit, the function, the witness call only the row makes)
ROWS = {
    # a dict the test builds from the row, under a condition the row decides
    "conditional_dict": (
        {"src/demo/shelf.py": SHELF, "tests/test_shelf.py": SHELF_TEST},
        {"src/demo/shelf.py": SHELF_NEW},
        "demo.shelf.Shelf.pick",
        "Shelf('shoe').pick(['shoe', 'shoelace'], strict=True)",
    ),
    # the row's own mapping
    "row_mapping": (
        {"src/demo/clip.py": CLIP, "tests/test_clip.py": CLIP_TEST},
        {"src/demo/clip.py": CLIP_NEW},
        "demo.clip.clip",
        "clip('ha ha ha', width=2, keep=' ha')",
    ),
    # a row's tuple of arguments passed with one star
    "row_tuple": (
        {"src/demo/lookup.py": LOOKUP, "tests/test_lookup.py": LOOKUP_TEST},
        {"src/demo/lookup.py": LOOKUP_NEW},
        "demo.lookup.lookup",
        "lookup([1, 2, 3], '-1')",
    ),
    # a tuple the test assigns
    "assigned_tuple": (
        {"src/demo/lookup.py": LOOKUP, "tests/test_lookup.py": LOOKUP_ASSIGNED},
        {"src/demo/lookup.py": LOOKUP_NEW},
        "demo.lookup.lookup",
        "lookup(['a', 'b'], '-2')",
    ),
}


@pytest.mark.parametrize("kind", list(ROWS))
def test_a_rows_keywords_passed_with_double_star_are_read(
    kind: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old, new, fid, call = ROWS[kind]
    calls = witness_calls(tmp_path, old, new, fid, capsys, monkeypatch)
    assert call in calls, calls
