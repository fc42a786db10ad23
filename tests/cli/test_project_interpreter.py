"""The project's interpreter is the project's (#35): with codemode's own virtualenv active (as
after README's try-it), a ``.venv/`` in the repository still runs the project's code; the
import error names the interpreter that ran it and the fix that applies."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from gitkit import committed

pytestmark = pytest.mark.slow  # a virtualenv made per test, and the real CLI

CODEMODE = Path(sys.executable).parent / "codemode"
FEES = "from money_dep import RATE\n\n\ndef with_fee(price):\n    return round(price * (1 + RATE), 2)\n"
SPEC = "shop.fees.with_fee:\n  dataset:\n    - case: {id: basic, input: 100.0, expected: 110.0}\n"


def _project(root: Path) -> Path:
    files = {"src/shop/__init__.py": "", "src/shop/fees.py": FEES, "specs/fees.yml": SPEC}
    committed(root, {**files, ".gitignore": ".venv/\n"})
    return root


def _dot_venv(root: Path) -> Path:
    """A ``.venv/`` that holds the project's one dependency (codemode's own env lacks it)."""
    venv = root / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
    Path(purelib).mkdir(parents=True, exist_ok=True)
    (Path(purelib) / "money_dep.py").write_text("RATE = 0.1\n")
    return venv


def _check(root: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """``codemode check --all`` as typed in a shell where codemode's own venv is active."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CODEMODE_")}
    env.update(VIRTUAL_ENV=sys.prefix, PATH=f"{CODEMODE.parent}{os.pathsep}{env['PATH']}")
    return subprocess.run(
        [str(CODEMODE), "check", "--all", *flags],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_repositorys_venv_wins_over_codemodes_own_active_venv(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    _dot_venv(root)
    out = _check(root)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 function: 1 ok" in out.stdout, out.stdout


def test_the_import_error_names_the_interpreter_and_the_fix(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    out = _check(root)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "No module named 'money_dep'" in out.stdout
    # no .venv/: install into the interpreter that ran it (named), or make one
    assert f"the interpreter that ran it, {sys.executable}" in out.stdout, out.stdout
    assert "python -m venv .venv" in out.stdout


def test_a_chosen_interpreter_is_named_beside_the_unused_venv(tmp_path: Path) -> None:
    root = _project(tmp_path / "p")
    _dot_venv(root)
    out = _check(root, "--python", sys.executable)  # the user points elsewhere: obeyed
    assert out.returncode == 1, out.stdout + out.stderr
    assert f"codemode ran {sys.executable}, not the repository's .venv/" in out.stdout, out.stdout
    assert "point that at .venv/bin/python" in out.stdout
