"""Exploring one function with 50 snippets of 20 calls each: under 2 s of sandbox and worker time."""

from __future__ import annotations

import time

from codemode.explore.record import Recorder
from codemode.explore.snippets import SnippetRunner
from codemode.worker.pool import Worker


def test_fifty_snippets_of_twenty_calls_under_two_seconds(worker: Worker) -> None:
    recorder = Recorder(worker, "shop.pricing.split_bill")
    snippets = [f"for i in range(20):\n    split_bill({k} * 100 + i, 1 + i % 7)" for k in range(50)]
    with SnippetRunner() as runner:
        runner.run(["split_bill(1, 1)"], recorder, ["split_bill"])  # pool and worker warm
        started = time.perf_counter()
        results = runner.run(snippets, recorder, ["split_bill"])
        elapsed = time.perf_counter() - started
    assert all(r.error is None for r in results)
    assert sum(len(r.calls) for r in results) == 1000
    assert recorder.worker_calls == 1001
    assert elapsed < 2.0, f"{elapsed:.2f} s"
