"""Exploration's hot loop: 50 snippets of 20 calls each in the Monty sandbox, every call of the
target delegated to the real worker. Prints the wall time of the batch (median of 5) against its
target of 2 s; exits 1 when the target is missed, 2 when the batch does not record every call.

    python benchmarks/snippet_throughput.py

A speed target lives here, not in a unit test: on a loaded 2-core machine a timed test fails for
reasons that are not the code's (tests/explore/test_sandbox_calls.py checks the same batch's result).
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from codemode.config import load_config
from codemode.explore.llm.snippets import SnippetRunner
from codemode.explore.record import Recorder
from codemode.worker.make import make_worker

SHOP = Path(__file__).resolve().parents[1] / "examples" / "shop"
TARGET_S = 2.0
SNIPPETS = [f"for i in range(20):\n    split_bill({k} * 100 + i, 1 + i % 7)" for k in range(50)]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "shop"
        shutil.copytree(SHOP, root, ignore=shutil.ignore_patterns("__pycache__"))
        worker = make_worker(load_config(root))
        worker.start()
        try:
            times = []
            with SnippetRunner() as runner:
                for _ in range(5):
                    recorder = Recorder(worker, "shop.pricing.split_bill")
                    runner.run(["split_bill(1, 1)"], recorder, ["split_bill"])  # warm
                    started = time.perf_counter()
                    results = runner.run(SNIPPETS, recorder, ["split_bill"])
                    times.append(time.perf_counter() - started)
                    calls = sum(len(r.calls) for r in results)
                    if calls != 1000 or any(r.error for r in results):
                        print(f"FAILED: {calls} of 1000 calls recorded", file=sys.stderr)
                        return 2
        finally:
            worker.close()
    median = statistics.median(times)
    print(f"50 snippets x 20 calls: median {median:.3f} s of 5 runs (min {min(times):.3f} s)")
    print(f"target < {TARGET_S:.1f} s: {'met' if median < TARGET_S else 'MISSED'}")
    return 0 if median < TARGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
