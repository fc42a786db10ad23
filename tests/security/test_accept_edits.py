"""``accept`` edits text in place (#21): anchors refused clearly, comments and line endings
kept, ``raises:`` only for a real exception, a case reached in any of the function's spec
files, and an edit after which the file would no longer load not written (exit 2)."""

from __future__ import annotations

from pathlib import Path

import yaml
from security_kit import assert_contained, check, make_project, run_cli

CALC = """
def add(a: int, b: int) -> int:
    return a + b


def shaped(x):
    return {"raised": "ValueError", "message": "not really"}


def boom(x):
    raise KeyError("no such " + str(x))


def long_text(n):
    return "y" * n
"""


def _accept(root: Path, *refs: str) -> tuple[int, str]:
    run = run_cli(root, "accept", *refs)
    assert "Traceback" not in run.err, run.err[-3000:]
    return run.code, run.out + run.err


def _case(path: Path, fid: str, cid: str) -> dict[str, object]:
    data = yaml.safe_load(path.read_text(encoding="utf-8-sig"))
    case: dict[str, object] = next(
        c["case"] for c in data[fid]["dataset"] if c["case"]["id"] == cid
    )
    return case


ANCHORED = """\
hazards.calc.add:
  dataset:
    - case: &c {id: a, inputs: [1, 2], expected: 4}
    - case: {<<: *c, id: b}
"""


def test_a_case_with_an_anchor_or_alias_is_refused_and_the_file_kept(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"calc.yml": ANCHORED}, modules={"calc": CALC})
    for ref in ("hazards.calc.add[a]", "hazards.calc.add[b]"):
        code, out = _accept(root, ref)
        assert code == 2, out
        assert "anchor or alias" in out and "specs/calc.yml" in out, out
        assert (root / "specs" / "calc.yml").read_text() == ANCHORED


COMMENTED = """\
# Hand-written.
hazards.calc.add:
  dataset:
    - case:  # on the case
        id: drift   # inside the case
        # a note between keys
        inputs: [5, 1]
        expected: 7  # the old expectation
    - {case: {id: flow, inputs: [2, 2], expected: 5}}  # a flow case
"""


def test_comments_on_and_inside_the_case_are_kept(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"calc.yml": COMMENTED}, modules={"calc": CALC})
    code, out = _accept(root, "hazards.calc.add[drift]", "hazards.calc.add[flow]")
    assert code == 0, out
    text = (root / "specs" / "calc.yml").read_text()
    assert text == COMMENTED.replace("expected: 7", "expected: 6").replace(
        "expected: 5}", "expected: 4}"
    ), text
    assert_contained(check(root), codes=(0,))


def test_crlf_and_the_byte_order_mark_are_kept(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + COMMENTED.replace("\n", "\r\n").encode()
    root = make_project(tmp_path, specs={"calc.yml": data}, modules={"calc": CALC})
    code, out = _accept(root, "hazards.calc.add[drift]")
    assert code == 0, out
    raw = (root / "specs" / "calc.yml").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert raw.count(b"\n") == raw.count(b"\r\n") == COMMENTED.count("\n"), raw
    assert b"expected: 6  # the old expectation\r\n" in raw


SHAPES = """\
hazards.calc.shaped:
  dataset:
    - case: {id: looks_raised, input: 1, expected: 0}
hazards.calc.boom:
  dataset:
    - case:
        id: real
        input: 1
        expected: 0
"""


def test_raises_is_written_only_for_a_real_exception(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"s.yml": SHAPES}, modules={"calc": CALC})
    code, out = _accept(root, "hazards.calc.shaped[looks_raised]", "hazards.calc.boom[real]")
    assert code == 0, out
    spec = root / "specs" / "s.yml"
    shaped = _case(spec, "hazards.calc.shaped", "looks_raised")
    assert "raises" not in shaped, shaped
    assert shaped["expected"] == {"raised": "ValueError", "message": "not really"}
    assert _case(spec, "hazards.calc.boom", "real") == {
        "id": "real",
        "input": 1,
        "raises": "KeyError",
        "match": "^'no such 1'$",  # the message pinned, as an accepted witness's (#35)
    }
    assert_contained(check(root), codes=(0,))


SECOND = {
    "a.yml": "hazards.calc.add:\n  dataset:\n    - case: {id: first, inputs: [1, 1], expected: 2}\n",
    "b.yml": "hazards.calc.add:\n  dataset:\n    - case: {id: second, inputs: [2, 2], expected: 5}\n",
}


def test_accept_reaches_a_case_in_the_second_spec_file(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs=dict(SECOND), modules={"calc": CALC})
    code, out = _accept(root, "hazards.calc.add[second]")
    assert code == 0, out
    assert _case(root / "specs" / "b.yml", "hazards.calc.add", "second")["expected"] == 4
    assert (root / "specs" / "a.yml").read_text() == SECOND["a.yml"]


def test_an_edit_the_loader_would_reject_is_not_written(tmp_path: Path) -> None:
    # 3 MB of comment plus an accepted 1.5 MB string: past the 4 MB a spec file may hold.
    big = "# " + "x" * 3_000_000 + "\n"
    spec = (
        big
        + "hazards.calc.long_text:\n  dataset:\n    - case: {id: t, input: 1500000, expected: ''}\n"
    )
    root = make_project(tmp_path, specs={"big.yml": spec}, modules={"calc": CALC})
    inode = (root / "specs" / "big.yml").stat().st_ino  # a file put back is a new one
    code, out = _accept(root, "hazards.calc.long_text[t]")
    assert code == 2, out[-2000:]
    # the bytes that would be written are parsed first (specs/transaction.py, #34)
    assert "no longer load" in out and "nothing was written" in out, out[-2000:]
    assert (root / "specs" / "big.yml").read_text() == spec
    assert (root / "specs" / "big.yml").stat().st_ino == inode


def test_regen_keeps_crlf_and_the_byte_order_mark(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + COMMENTED.replace("\n", "\r\n").encode()
    root = make_project(tmp_path, specs={"calc.yml": data}, modules={"calc": CALC})
    run = run_cli(root, "regen", "--function", "hazards.calc.add", "--format", "json")
    assert run.code in (0, 1), run.err[-2000:]
    raw = (root / "specs" / "calc.yml").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"codemode:" in raw, raw[:300]
    assert raw.count(b"\n") == raw.count(b"\r\n"), raw
