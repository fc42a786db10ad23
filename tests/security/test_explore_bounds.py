"""What a model's snippets and proposals can do, against the real worker and Monty: bounded
argument sizes (they would be written into the spec), a wall-clock budget for the calls of one
snippet, and evaluators that print or assert nothing never reach a spec."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from security_kit import make_project

from codemode.config import load_config
from codemode.explore.llm import snippets
from codemode.explore.llm.pipeline import vacuous, validate_evaluators
from codemode.explore.llm.prompts import ProposedEvaluator
from codemode.explore.llm.snippets import SnippetRunner
from codemode.explore.record import MAX_ARGUMENT_CHARS, Recorder
from codemode.explore.target import load_target
from codemode.worker.make import make_worker
from codemode.worker.pool import Worker

MODULE = """
import time

def size(s):
    return len(s)

def slow(x):
    time.sleep(0.2)
    return x

def double(x: int) -> int:
    return 2 * x


class Meter:
    def __init__(self, start: int = 0) -> None:
        self.start = start

    def tick(self, x):
        time.sleep(0.2)
        return self.start + x

    def slow_reset(self, x):
        time.sleep(0.2)
        self.start = x
        return x
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path, modules={"model": MODULE}, commit=False)


@pytest.fixture
def worker(project: Path) -> Iterator[Worker]:
    w = make_worker(load_config(project))
    w.start()
    yield w
    w.close()


def test_a_20_mb_argument_is_refused_and_never_becomes_a_case(worker: Worker) -> None:
    recorder = Recorder(worker, "hazards.model.size")
    with SnippetRunner(memory_mb=128) as runner:
        refused, fine = runner.run(["size('x' * 20_000_000)", "size('ok')"], recorder, ["size"])
    big, small = recorder.records
    assert big.kind == "error" and "over the" in big.message and big.args == ()
    assert small.kind == "returned" and small.value == 2
    assert refused.error is not None and "over the" in refused.error
    assert fine.error is None
    assert recorder.worker_calls == 1  # the big one never reached the worker
    assert len(recorder._key(("x" * MAX_ARGUMENT_CHARS,), {})) > MAX_ARGUMENT_CHARS


def test_the_calls_of_one_snippet_have_a_wall_clock_budget(
    worker: Worker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snippets, "HOST_SECONDS", 1.0)
    recorder = Recorder(worker, "hazards.model.slow")
    started = time.monotonic()
    with SnippetRunner(feed_seconds=60.0) as runner:
        [result] = runner.run(["for i in range(100):\n    slow(i)"], recorder, ["slow"])
    assert time.monotonic() - started < 10
    assert result.error is not None and "more than 1 s" in result.error
    assert 3 <= len(recorder.records) < 20


@pytest.mark.parametrize(
    ("assertion", "type_", "kept"),
    [
        ("output % 2 == 0", None, True),
        ("print('::error::forged') or output % 2 == 0", None, False),
        ("True", None, False),
        ("output == output", None, False),
        ("len(str(input)) >= 0", None, False),
        (None, "int", True),
        (None, "object", False),
        (None, "int | Any", False),
    ],
)
def test_evaluators_that_print_or_hold_nothing_are_not_kept(
    project: Path,
    worker: Worker,
    assertion: str | None,
    type_: str | None,
    kept: bool,
    capfd: pytest.CaptureFixture[str],
) -> None:
    config = load_config(project)
    info = load_target(config, "hazards.model.double")
    recorder = Recorder(worker, "hazards.model.double")
    recorder.call_many([((n,), {}) for n in (1, 2, 3)])
    proposal = ProposedEvaluator(name="even", assertion=assertion, type=type_)
    result = validate_evaluators(recorder, info, [proposal])
    assert bool(result) is kept, result
    assert "::error::" not in capfd.readouterr().out


def test_vacuous_reads_the_expression_not_its_text() -> None:
    assert vacuous("(p := print)('x') or output", None)
    assert not vacuous("output['printed'] is True", None)
    assert vacuous(None, "typing.Any")


@pytest.mark.parametrize(
    "loop",
    [
        "m.tick(i)",  # the target, as a method of an instance the snippet built
        "m.slow_reset(i)",  # another method of that instance
    ],
)
def test_a_method_on_an_instance_the_snippet_built_has_the_same_time_cap(
    project: Path, worker: Worker, monkeypatch: pytest.MonkeyPatch, loop: str
) -> None:
    """The time cap of the bare name holds for every way into the worker (#22)."""
    monkeypatch.setattr(snippets, "HOST_SECONDS", 1.0)
    config = load_config(project)
    info = load_target(config, "hazards.model.Meter.tick")
    recorder = Recorder(worker, info.id)
    code = f"from hazards.model import Meter\nm = Meter()\nfor i in range(100):\n    {loop}"
    started = time.monotonic()
    with SnippetRunner(feed_seconds=60.0) as runner:
        [result] = runner.run([code], recorder, ["tick"], info)
    assert time.monotonic() - started < 10
    assert result.error is not None and "more than 1 s" in result.error, result.error


def test_a_method_on_an_instance_the_snippet_built_gets_the_argument_checks(
    project: Path, worker: Worker
) -> None:
    """No class or function object reaches the worker through a method call (#22)."""
    config = load_config(project)
    info = load_target(config, "hazards.model.Meter.tick")
    recorder = Recorder(worker, info.id)
    codes = [
        "from hazards.model import Meter\nMeter().tick(int)",
        "from hazards.model import Meter\nMeter().slow_reset(x=len)",
        "from hazards.model import Meter\nMeter(start=int)",
        "from hazards.model import Meter\nMeter(start=2).tick(3)",
    ]
    with SnippetRunner() as runner:
        results = runner.run(codes, recorder, ["tick"], info)
    for r in results[:3]:
        assert r.error and "only data values" in r.error, r.error
    assert results[3].error is None
    assert [(r.args, r.value) for r in recorder.records] == [((3,), 5)]
