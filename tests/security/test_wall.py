"""The wall (#31): nothing codemode calls changes the work tree, the index, ``.git`` or
``$HOME``, in every mode that calls project code; each stopped call is named in the report.

Real git repositories, the real ``codemode`` command in a subprocess, the trees hashed
before and after (tests/wallkit.py). The pre-commit path is in tests/hooks/test_wall_hook.py,
the Action's in tests/github/test_action_wall.py.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from codemode.worker import landlock
from wallkit import (
    BLOCKED,
    change_every_function,
    codemode,
    git,
    leftovers,
    make,
    run_env,
    state,
)

pytestmark = pytest.mark.slow


_codemode = codemode


def _names_every_blocked_operation(output: str, names: dict[str, str] = BLOCKED) -> None:
    for function, op in names.items():
        lines = [ln for ln in output.splitlines() if f"hz.effects.{function}" in ln]
        said = [ln for ln in lines if ("blocked" in ln or "stopped by" in ln) and op in ln]
        assert said, (function, op, output[-3000:])


def test_regen_all_changes_nothing_and_says_what_it_stopped(tmp_path: Path) -> None:
    root = make(tmp_path / "repo")
    home = tmp_path / "home"
    env = run_env(tmp_path, home)
    before = state(root, home)
    done = _codemode(root, env, "regen", "--all", "--dry-run")
    assert done.returncode in (0, 1), done.stderr
    assert state(root, home) == before
    assert leftovers(env) == []
    out = done.stdout + done.stderr
    # spoil_git's first step (its folders) is stopped; the rest each at its own operation; a
    # path the function writes to is given the tmp_path fixture, and the report says why
    by_fixture = {"save": "`path`", "clear_cache": "`folder`", "log_event": "`logfile`"}
    _names_every_blocked_operation(out, {**BLOCKED, **by_fixture})
    assert "not explored" in out


def test_check_staged_and_base_change_nothing(tmp_path: Path) -> None:
    root = make(tmp_path / "repo")
    home = tmp_path / "home"
    env = run_env(tmp_path, home)
    base = git(root, "rev-parse", "HEAD").strip()
    change_every_function(root)
    git(root, "add", "src")
    before = state(root, home)
    staged = _codemode(root, env, "check", "--staged", "--fail-on", "none")
    assert staged.returncode == 0, staged.stdout + staged.stderr
    assert state(root, home) == before
    assert leftovers(env) == []
    # the behaviour diff compared none of them: each says why, never "no difference"
    out = staged.stdout + staged.stderr
    for function in BLOCKED:
        assert any(
            "not compared" in ln and "blocked" in ln
            for ln in out.splitlines()
            if f"hz.effects.{function}" in ln or "not compared" in ln
        ), (function, out[-3000:])
    git(root, "commit", "-qm", "change")
    before = state(root, home)
    ranged = _codemode(root, env, "check", "--base", base, "--fail-on", "none")
    assert ranged.returncode == 0, ranged.stdout + ranged.stderr
    assert state(root, home) == before
    assert leftovers(env) == []


@pytest.mark.skipif(not landlock.abi(), reason=landlock.why_not() or "no Landlock")
def test_a_ctypes_write_and_a_child_process_write_are_stopped_by_the_kernel(
    tmp_path: Path,
) -> None:
    root = make(tmp_path / "repo")
    # the project lets `shell` start processes: its child's write is the kernel's to stop
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text()
        + '\n[tool.codemode.effects.functions."hz.effects.shell"]\nsubprocess = true\n'
    )
    (root / "specs").mkdir()
    (root / "specs" / "hz.yml").write_text(
        "hz.effects.poke:\n  dataset:\n    - case: {id: a, input: x, expected: 3}\n"
        "hz.effects.shell:\n  dataset:\n    - case: {id: a, input: x, expected: 0}\n"
    )
    home = tmp_path / "home"
    env = run_env(tmp_path, home)
    before = state(root, home)
    done = _codemode(root, env, "check", "--all")
    assert done.returncode == 1, done.stdout + done.stderr
    assert state(root, home) == before
    assert not (root / "ctypes.txt").exists() and not (root / "shell.txt").exists()
    out = done.stdout
    assert "hz.effects.poke[a]: drifted: expected 3, observed -1" in out  # open() failed
    # the shell ran (allowed) and its redirection failed: a non-zero status, nothing written
    assert "hz.effects.shell[a]: drifted: expected 0, observed" in out
    assert "Landlock" not in done.stderr  # held, so nothing to warn about


def test_a_tmp_path_fixture_is_specced_by_regen_and_verified_by_check(tmp_path: Path) -> None:
    root = make(tmp_path / "repo")
    (root / "specs").mkdir()
    spec = root / "specs" / "hz.yml"
    spec.write_text(
        "fixtures:\n  path: {setup: codemode.tmp_path, args: [out.txt]}\n"
        "hz.effects.save:\n  fixture: [path]\n  dataset:\n"
        "    - case: {id: hi, inputs: {text: hi}, expected: 2}\n"
    )
    home = tmp_path / "home"
    env = run_env(tmp_path, home)
    before = state(root, home)
    regen = _codemode(root, env, "regen", "--function", "hz.effects.save")
    assert regen.returncode == 0, regen.stdout + regen.stderr
    written = spec.read_text()
    assert "generated: [" in written and written.count("- case:") > 2, written
    check = _codemode(root, env, "check", "specs/hz.yml")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "error" not in check.stdout and "passed" in check.stdout
    after = state(root, home)
    assert after["tree"].pop("specs/hz.yml") != before["tree"].pop("specs/hz.yml")  # type: ignore[union-attr]
    assert after == before
    assert leftovers(env) == []


def test_effects_allowed_on_purpose_pass_and_nothing_else_does(tmp_path: Path) -> None:
    root = make(tmp_path / "repo")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + '\n[tool.codemode.effects]\nwrites = ["logs/**"]\n'
    )
    (root / "logs").mkdir()
    (root / "specs").mkdir()
    (root / "specs" / "hz.yml").write_text(
        "hz.effects.log_event:\n  dataset:\n"
        "    - case: {id: allowed, inputs: [hi, logs/events.log], expected: HI}\n"
        "    - case: {id: not_allowed, inputs: [hi, other.log], expected: HI}\n"
    )
    done = _codemode(root, run_env(tmp_path, tmp_path / "home"), "check", "--all")
    assert done.returncode == 1
    assert (root / "logs" / "events.log").read_text() == "hi\n"
    assert not (root / "other.log").exists()
    assert "[not_allowed]: error: blocked: open('other.log', 'a')" in done.stdout
    assert "[allowed]" not in done.stdout  # passed


def test_a_bad_effects_table_is_one_line_naming_the_file(tmp_path: Path) -> None:
    root = make(tmp_path / "repo")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n[tool.codemode.effects]\nwrite = ['x']\n")
    done = _codemode(root, run_env(tmp_path, tmp_path / "home"), "check", "--all")
    assert done.returncode == 2
    line = done.stderr.strip()
    assert "\n" not in line and "pyproject.toml" in line and "unknown keys ['write']" in line


SLOW = """\
import time


