"""``Worker.run_blocks`` (#20): each block's request goes to the worker before the replies of
the one before are read, so the worker runs it while the caller judges those; a request that
went ahead to a worker that died, or whose replies nobody will read, changes no outcome.
Real workers on a project in a temp dir."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from codemode.worker.pool import Block, Outcome, Worker
from markkit import appears, marking_worker

MODULE = """
import os


def mark(path):
    with open(path, "w") as f:
        f.write("ran")
    return 1


def mark_padded(path, padding):
    return mark(path)


def die(n):
    os._exit(0)


def big(text):
    return text * 3
"""


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[Worker]:
    # `mark` writes its evidence under the test's folder
    with marking_worker(tmp_path, {"blocks.py": MODULE}) as w:
        yield w


def _block(function: str, *args: object, cid: str = "a") -> Block:
    return Block(f"blocks.{function}", [{"id": cid, "args": list(args), "kwargs": {}}], [], [])


def _kinds(outcomes: list[Outcome]) -> list[tuple[str, str, object]]:
    return [(o.case, o.kind, o.value) for o in outcomes]


def test_the_next_block_runs_while_the_caller_judges_this_one(
    worker: Worker, tmp_path: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    runs = worker.run_blocks([_block("mark", str(first)), _block("mark", str(second), cid="b")])
    assert _kinds(next(runs)) == [("a", "returned", 1)]
    # Not asked for yet, and it ran: its request was in the worker with the first one's.
    assert appears(second)
    assert _kinds(next(runs)) == [("b", "returned", 1)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pipe grows on Linux")
def test_a_request_of_a_few_hundred_cases_goes_ahead_too(worker: Worker, tmp_path: Path) -> None:
    # 30 KB each, as 250 flow-style cases are: past the 12 KB every system's pipe holds twice
    # (which kept the worker and its caller waiting on each other, one block at a time, #36),
    # within the pipe Linux lets grow.
    first, second = tmp_path / "first", tmp_path / "second"
    pad = "p" * 30_000
    runs = worker.run_blocks(
        [_block("mark_padded", str(first), pad), _block("mark_padded", str(second), pad, cid="b")]
    )
    assert _kinds(next(runs)) == [("a", "returned", 1)]
    assert appears(second)
    assert _kinds(next(runs)) == [("b", "returned", 1)]


def test_a_request_that_went_ahead_to_a_worker_that_died_is_sent_again(
    worker: Worker, tmp_path: Path
) -> None:
    after = tmp_path / "after"
    blocks = [_block("die", 1), _block("mark", str(after), cid="b")]
    died, fine = list(worker.run_blocks(blocks))
    assert died[0].kind == "error" and "exited with code 0" in died[0].message
    assert _kinds(fine) == [("b", "returned", 1)]
    assert after.exists()


def test_replies_nobody_will_read_never_reach_the_next_run(worker: Worker, tmp_path: Path) -> None:
    runs = worker.run_blocks([_block("big", "x"), _block("big", "y", cid="b")])
    assert _kinds(next(runs)) == [("a", "returned", "xxx")]
    runs.close()  # the second block's request went ahead: its replies must not be taken
    assert _kinds(list(worker.run("blocks.big", [{"id": "c", "args": ["z"], "kwargs": {}}]))) == [
        ("c", "returned", "zzz")
    ]


def test_requests_too_big_to_wait_in_the_pipe_do_not_go_ahead(worker: Worker) -> None:
    # Each request fills the worker's pipe, and each reply the caller's: a request sent ahead
    # would wait on a worker that waits for its replies to be read.
    text = "w" * max(70_000, worker.room // 2 + 1)
    blocks = [_block("big", text, cid=f"c{n}") for n in range(4)]
    got: list[list[Outcome]] = []
    thread = threading.Thread(target=lambda: got.extend(worker.run_blocks(blocks)), daemon=True)
    thread.start()
    thread.join(60)
    if thread.is_alive():
        worker.kill()
        pytest.fail("run_blocks waited forever")
    assert [(o.case, o.kind, len(o.value)) for b in got for o in b] == [
        (f"c{n}", "returned", 3 * len(text)) for n in range(4)
    ]
    assert _kinds(list(worker.run("blocks.big", [{"id": "d", "args": ["q"], "kwargs": {}}]))) == [
        ("d", "returned", "qqq")
    ]
