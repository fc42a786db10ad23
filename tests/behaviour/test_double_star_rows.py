"""A test's ``**kwargs`` built from its row, read as the keywords it holds (#32), through the
CLI with real git and real workers on both sides: ``shelf.pick(items, **kwargs)`` with
``kwargs = {"strict": strict} if strict is not None else {}``, or ``clip(text, **options)``
with a row's mapping, was dropped for its ``**``, and the row that shows the change was never
run (explore/offline/double_star.py). Each fails on the code before it."""

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
