"""Misbehaving code and hostile assertions: one error each; the worker and the run go on.

The good function is listed *after* the bad one in the same file, so it runs in the
worker that replaced the one the bad function hung, crashed or exhausted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hazard_run import Run

Check = Callable[..., Run]


def _one(fid: str, case: str) -> str:
    return f"{fid}:\n  dataset:\n    - case: {case}\n"


def test_a_function_that_loops_forever_times_out(check: Check) -> None:
    run = check(_one("hazards.runaway.spin", "{id: forever, input: 1, expected: 0}"))
    err = run.one_error()
    assert (err.file, err.line, err.where) == ("specs/bad.yml", 3, "hazards.runaway.spin[forever]")
    assert err.message.startswith("timed out after 1.5 s; the worker was killed and restarted")
    assert "raise --timeout" in err.message


def test_os_exit(check: Check) -> None:
    run = check(_one("hazards.runaway.bail", "{id: exit, input: 3, expected: 0}"))
    err = run.one_error()
    assert err.where == "hazards.runaway.bail[exit]"
    assert err.message.startswith("the worker process exited with code 3")


def test_interpreter_crash_through_ctypes(check: Check) -> None:
    run = check(_one("hazards.runaway.segfault", "{id: crash, inputs: [], expected: 0}"))
    err = run.one_error()
    assert err.message.startswith("the worker process was killed by SIGSEGV (a crash in native")


def test_allocating_far_past_the_memory_limit(check: Check) -> None:
    run = check(_one("hazards.runaway.hog", "{id: hog, input: 16, expected: 0}"))
    err = run.one_error()
    assert err.message.startswith("exceeded the memory limit of 768 MB (MemoryError)")
    assert "memory_limit_mb" in err.message


def test_flooding_stdout_does_not_corrupt_the_protocol(check: Check) -> None:
    # 10 MB of print(), raw writes to fd 1 and 100 kB on stderr; then the good function
    # --timeout 30: the project's 1.5 s is for the hangs, not for 10 MB of output on a busy machine
    run = check(
        _one("hazards.runaway.chatter", "{id: flood, input: 100000, expected: 100000}"),
        extra=("--timeout", "30"),
    )
    assert run.errors() == []
    assert run.status("hazards.runaway.chatter") == "ok"
    assert run.status("hazards.good.add") == "ok"
    assert run.code == 0


def test_recursing_without_end_is_an_unexpected_exception(check: Check) -> None:
    run = check(_one("hazards.runaway.recurse", "{id: deep, input: 0, expected: 0}"))
    assert run.errors() == []
    f = next(f for f in run.report["functions"] if f["id"] == "hazards.runaway.recurse")
    [case] = f["cases"]
    assert case["status"] == "drifted"
    assert case["observed"]["raised"] == "RecursionError"
    assert run.status("hazards.good.add") == "ok"
    # and a spec that expects it holds
    run = check(_one("hazards.runaway.recurse", "{id: deep, input: 0, raises: RecursionError}"))
    assert run.code == 0


SECRETS = {"GITHUB_TOKEN": "ghp_parentsecret", "OPENAI_API_KEY": "sk-parentsecret"}


def test_the_function_gets_no_token_from_the_environment(
    check: Check, monkeypatch: pytest.MonkeyPatch
) -> None:
    for k, v in SECRETS.items():
        monkeypatch.setenv(k, v)
    run = check(
        _one("hazards.runaway.token", "{id: none, inputs: [], expected: null}")
        + _one("hazards.runaway.secret_names", "{id: none, inputs: [], expected: []}")
    )
    assert run.errors() == []
    assert run.status("hazards.runaway.token") == "ok"
    assert run.status("hazards.runaway.secret_names") == "ok"
    assert "parentsecret" not in json.dumps(run.report)


def test_no_token_through_a_real_subprocess(tmp_path: Path) -> None:
    import shutil

    from hazard_run import HAZARDS

    root = tmp_path / "hazards"
    shutil.copytree(HAZARDS, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "specs" / "env.yml").write_text(
        _one("hazards.runaway.token", "{id: none, inputs: [], expected: null}"), encoding="utf-8"
    )
    env = {**os.environ, **SECRETS}
    proc = subprocess.run(
        [sys.executable, "-m", "codemode", "check", "--root", str(root), "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert {f["id"]: f["status"] for f in report["functions"]} == {
        "hazards.good.add": "ok",
        "hazards.runaway.token": "ok",
    }


def test_a_function_that_no_longer_exists(check: Check) -> None:
    run = check(_one("hazards.good.subtract", "{id: c, inputs: [3, 1], expected: 2}"))
    err = run.one_error()
    assert (err.line, err.where) == (3, "hazards.good.subtract[c]")
    assert err.message == (
        "hazards.good has no module or attribute 'subtract': renamed or removed? "
        "Point the spec at the function's new name, or delete the block"
    )


def test_a_module_that_does_not_exist(check: Check) -> None:
    run = check(_one("hazards.billing.invoice", "{id: c, input: 1, expected: 1}"))
    err = run.one_error()
    assert err.message.startswith("hazards has no module or attribute 'billing'")


def test_a_module_that_fails_to_import(check: Check) -> None:
    run = check(_one("hazards.broken_import.connect", "{id: c, inputs: [], expected: x}"))
    err = run.one_error()
    assert err.message.startswith(
        "cannot import hazards.broken_import: KeyError: 'HAZARDS_DATABASE_URL_NOT_SET' at "
    )
    assert "broken_import.py:7; the module fails when imported" in err.message


def _write_syntax_error(root: Path) -> None:
    # written here, not shipped: a .py file that does not parse would trip every linter
    (root / "src" / "hazards" / "syntax_error.py").write_text("def half(x):\n    return x /\n")


def test_a_syntax_error_in_the_module(check: Check) -> None:
    run = check(
        _one("hazards.syntax_error.half", "{id: c, input: 1, expected: 0.5}"),
        setup=_write_syntax_error,
    )
    err = run.one_error()
    assert err.message.startswith("cannot import hazards.syntax_error: SyntaxError: invalid syntax")
    assert "syntax_error.py, line 2" in err.message


def test_every_case_of_a_broken_function_reports_it(check: Check) -> None:
    run = check(
        "hazards.syntax_error.half:\n  dataset:\n    - case: {id: a, input: 1, expected: 0.5}\n"
        "    - case: {id: b, input: 2, expected: 1}\n",
        setup=_write_syntax_error,
    )
    assert [e.where for e in run.errors()] == [
        "hazards.syntax_error.half[a]",
        "hazards.syntax_error.half[b]",
    ]
    assert run.status("hazards.good.add") == "ok"


SENTINEL = "sandbox-sentinel.txt"


@pytest.mark.parametrize(
    "assertion",
    [
        f"open('{SENTINEL}').read() == 'original'",
        f"open('{SENTINEL}', 'w').write('overwritten') > 0",
        f"__import__('os').remove('{SENTINEL}') is None",
        "__import__('os').environ['HOME'] != ''",
    ],
)
def test_an_assertion_cannot_touch_files_or_import(check: Check, assertion: str) -> None:
    base = Path.cwd()
    run = check(
        _one("hazards.runaway.token", f'{{id: a, inputs: [], assertion: "{assertion}"}}'),
        setup=lambda root: (root / SENTINEL).write_text("original", encoding="utf-8"),
    )
    err = run.one_error()
    assert err.where == "hazards.runaway.token[a]"
    assert err.message.startswith("sandbox error: ")
    assert "assertions run in a sandbox with no files, imports or environment" in err.message
    assert (run.root / SENTINEL).read_text(encoding="utf-8") == "original"
    assert not (base / SENTINEL).exists()


def test_an_assertion_that_is_a_statement(check: Check) -> None:
    run = check(_one("hazards.runaway.token", '{id: a, inputs: [], assertion: "import os"}'))
    err = run.one_error()
    assert err.message.startswith("assertion is not a Python expression: invalid syntax")
