"""The hook's private virtualenv lacks the project's dependencies: which Python runs the code."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from hookkit import Project

from codemode.config import Config
from codemode.worker.python import (
    find_python,
    in_pre_commit_env,
    interpreter_hint,
    missing_module_hint,
)

# end to end: seconds each (deselect with -m "not slow")
pytestmark = pytest.mark.slow

HOOK_PREFIX = "/home/u/.cache/pre-commit/repo1a2b3c/py_env-python3.11"
MISSING = "ModuleNotFoundError: No module named 'money'"


def _fake_venv(root: Path, name: str = ".venv") -> Path:
    python = root / name / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    return python


def test_pre_commit_envs_are_recognised(tmp_path: Path) -> None:
    assert in_pre_commit_env({}, prefix=HOOK_PREFIX)
    assert in_pre_commit_env({"VIRTUAL_ENV": HOOK_PREFIX}, prefix="/usr")
    custom = {"PRE_COMMIT_HOME": str(tmp_path), "VIRTUAL_ENV": str(tmp_path / "repoX" / "env")}
    assert in_pre_commit_env(custom, prefix="/usr")
    assert not in_pre_commit_env({"VIRTUAL_ENV": "/work/proj/.venv"}, prefix="/usr")


def test_find_python_skips_pre_commits_env_under_a_custom_home(tmp_path: Path) -> None:
    home = tmp_path / "pc-home"
    _fake_venv(home / "repoX", "py_env-python3")
    project_python = _fake_venv(tmp_path)
    env = {"PRE_COMMIT_HOME": str(home), "VIRTUAL_ENV": str(home / "repoX" / "env")}
    assert find_python(tmp_path, None, env) == str(project_python)


def test_hint_when_nothing_is_found_inside_pre_commit(tmp_path: Path) -> None:
    hint = interpreter_hint(Config(root=tmp_path), {}, prefix=HOOK_PREFIX)
    assert hint is not None
    assert 'python = ".venv/bin/python"' in hint and "[tool.codemode]" in hint
    assert "CODEMODE_PYTHON" in hint
    # Given a missing-module message, the run-level hint is the same decision.
    config = Config(root=tmp_path)
    assert missing_module_hint(config, ["x", MISSING], {}) == interpreter_hint(config, {})


@pytest.mark.parametrize("why", ["configured", "env", "dot-venv", "outside-pre-commit"])
def test_no_hint_when_an_interpreter_is_set_or_found(tmp_path: Path, why: str) -> None:
    config, env, prefix = Config(root=tmp_path), {}, HOOK_PREFIX
    if why == "configured":
        config = config.replace(python=sys.executable)
    elif why == "env":
        env = {"CODEMODE_PYTHON": sys.executable}
    elif why == "dot-venv":
        _fake_venv(tmp_path)
    else:
        prefix = "/usr"
    assert interpreter_hint(config, env, prefix=prefix) is None


def test_no_hint_for_other_errors(tmp_path: Path) -> None:
    config = Config(root=tmp_path)
    assert missing_module_hint(config, ["ValueError: bad", "SyntaxError: x"], {}) is None


PRICING_WITH_DEP = """\
from money_dep import RATE


def with_fee(price: float) -> float:
    return round(price * (1 + RATE), 2)
"""
SPEC_WITH_DEP = (
    "shop.fees.with_fee:\n  dataset:\n    - case: {id: basic, input: 100.0, expected: 110.0}\n"
)


def _stage_dep_user(project: Project) -> None:
    project.write("src/shop/fees.py", PRICING_WITH_DEP)
    project.write("specs/fees.yml", SPEC_WITH_DEP)
    project.git("add", "src/shop/fees.py", "specs/fees.yml")


def test_hook_says_how_to_set_the_interpreter(project: Project) -> None:
    _stage_dep_user(project)
    out = project.pre_commit("codemode-check", "--all-files")
    assert out.returncode == 1, out.output
    assert "No module named 'money_dep'" in out.output
    assert 'python = ".venv/bin/python"' in out.output


def test_hook_runs_the_code_with_the_projects_venv(project: Project) -> None:
    """The project's .venv has a dependency the hook's env lacks; the worker must use it."""
    venv = project.root / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
    Path(purelib).mkdir(parents=True, exist_ok=True)
    (Path(purelib) / "money_dep.py").write_text("RATE = 0.1\n")
    project.write(".gitignore", ".venv/\n")
    project.git("add", ".gitignore")
    _stage_dep_user(project)

    out = project.commit("fees")

    assert out.returncode == 0, out.output
