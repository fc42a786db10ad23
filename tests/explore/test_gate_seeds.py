"""The gate's hash seeds (#18, #22): an output that holds an order (a list from a set follows
the process's hash seed) is run in more workers, each with a seed of its own, than an output
that holds none; the extra workers start only for such a block. Each run of a block is a child
forked from a gate worker, so the distinct parents the function saw are the seeds it ran under.
"""

from __future__ import annotations

from pathlib import Path

from projectkit import project, regen

from codemode.explore.writing.gate import EXTRA_SEEDS

SEEN = """\
import os


def _saw(name: str) -> None:
    # the worker's environment is its own: the folder is found from the module's place
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "seen", name), "a") as fh:
        fh.write(f"{os.getppid()}\\n")


def pair() -> list[str]:
    _saw("pair")
    return ["a", "b"]


def one() -> str:
    _saw("one")
    return "a"
"""


def test_an_ordered_output_runs_under_more_seeds(tmp_path: Path) -> None:
    root = project(tmp_path, {"src/pkg/seen.py": SEEN})
    with (root / "pyproject.toml").open("a") as f:  # the probe's evidence, allowed (#31)
        f.write('\n[tool.codemode.effects]\nwrites = ["seen/**"]\n')
    seen = root / "seen"
    seen.mkdir()
    report = regen(root, "pkg.seen.pair", "pkg.seen.one")
    functions = report["functions"]
    assert isinstance(functions, list) and {f["status"] for f in functions} == {"ok"}, report
    parents = {n: set((seen / n).read_text().split()) for n in ("pair", "one")}
    assert len(parents["pair"]) == len(parents["one"]) + EXTRA_SEEDS, parents


def test_a_deeply_nested_output_is_judged_without_recursing_to_the_limit() -> None:
    from codemode.explore.writing.gate import ordered

    nested: list[object] = []
    inner = nested
    for _ in range(5000):  # deeper than the interpreter's recursion limit
        deeper: list[object] = []
        inner.append(deeper)
        inner = deeper
    assert ordered(nested) is True
    assert ordered([["a"]]) is False and ordered({"k": ["a", "b"]}) is True
