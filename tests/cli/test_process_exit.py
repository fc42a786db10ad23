"""Leaving without the interpreter's teardown (#36, cli/process_exit.py): the exit status, the
output (a pipe's worth and more) and the ``atexit`` handlers are as the usual exit gives; a
thread that is not a daemon is still waited for. Real processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_the_status_the_output_and_the_exit_handlers_are_kept() -> None:
    proc = _run(
        "import atexit, sys\n"
        "atexit.register(lambda: print('bye'))\n"
        "atexit.register(lambda: sys.stderr.write('err'))\n"
        "print('x' * 200_000)\n"
        "from codemode.cli.process_exit import leave\n"
        "leave(3)\n"
    )
    assert proc.returncode == 3
    assert proc.stdout == "x" * 200_000 + "\nbye\n"
    assert proc.stderr == "err"


def test_a_thread_that_is_not_a_daemon_is_waited_for(tmp_path: Path) -> None:
    done = tmp_path / "done"
    proc = _run(
        "import threading, time\n"
        f"def late():\n    time.sleep(0.3)\n    open({str(done)!r}, 'w').close()\n"
        "threading.Thread(target=late).start()\n"
        "from codemode.cli.process_exit import leave\n"
        "leave(0)\n"
    )
    assert proc.returncode == 0
    assert done.exists()


def test_the_command_leaves_with_its_report_and_its_status(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "empty"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "codemode", "check", "--all", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "no spec files found" in proc.stdout
