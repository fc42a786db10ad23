"""What a bootstrap pays per function (#36): the explored calls are run once, not again to
choose the block's type evaluator, and a module is parsed once per content, not once per
function, without ever serving an edited module's old text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from projectkit import meta, project, regen, spec

from codemode.config import load_config
from codemode.explore.offline.evaluators import offline_evaluators
from codemode.explore.record import Recorder
from codemode.explore.target import load_target, module_source
from codemode.worker.make import make_worker
from codemode.worker.pool import Worker

SRC = {
    "src/pkg/nums.py": """
        def double(n: int) -> int:
            return n * 2

        def label(n: int) -> str:
            return "big" if n > 9 else "small"
    """
}


class _Counting:
    """The run's real worker, counting the batches of calls it is sent."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.batches = 0

    def run(self, *args: Any, **kwargs: Any) -> Any:
        self.batches += 1
        return self.worker.run(*args, **kwargs)


def test_the_type_evaluator_is_chosen_without_running_the_calls_again(tmp_path: Path) -> None:
    root = project(tmp_path, SRC)
    config = load_config(root)
    info = load_target(config, "pkg.nums.double")
    worker = make_worker(config)
    try:
        counting = _Counting(worker)
        recorder = Recorder(counting, "pkg.nums.double")  # type: ignore[arg-type]
        recorder.call_many([((n,), {}) for n in (0, 1, -3, 7)])
        ran = counting.batches
        evaluators = offline_evaluators(recorder, info)
        assert counting.batches == ran == 1
    finally:
        worker.close()
    assert evaluators == {"IsInt": {"type": "int"}}


def test_a_module_is_parsed_once_per_content_and_an_edit_is_seen(tmp_path: Path) -> None:
    root = project(tmp_path, SRC)
    config = load_config(root)
    module_source.cache_clear()
    assert load_target(config, "pkg.nums.double").params[0].name == "n"
    assert load_target(config, "pkg.nums.label").signature == "def label(n: int) -> str"
    assert module_source.cache_info().hits == 1  # the second function of the module
    path = root / "src" / "pkg" / "nums.py"
    # the same size, at once: a key of mtime and size could serve the old text
    text = path.read_text().replace("def label(n: int)", "def label(k: int)")
    path.write_text(text.replace("n > 9", "k > 9"))
    assert load_target(config, "pkg.nums.label").signature == "def label(k: int) -> str"


def test_a_bootstrap_still_writes_the_type_evaluator(tmp_path: Path) -> None:
    root = project(tmp_path, SRC)
    report = regen(root, "pkg.nums.double", "pkg.nums.label")
    assert {f["status"] for f in report["functions"]} == {"ok"}  # type: ignore[index,union-attr]
    data = spec(root, "pkg.nums")
    assert meta(data, "pkg.nums.double") is not None
    assert data["pkg.nums.double"]["evals"] == {"IsInt": {"type": "int"}}  # type: ignore[index]
    assert data["pkg.nums.label"]["evals"] == {"IsStr": {"type": "str"}}  # type: ignore[index]


def test_a_function_whose_calls_are_slow_stops_exploring_at_the_budget(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from codemode.explore.offline import explorer

    root = project(
        tmp_path,
        {
            "src/pkg/slow.py": """
                import time

                def pause(n: int, label: str = "x") -> str:
                    time.sleep(0.02)
                    return label * (n % 3)
            """
        },
    )
    config = load_config(root)
    info = load_target(config, "pkg.slow.pause")
    monkeypatch.setattr(explorer, "CALLS_SECONDS", 0.3)  # the budget, scaled down
    monkeypatch.setattr(explorer, "CALL_BATCH", 10)
    worker = make_worker(config)
    try:
        recorder = Recorder(worker, info.id)
        result = explorer.explore(info, recorder, root=root)
    finally:
        worker.close()
    planned = len(explorer.plan(info, (), root).candidates)
    assert 10 <= len(recorder.records) < planned
    assert any("planned calls not run" in n for n in result.notes), result.notes
    assert result.cases  # what ran still becomes cases
