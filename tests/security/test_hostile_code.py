"""Hostile functions and spec-level callables: contained to their own case, nothing reaches
the host, stdout or the environment, and nothing outlives the run."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from security_kit import GOOD_ID, assert_contained, check, make_project, one_problem, run_cli

EVIL = """
import os, subprocess, sys, time

def tagged():
    return {"\\u0000t": "bytes", "v": "!!not base64!!"}

def tagged_set():
    return {"\\u0000t": "set", "v": 5}

def tagged_map():
    return {"\\u0000map": 7}

def huge(n):
    return "x" * (40 * 1024 * 1024)

def giant_int():
    return 10 ** 6000

def spawn(pidfile):
    p = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    with open(pidfile, "w") as f:
        f.write(str(p.pid))
    return 1

def daemon(pidfile):
    if os.fork() == 0:
        time.sleep(300)
        os._exit(0)
    return 1

def setsid_daemon(pidfile):
    if os.fork() == 0:  # the classic daemon: fork, setsid, fork again, leave the group
        os.setsid()
        if os.fork() == 0:
            with open(pidfile + ".tmp", "w") as f:
                f.write(str(os.getpid()))
            os.rename(pidfile + ".tmp", pidfile)
            time.sleep(300)
        os._exit(0)
    os.wait()
    for _ in range(100):
        if os.path.exists(pidfile):
            break
        time.sleep(0.02)
    return 1

def env_names():
    return sorted(os.environ)

def env_value(name):
    return os.environ.get(name)
