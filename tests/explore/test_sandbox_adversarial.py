"""Snippets that try to get out: each is contained with a clear error, and the run goes on."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from codemode.config import Config
from codemode.explore.llm.snippets import SnippetRunner
from codemode.explore.record import Recorder
from codemode.explore.target import load_target
from codemode.worker.pool import Worker

CANARY = "/tmp/codemode-sandbox-canary"

# (name, snippet, what the error must say) — at least 15, one per escape route.
ADVERSARIAL = [
    ("read_file", "open('/etc/passwd').read()", "PermissionError"),
    ("write_file", f"open('{CANARY}', 'w').write('x')", "PermissionError"),
    ("list_dir", "import os\nos.listdir('/')", "PermissionError"),
    ("read_env", "import os\nos.environ['HOME']", "not supported"),
    ("getenv", "import os\nos.getenv('OPENAI_API_KEY')", "Error"),
    ("socket", "import socket\nsocket.socket()", "ModuleNotFoundError"),
    (
        "urllib",
        "import urllib.request\nurllib.request.urlopen('http://example.com')",
        "ModuleNotFoundError",
    ),
    ("subprocess", "import subprocess\nsubprocess.run(['touch', '/tmp/x'])", "ModuleNotFoundError"),
    ("os_system", "import os\nos.system('touch /tmp/x')", "Error"),
    ("dunder_import", "__import__('os').system('id')", "NameError"),
    ("subclasses_walk", "().__class__.__bases__[0].__subclasses__()", "AttributeError"),
    ("globals_walk", "split_bill.__globals__['__builtins__']", "AttributeError"),
    ("eval_exec", "eval(\"__import__('os')\")", "NameError"),
    ("infinite_loop", "while True:\n    pass", "TimeoutError"),
    ("memory_bomb", "x = 'a' * (10 ** 10)", "MemoryError"),
    ("list_bomb", "x = [0] * (10 ** 9)", "MemoryError"),
    ("deep_recursion", "def f(n):\n    return f(n + 1)\nf(0)", "RecursionError"),
    (
        "long_sleep",
        "import time\ntime.sleep(3600)\nsplit_bill(10, 3)",
        None,
    ),  # sleeps return at once
    ("object_argument", "split_bill(object(), 1)", "TypeError"),
    ("call_flood", "for i in range(100000):\n    split_bill(i, 1)", "RuntimeError"),
]


@pytest.fixture
def recorder(worker: Worker) -> Recorder:
    return Recorder(worker, "shop.pricing.split_bill")


def test_adversarial_snippets_are_contained_and_the_run_goes_on(
    recorder: Recorder, shop: Path
) -> None:
    if os.path.exists(CANARY):
        os.unlink(CANARY)
    before = sorted(p.name for p in shop.rglob("*"))
    codes = [code for _, code, _ in ADVERSARIAL] + ["split_bill(1001, 3)"]
    started = time.perf_counter()
    with SnippetRunner(feed_seconds=0.5, max_calls_per_snippet=200) as runner:
        results = runner.run(codes, recorder, ["split_bill", "target"])
    elapsed = time.perf_counter() - started
    for (name, _, expect), result in zip(ADVERSARIAL, results):
        if expect is None:
            assert result.error is None, name
        else:
            assert result.error and expect in result.error, (name, result.error)
            assert "\n" not in result.error  # one clear line for the model
    # the snippet after all of them still runs and reaches the real function
    assert results[-1].error is None
    assert recorder.records[results[-1].calls[0] - 1].value == [334, 334, 333]
    assert not os.path.exists(CANARY)
    assert sorted(p.name for p in shop.rglob("*")) == before
    assert elapsed < 30  # the hour-long sleep did not sleep


def test_the_worker_never_sees_non_data_arguments(recorder: Recorder) -> None:
    with SnippetRunner() as runner:
        [r] = runner.run(["split_bill(int, 1)"], recorder, ["split_bill"])
    assert r.error and "only data values" in r.error
    assert recorder.records == []


def test_target_exceptions_reach_the_snippet_as_builtin_classes(recorder: Recorder) -> None:
    code = "try:\n    split_bill(5, 0)\nexcept ValueError as e:\n    split_bill(5, 1)"
    with SnippetRunner() as runner:
        [r] = runner.run([code], recorder, ["split_bill"])
    assert r.error is None
    assert [rec.kind for rec in recorder.records] == ["raised", "returned"]
    assert (
        recorder.records[0].exc and recorder.records[0].exc["message"] == "people must be positive"
    )


def test_an_imported_target_gets_the_same_argument_checks(
    shop_config: Config, recorder: Recorder
) -> None:
    """The prompt tells the model to import the function; that name checks what the bare name
    checks (#22): no class or function object reaches the worker."""
    info = load_target(shop_config, recorder.target)
    code = f"from {info.module} import split_bill\nsplit_bill(int, 1)"
    with SnippetRunner() as runner:
        [r] = runner.run([code], recorder, ["split_bill"], info)
    assert r.error and "only data values" in r.error
    assert recorder.records == []