def slow(x: int) -> int:
    time.sleep(30)
    return x
"""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_no_scratch_folder_is_left_after_an_interrupt(tmp_path: Path, signum: int) -> None:
    root = make(tmp_path / "repo")
    (root / "src" / "hz" / "slow.py").write_text(SLOW)
    (root / "specs").mkdir()
    (root / "specs" / "slow.yml").write_text(
        "hz.slow.slow:\n  dataset:\n    - case: {id: a, input: 1, expected: 1}\n"
    )
    env = run_env(tmp_path, tmp_path / "home")
    proc = subprocess.Popen(
        [sys.executable, "-m", "codemode", "check", "--all", "--timeout", "60"],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(Path(env["TMPDIR"]).glob("codemode-scratch-*/w*/tmp")):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    time.sleep(0.5)  # the worker is in the call
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    if signum == signal.SIGINT:
        assert proc.returncode == 130 and "interrupted" in err, (out, err)
    else:  # named in one line on the way out (signals.py, #33)
        assert proc.returncode == 143 and "stopped by SIGTERM" in err, (out, err)
    assert leftovers(env) == []


def test_a_run_removes_the_scratch_folder_a_killed_run_left(tmp_path: Path) -> None:
    root = make(tmp_path / "repo")
    env = run_env(tmp_path, tmp_path / "home")
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid that no process holds now
    left = Path(env["TMPDIR"]) / f"codemode-scratch-{gone.pid}-abc"
    (left / "w1" / "tmp").mkdir(parents=True)
    (left / "w1" / "tmp" / "junk").write_text("x")
    (root / "specs").mkdir()
    (root / "specs" / "hz.yml").write_text(
        "hz.effects.log_event:\n  dataset:\n    - case: {id: a, inputs: [hi], expected: HI}\n"
    )
    done = _codemode(root, env, "check", "--all")
    assert "blocked: open('events.log', 'a')" in done.stdout
    assert leftovers(env) == []


SWALLOW = """\
import ctypes
import os
import signal


