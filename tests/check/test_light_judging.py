"""Judging a spec loads only what its keys need (#20): an ``assertion:`` loads Monty's compiled
module, not the package's asyncio-based OS layer nor OpenTelemetry (#36); a plain-text ``match:``
loads no regex engine.
The verdicts are the same as with the whole package and the engine."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import regex

from codemode import saferegex
from codemode.check.assertions import AssertionRow, AssertionSandbox

PROBE = """
import json, sys
from codemode.cli.main import main
code = main(["check", "--all", "-q", "--report-out", "report.json", "--jobs", "1"])
watched = ("pydantic_monty.os_access", "pydantic_monty.class_instance", "asyncio", "regex",
           "opentelemetry", "logging")
print("LOADED=" + json.dumps([m for m in watched if m in sys.modules]))
sys.exit(code)
"""

MODULE = """
def price(text):
    if not text.isdigit():
        raise ValueError(f"not a price: {text!r}")
    return int(text)
"""

SPEC = """
mod.price:
  evals:
    Positive: {assertion: "output > 0"}
  dataset:
    - case: {id: one, input: "12", expected: 12}
    - case: {id: zero, input: "0", expected: 0}
    - case: {id: bad, input: "x", raises: ValueError, match: "not a price"}
    - case: {id: bad_words, input: "x", raises: ValueError, match: "not a cost"}
"""


def _project(root: Path, spec: str) -> Path:
    (root / "specs").mkdir(parents=True)
    (root / "mod.py").write_text(textwrap.dedent(MODULE))
    (root / "specs" / "mod.yml").write_text(spec)
    (root / "pyproject.toml").write_text('[tool.codemode]\nspecs = ["specs/*.yml"]\n')
    return root


def _run(root: Path) -> tuple[int, dict[str, str], list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=root, capture_output=True, text=True, timeout=120
    )
    lines = proc.stdout.splitlines()
    loaded = json.loads(next(ln for ln in lines if ln.startswith("LOADED=")).split("=", 1)[1])
    report = json.loads((root / "report.json").read_text())
    statuses = {c["id"]: c["status"] for f in report["functions"] for c in f["cases"]}
    return proc.returncode, statuses, loaded


def test_assertions_and_plain_matches_load_neither_the_os_layer_nor_a_regex_engine(
    tmp_path: Path,
) -> None:
    code, statuses, loaded = _run(_project(tmp_path / "p", SPEC))
    # The assertion ran (zero is not > 0) and the match was searched (both ways).
    assert statuses == {"one": "passed", "zero": "failed", "bad": "passed", "bad_words": "drifted"}
    assert code == 1
    assert loaded == []


def test_a_real_pattern_still_goes_to_the_engine(tmp_path: Path) -> None:
    spec = SPEC.replace('match: "not a price"', 'match: "not a pr[i]ce"')
    _, statuses, loaded = _run(_project(tmp_path / "p", spec))
    assert statuses["bad"] == "passed"
    assert loaded == ["regex"]


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        ("not a price", "not a price: 'x'"),
        ("NOT A PRICE", "not a price: 'x'"),
        ("price", "PRICE"),
        ("", "anything"),
        ("two words", "two  words"),
        ("k", "\u212a"),  # KELVIN SIGN: the engine folds it to k when ignoring case
        ("ß", "SS"),
        ("straße", "STRASSE"),
        ("é", "É"),
        ("line one\nline two", "line one\nline two"),
        ("#not a comment", "x #not a comment"),
    ],
)
def test_plain_text_patterns_answer_as_the_engine_does(pattern: str, text: str) -> None:
    for ignore_case in (False, True):
        flags = regex.IGNORECASE if ignore_case else 0
        want = regex.search(pattern, text, flags) is not None
        assert saferegex.search(pattern, text, ignore_case=ignore_case) is want


def test_importing_the_package_while_the_sandbox_loads_gets_the_whole_package() -> None:
    """A thread that imports ``pydantic_monty`` while the sandbox loads its compiled module
    (before, meanwhile, after) gets the package it would have had: every name it defines,
    the same ``Monty``. Before the package was a lazy one, a thread's import could keep the
    bare package (14 runs in 40)."""
    script = textwrap.dedent(
        """
        import threading
        from codemode.check.monty_native import monty_native
        seen, go = [], threading.Event()
        def importer(how):
            go.wait()
            if how:
                from pydantic_monty import Monty, OSPolicy, ResourceLimits
                seen.append(Monty)
            else:
                import pydantic_monty
                seen.append(pydantic_monty.Monty)
        threads = [threading.Thread(target=importer, args=(n % 2,)) for n in range(6)]
        for t in threads:
            t.start()
        go.set()
        native = monty_native()
        for t in threads:
            t.join()
        import pydantic_monty
        print(len(seen), all(m is native.Monty for m in seen), len(pydantic_monty.__all__) > 10)
        """
    )
    for _ in range(10):
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
        )
        assert out.stdout.split() == ["6", "True", "True"], out.stderr


def test_the_sandbox_answers_after_the_package_was_imported_whole() -> None:
    import pydantic_monty  # noqa: F401  (as the model's path imports it)

    sandbox = AssertionSandbox()
    try:
        rows = [AssertionRow(1, 2), AssertionRow(1, -2)]
        assert sandbox.evaluate("output > 0", rows) == [True, False]
    finally:
        sandbox.close()
