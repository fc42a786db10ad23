"""``Verifier.verify_pieces`` (#36): a check's units go to the worker as one stream, so the
next unit's first block runs while the one before is judged; a spec file with a ``scope: file``
fixture ends with its teardown before anything else goes to the worker. Real workers on a
project in a temp dir."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codemode.check.assertions import AssertionSandbox
from codemode.check.verify import Verifier
from codemode.config import load_config
from codemode.specs.load import parse_spec_text
from codemode.specs.types import SpecFile
from codemode.worker.pool import Worker
from markkit import appears, marking_worker

MODULE = """
import os


def mark(name):
    with open(os.path.join(os.path.dirname(__file__), name), "w") as f:
        f.write("ran")
    return 1


def box():
    yield "box"
    with open(os.path.join(os.path.dirname(__file__), "torn-down"), "w") as f:
        f.write("x")


def seen(name, box):
    return os.path.exists(os.path.join(os.path.dirname(__file__), name))
"""


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[Worker]:
    # the module writes its evidence beside itself
    files = {"marks.py": MODULE, "pyproject.toml": '[project]\nname = "marks"\n'}
    with marking_worker(tmp_path, files) as w:
        yield w


def _spec(tmp_path: Path, name: str, text: str) -> SpecFile:
    return parse_spec_text(text, tmp_path / name, name)


def _statuses(result: object) -> list[str]:
    return [c.status for f in result.functions for c in f.cases]  # type: ignore[attr-defined]


def test_the_next_piece_runs_while_this_one_is_judged(worker: Worker, tmp_path: Path) -> None:
    first = _spec(
        tmp_path, "a.yml", "marks.mark:\n  dataset:\n    - case: {input: one, expected: 1}\n"
    )
    second = _spec(
        tmp_path, "b.yml", "marks.mark:\n  dataset:\n    - case: {input: two, expected: 1}\n"
    )
    verifier = Verifier(load_config(tmp_path), worker, AssertionSandbox())
    pieces = verifier.verify_pieces([("a", first), ("b", second)])
    key, result = next(pieces)
    assert (key, _statuses(result)) == ("a", ["passed"])
    # Not asked for yet, and it ran: its block went to the worker with the first piece's.
    assert appears(tmp_path / "two")
    key, result = next(pieces)
    assert (key, _statuses(result)) == ("b", ["passed"])
    assert next(pieces, None) is None


def test_a_file_fixture_is_torn_down_before_the_next_piece_runs(
    worker: Worker, tmp_path: Path
) -> None:
    shared = _spec(
        tmp_path,
        "a.yml",
        "fixtures:\n  box: {setup: marks.box, scope: file}\n"
        "marks.seen:\n  fixture: [box]\n  dataset:\n"
        "    - case: {input: torn-down, expected: false}\n",
    )
    after = _spec(
        tmp_path,
        "b.yml",
        "marks.mark:\n  dataset:\n    - case: {input: two, expected: 1}\n"
        "marks.seen:\n  dataset:\n    - case: {inputs: [torn-down, 0], expected: true}\n",
    )
    verifier = Verifier(load_config(tmp_path), worker, AssertionSandbox())
    pieces = verifier.verify_pieces([("a", shared), ("b", after)])
    key, result = next(pieces)
    assert (key, _statuses(result), result.problems) == ("a", ["passed"], [])
    time.sleep(0.3)
    assert not (tmp_path / "two").exists()  # nothing went ahead past the teardown
    assert (tmp_path / "torn-down").exists()
    key, result = next(pieces)
    assert (key, _statuses(result)) == ("b", ["passed", "passed"])