def swallow(path: str) -> int:
    try:
        os.remove(path)
    except OSError:
        pass  # the refusal caught: the call still counts as blocked
    return 7


def stop_codemode(x: int) -> int:
    try:
        os.kill(os.getppid(), signal.SIGTERM)  # the worker's parent: codemode
    except OSError:
        pass
    return ctypes.CDLL(None, use_errno=True).kill(os.getppid(), signal.SIGTERM)
"""


@pytest.mark.skipif(landlock.abi() < 6, reason="Landlock scopes signals from ABI 6")
def test_a_caught_refusal_still_blocks_and_codemode_cannot_be_signalled(tmp_path: Path) -> None:
    root = make(tmp_path / "repo")
    (root / "src" / "hz" / "swallow.py").write_text(SWALLOW)
    (root / "specs").mkdir()
    (root / "specs" / "s.yml").write_text(
        "hz.swallow.swallow:\n  dataset:\n    - case: {id: a, input: pyproject.toml, expected: 7}\n"
        "hz.swallow.stop_codemode:\n  dataset:\n    - case: {id: a, input: 1, expected: -1}\n"
    )
    done = _codemode(root, run_env(tmp_path, tmp_path / "home"), "check", "--all")
    assert (root / "pyproject.toml").exists()
    assert "hz.swallow.swallow[a]: error: blocked: os.remove('pyproject.toml')" in done.stdout
    # os.kill is refused by the audit hook; the same signal through ctypes, by Landlock's scope
    assert "hz.swallow.stop_codemode[a]: error: blocked: os.kill(" in done.stdout
    assert done.returncode == 1, done.stderr  # a verdict, not a codemode killed by SIGTERM


def test_regen_gives_a_path_the_function_writes_to_the_tmp_path_fixture(tmp_path: Path) -> None:
    root = make(tmp_path / "repo")
    home = tmp_path / "home"
    env = run_env(tmp_path, home)
    before = state(root, home)
    ids = ("save", "clear_cache", "log_event")
    regen = _codemode(root, env, "regen", *(f"--function=hz.effects.{f}" for f in ids))
    assert regen.returncode == 0, regen.stdout + regen.stderr
    spec = root / "specs" / "hz.effects.yml"
    written = yaml.safe_load(spec.read_text())
    assert written["fixtures"] == {
        "path": {"setup": "codemode.tmp_path", "args": ["path.out"]},  # open(path, 'w')
        "folder": {"setup": "codemode.tmp_path"},  # shutil.rmtree(folder)
        "logfile": {"setup": "codemode.tmp_path", "args": ["logfile.out"]},
    }
    for function, param in zip(ids, ("path", "folder", "logfile")):
        block = written[f"hz.effects.{function}"]
        assert block["fixture"] == [param] and len(block["dataset"]) >= 1, function
    check = _codemode(root, env, "check", "--all")
    assert check.returncode == 0, check.stdout + check.stderr
    after = state(root, home)
    assert "specs/hz.effects.yml" in after["tree"]  # type: ignore[operator]
    for written_now in ("specs/hz.effects.yml", "specs/"):
        after["tree"].pop(written_now)  # type: ignore[union-attr]
    assert after == before  # cache/ and events.log as they were
    assert leftovers(env) == []


def test_a_run_says_which_layer_holds_where_landlock_does_not(tmp_path: Path) -> None:
    root = make(tmp_path / "repo")
    (root / "specs").mkdir()
    (root / "specs" / "hz.yml").write_text(
        "hz.effects.poke:\n  dataset:\n    - case: {id: a, input: x, expected: -1}\n"
    )
    env = run_env(tmp_path, tmp_path / "home", {"CODEMODE_WORKER_LANDLOCK": "0"})
    off = _codemode(root, env, "check", "--all")
    assert "the wall around the code under test: audit hook only (Landlock turned off" in off.stdout
    # the audit hook alone lets a write through ctypes pass: the note is no formality
    assert (root / "ctypes.txt").exists()
    (root / "ctypes.txt").unlink()
    if landlock.abi():
        on = _codemode(root, run_env(tmp_path, tmp_path / "home"), "check", "--all")
        assert on.returncode == 0 and "the wall around" not in on.stdout, on.stdout
        assert not (root / "ctypes.txt").exists()