"""


def _project(tmp_path: Path, spec: str, config: str = "") -> Path:
    return make_project(tmp_path, specs={"bad.yml": spec}, modules={"evil": EVIL}, config=config)


TAGGED = {
    "tagged": {"\u0000t": "bytes", "v": "!!not base64!!"},
    "tagged_set": {"\u0000t": "set", "v": 5},
    "tagged_map": {"\u0000map": 7},
}


@pytest.mark.parametrize("fn", sorted(TAGGED))
def test_an_output_shaped_like_the_transport_tags_is_compared_as_data(
    tmp_path: Path, fn: str
) -> None:
    spec = f"hazards.evil.{fn}:\n  dataset:\n    - case: {{id: t, inputs: [], expected: 1}}\n"
    run = check(_project(tmp_path, spec))
    assert_contained(run)
    assert run.status(GOOD_ID) == "ok"
    case = run.function(f"hazards.evil.{fn}")["cases"][0]
    assert case["status"] == "drifted", case
    assert case["observed"] == TAGGED[fn]


def test_outputs_of_40_mb_are_errors_of_their_cases(tmp_path: Path) -> None:
    cases = "".join(f"    - case: {{id: c{i}, inputs: [{i}], expected: x}}\n" for i in range(8))
    # --timeout 30: the project's 1.5 s is for the hangs; making 40 MB eight times must not
    # time out on a busy machine before the size cap is what answers
    run = check(_project(tmp_path, "hazards.evil.huge:\n  dataset:\n" + cases), "--timeout", "30")
    assert_contained(run, ceiling_mb=400)
    assert len(run.out) < 1_000_000, len(run.out)
    msg = one_problem(run)
    assert "MB" in msg and "over the" in msg, msg
    assert len([m for m in run.messages() if "over the" in m]) == 8


def test_an_int_too_long_for_json_is_an_output_without_faithful_form(tmp_path: Path) -> None:
    spec = "hazards.evil.giant_int:\n  dataset:\n    - case: {id: g, inputs: [], expected: 1}\n"
    run = check(_project(tmp_path, spec))
    assert_contained(run)
    assert run.status(GOOD_ID) == "ok"
    assert run.status("hazards.evil.giant_int") in ("drifted", "error")


SHELL_IDS = {
    "function id": "os.system:\n  dataset:\n    - case: {{id: s, input: 'touch {mark}', expected: 0}}\n",
    "module attribute": "hazards.evil.os.system:\n  dataset:\n    - case: {{id: s, input: 'touch {mark}', expected: 0}}\n",
    "stdlib detour": "random._os.system:\n  dataset:\n    - case: {{id: s, input: 'touch {mark}', expected: 0}}\n",
    "builtin eval": "eval:\n  dataset:\n    - case: {{id: s, input: \"__import__('os').system('touch {mark}')\", expected: 0}}\n",
    "fixture": (
        "fixtures:\n  sh: {{setup: os.system, args: ['touch {mark}']}}\n"
        "hazards.evil.env_names:\n  fixture: [sh]\n  dataset:\n    - case: {{id: s, inputs: [], expected: []}}\n"
    ),
    "serializer": (
        "serializers:\n  sh: {{serializer: subprocess.getoutput}}\n"
        "hazards.evil.env_value:\n  serializer: sh\n  dataset:\n    - case: {{id: s, input: 'touch {mark}', expected: null}}\n"
    ),
}


@pytest.mark.parametrize("kind", sorted(SHELL_IDS))
def test_a_spec_cannot_name_a_callable_outside_the_project(tmp_path: Path, kind: str) -> None:
    mark = tmp_path / "pwned"
    run = check(_project(tmp_path, SHELL_IDS[kind].format(mark=mark)))
    assert_contained(run)
    assert not mark.exists()
    msg = one_problem(run)
    assert "outside the project" in msg, msg


def test_allow_callables_widens_the_allowlist(tmp_path: Path) -> None:
    spec = "shlex.quote:\n  dataset:\n    - case: {id: q, input: 'a b', expected: \"'a b'\"}\n"
    refused = check(_project(tmp_path / "a", spec))
    assert "outside the project" in one_problem(refused)
    allowed = check(_project(tmp_path / "b", spec, config='allow_callables = ["shlex"]\n'))
    assert_contained(allowed, codes=(0,))
    assert allowed.status("shlex.quote") == "ok"


def test_vowels_stdlib_examples_still_run(tmp_path: Path) -> None:
    spec = (
        "math.sqrt:\n  dataset:\n    - case: {id: four, input: 4, expected: 2.0}\n"
        "len:\n  dataset:\n    - case: {id: three, input: [1, 2, 3], expected: 3}\n"
        "sorted:\n  dataset:\n    - case: {id: s, input: [3, 1], expected: [1, 3]}\n"
    )
    run = check(_project(tmp_path, spec))
    assert_contained(run, codes=(0,))


SECRETS = {
    "OPENAI_KEY": "s1",
    "ANTHROPIC_KEY": "s2",
    "MY_PAT": "s3",
    "CI_JOB_JWT": "s4",
    "GPG_PASSPHRASE": "s5",
    "DATABASE_URL": "s6",
    "SLACK_WEBHOOK_URL": "s7",
    "GITHUB_TOKEN": "s8",
}


def test_the_worker_environment_is_an_allowlist(tmp_path: Path) -> None:
    spec = (
        "hazards.evil.env_names:\n  dataset:\n    - case: {id: names, inputs: [], expected: []}\n"
        "hazards.evil.env_value:\n  dataset:\n"
        "    - case: {id: passed, input: MY_SERVICE_HOST, expected: db.local}\n"
        "    - case: {id: lang, input: LANG, expected: C.UTF-8}\n"
    )
    root = _project(tmp_path, spec, config='pass_env = ["MY_SERVICE_*"]\n')
    run = check(root, env={**SECRETS, "MY_SERVICE_HOST": "db.local", "LANG": "C.UTF-8"})
    assert_contained(run)
    names = run.function("hazards.evil.env_names")["cases"][0]["observed"]
    assert not set(SECRETS) & set(names), names
    assert {"PATH", "MY_SERVICE_HOST", "LANG"} <= set(names)
    assert run.status("hazards.evil.env_value") == "ok", run.messages()
    assert "s1" not in run.out


@pytest.mark.parametrize("fn", ["spawn", "daemon", "setsid_daemon"])
def test_a_process_the_function_starts_does_not_outlive_the_run(tmp_path: Path, fn: str) -> None:
    pidfile = tmp_path / "child.pid"
    spec = (
        f"hazards.evil.{fn}:\n  dataset:\n    - case: {{id: p, input: '{pidfile}', expected: 1}}\n"
    )
    # processes are behind the wall unless allowed (#31): allowed here, the pid file too
    allowed = f'\n[tool.codemode.effects]\nsubprocess = true\nwrites = ["{pidfile}*"]\n'
    run = check(_project(tmp_path, spec, allowed))
    assert_contained(run, codes=(0,))  # also: no process left with its cwd in the project
    if pidfile.exists():
        pid = int(pidfile.read_text())
        for _ in range(50):
            if not _running(pid):
                break
            time.sleep(0.1)
        else:
            pytest.fail(f"process {pid} outlived codemode")


def _running(pid: int) -> bool:
    """Alive and not a zombie (a killed process another test's subreaper has not reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def test_check_staged_fails_when_staged_code_imports_an_untracked_module(tmp_path: Path) -> None:
    from security_kit import git

    root = make_project(tmp_path)
    (root / "src" / "hazards" / "helper.py").write_text("def one():\n    return 1\n")
    good = root / "src" / "hazards" / "good.py"
    good.write_text(
        "from hazards.helper import one\n\n\ndef add(a: int, b: int) -> int:\n"
        "    return a + b + one() - 1\n"
    )
    git(root, "add", "src/hazards/good.py")  # helper.py stays untracked
    run = run_cli(root, "check", "--staged", "--format", "json")
    assert_contained(run)
    assert run.status(GOOD_ID) == "error", run.out
    assert "hazards.helper" in " ".join(run.messages())
    git(root, "add", "src/hazards/helper.py")
    tracked = run_cli(root, "check", "--staged", "--format", "json")
    assert_contained(tracked, codes=(0,))


def test_prints_inside_an_assertion_never_reach_stdout(tmp_path: Path) -> None:
    spec = (
        "hazards.evil.env_value:\n  dataset:\n"
        "    - case: {id: forge, input: NOPE, assertion: \"print('::error::forged') or output is None\"}\n"
        "    - case: {id: flood, input: NOPE, assertion: \"[print('x' * 1000) for i in range(10000)] and False\"}\n"
    )
    run = check(_project(tmp_path, spec))
    assert_contained(run)
    assert "forged" not in run.out and "xxxx" not in run.out and "xxxx" not in run.err
    cases = {c["id"]: c["status"] for c in run.function("hazards.evil.env_value")["cases"]}
    assert cases == {"forge": "passed", "flood": "failed"}, run.out


def test_many_outputs_under_the_case_limit_still_have_a_run_budget(tmp_path: Path) -> None:
    module = "def big(n):\n    return 'y' * 1_900_000\n"
    cases = "".join(f"    - case: {{id: c{i}, input: {i}, expected: y}}\n" for i in range(40))
    root = make_project(
        tmp_path,
        specs={"bad.yml": "hazards.many.big:\n  dataset:\n" + cases},
        modules={"many": module},
    )
    run = check(root)
    assert_contained(run)
    assert len(run.out) < 40_000_000, len(run.out)  # 40 x 1.9 MB would be 76 MB
    assert any("already passed" in m for m in run.messages())
