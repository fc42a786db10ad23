"""The keys of the table entries a change edits reach a text function as characters (#32),
through the CLI with real git and real workers on both sides. Fails on the code before it.

- A table split into one module per block of code points, loaded by a computed import
  (``__import__('demo.x%02x' % (cp >> 4))``) and read by position: the edited entry's
  position in the module numbered 0x1f is U+01F3, written nowhere.
- A range table whose lines hold code points (``(0x1E4D0, 'V')``) above ASCII: the number
  of the line the change wrote is tried as a character.
- A range packed in one integer (``(start << 32) | end``): the new range's first code point.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from diffkit import check, functions, git, project, write

SHARDED = """\
def transliterate(text: str) -> str:
    out = []
    for ch in text:
        cp = ord(ch)
        try:
            mod = __import__('demo.x%02x' % (cp >> 4), globals(), locals(), ['data'])
        except ImportError:
            out.append('?')
            continue
        out.append(mod.data[cp % 16] or '')
    return ''.join(out)
"""
TABLE = "data = (\n" + "".join(f"    'c{i}',  # {i:#x}\n" for i in range(16)) + ")\n"
TEST = """\
from demo.core import {name}


def test_{name}():
    assert {name}({arg!r}) == {value!r}
"""


def _witnesses(
    tmp_path: Path,
    name: str,
    files: dict[str, str],
    new: dict[str, str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> dict[str, dict[str, object]]:
    """``demo.core.NAME``'s witnesses by call, once ``new`` is staged over ``files``; it
    must be changed and the check fail."""
    repo = project(tmp_path, files)
    write(repo, new)
    git(repo, "add", "-A")
    rc, report = check(repo, "--staged", capsys=capsys, monkeypatch=monkeypatch)
    f = functions(report).get(f"demo.core.{name}")
    assert f is not None and f["status"] == "changed" and rc == 1, f
    return {w["call"]: w for w in f["witnesses"]}


def test_an_edited_entry_of_a_table_module_loaded_by_a_computed_name_is_tried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "src/demo/core.py": SHARDED,
        "src/demo/x1f.py": TABLE,
        "tests/test_core.py": TEST.format(name="transliterate", arg="\u01f0", value="c0"),
    }
    new = {"src/demo/x1f.py": TABLE.replace("'c3',", "'C3',")}
    calls = _witnesses(tmp_path, "transliterate", files, new, capsys, monkeypatch)
    assert calls["transliterate('\u01f3')"]["new"] == {"returned": "C3"}, list(calls)


RANGES = """\
import bisect

from demo.rangedata import ROWS


def status(text: str) -> str:
    out = ''
    for ch in text:
        row = ROWS[bisect.bisect_right(ROWS, (ord(ch), 'Z')) - 1]
        out += row[1]
    return out
"""
ROWS_OLD = "ROWS = (\n    (0x0, 'X'),\n    (0x1E400, 'V'),\n    (0x1E4C0, 'X'),\n)\n"
ROWS_NEW = "ROWS = (\n    (0x0, 'X'),\n    (0x1E400, 'V'),\n    (0x1E4C0, 'X'),\n    (0x1E4D0, 'V'),\n    (0x1E4FA, 'X'),\n)\n"


def test_a_code_point_on_a_line_the_change_wrote_is_tried_as_a_character(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "src/demo/core.py": RANGES,
        "src/demo/rangedata.py": ROWS_OLD,
        "tests/test_core.py": TEST.format(name="status", arg="a", value="X"),
    }
    new = {"src/demo/rangedata.py": ROWS_NEW}
    calls = _witnesses(tmp_path, "status", files, new, capsys, monkeypatch)
    assert calls[f"status({chr(0x1E4D0)!r})"]["new"] == {"returned": "V"}, list(calls)


PACKED = """\
from demo.packed import VALID


def valid(text: str) -> bool:
    return all(any(r >> 32 <= ord(ch) < r & 0xFFFFFFFF for r in VALID) for ch in text)
"""
PACKED_OLD = "VALID = (\n    0x610000007b,\n    0x3000000030a,\n)\n"
PACKED_NEW = "VALID = (\n    0x610000007b,\n    0x3000000030a,\n    0x1e4d00001e4fa,\n)\n"


def test_a_range_packed_in_one_number_gives_its_first_code_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {
        "src/demo/core.py": PACKED,
        "tests/test_core.py": TEST.format(name="valid", arg="ab", value=True),
    }
    files["src/demo/packed.py"] = PACKED_NEW.replace("    0x1e4d00001e4fa,\n", "")
    new = {"src/demo/packed.py": PACKED_NEW}
    calls = _witnesses(tmp_path, "valid", files, new, capsys, monkeypatch)
    assert calls[f"valid({chr(0x1E4D0)!r})"]["new"] == {"returned": True}, list(calls)
