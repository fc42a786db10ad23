"""Exploring one function with 50 snippets of 20 calls each records every call, in order.

Its speed (under 2 s) is measured by benchmarks/snippet_throughput.py, not asserted here.
"""

from __future__ import annotations

from codemode.explore.llm.snippets import SnippetRunner
from codemode.explore.record import Recorder
from codemode.worker.pool import Worker


def test_fifty_snippets_of_twenty_calls_are_all_recorded(worker: Worker) -> None:
    recorder = Recorder(worker, "shop.pricing.split_bill")
    snippets = [f"for i in range(20):\n    split_bill({k} * 100 + i, 1 + i % 7)" for k in range(50)]
    with SnippetRunner() as runner:
        results = runner.run(snippets, recorder, ["split_bill"])
    assert all(r.error is None for r in results)
    assert [len(r.calls) for r in results] == [20] * 50
    assert recorder.worker_calls == 1000
