"""The Action leaves the job's Python exactly as the workflow set it up: a project that pins
pydantic<2 keeps pydantic 1 (codemode itself needs 2), and its specs pass because the project's
functions run with the job's interpreter. The steps of action.yml run as a runner runs them
(tests/github/composite.py), against the loopback GitHub. pydantic<2 comes from PyPI."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from composite import run_composite
from ghfake import FakeGitHub, actions_env, base_and_feature, payload

ROOT = Path(__file__).resolve().parents[2]

ITEMS = """\
import pydantic


class Item(pydantic.BaseModel):
    name: str
    qty: int = 1


def pydantic_major() -> str:
    return pydantic.VERSION.split(".")[0]


def parse(data: dict) -> dict:
    return Item.parse_obj(data).dict()  # pydantic 1's API
"""
SPEC = """\
legacy.items.pydantic_major:
  dataset:
    - case: {id: one, expected: "1"}
legacy.items.parse:
  dataset:
    - case: {id: coerces, input: {name: a, qty: "3"}, expected: {name: a, qty: 3}}
"""


def _job_python(tmp_path: Path) -> Path:
    """The job's Python as a workflow sets it up: a virtualenv with the project's pins."""
    env_dir = tmp_path / "job-python"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    subprocess.run(
        [str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", "pydantic<2"],
        check=True,
        timeout=600,
    )
    return env_dir / "bin"


def _freeze(bin_dir: Path) -> str:
    return subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "freeze", "--all"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _action_checkout(tmp_path: Path) -> Path:
    """The action as a runner downloads it (`uses: owner/codemode-action@v1`)."""
    dest = tmp_path / "_actions" / "codemode-action"
    dest.mkdir(parents=True)
    for name in ("action.yml", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(
        ROOT / "src", dest / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    return dest


def _project(root: Path) -> tuple[str, str]:
    (root / "src" / "legacy").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "legacy"\nversion = "0"\ndependencies = ["pydantic<2"]\n\n'
        '[tool.codemode]\nsource_roots = ["src"]\n'
    )
    (root / "src" / "legacy" / "__init__.py").write_text("")
    (root / "src" / "legacy" / "items.py").write_text(ITEMS.replace("qty: int = 1", "qty: int"))
    (root / "specs").mkdir()
    (root / "specs" / "items.yml").write_text(SPEC)
    return base_and_feature(root, root / "src" / "legacy" / "items.py", ITEMS, "qty defaults to 1")


@pytest.mark.slow
def test_action_keeps_the_jobs_python_and_runs_the_project_with_it(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    job_bin = _job_python(tmp_path)
    before = _freeze(job_bin)
    assert "pydantic==1." in before
    root = tmp_path / "repo"
    base, head = _project(root)
    event = payload("pull_request", tmp_path, BASE_SHA=base, HEAD_SHA=head)
    env = actions_env(tmp_path, fake_github, "pull_request", event)
    # a runner's job: the workflow's Python first on PATH, no virtualenv of the test's own
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    env["PATH"] = f"{job_bin}:/usr/local/bin:/usr/bin:/bin"
    env["RUNNER_TEMP"] = str(tmp_path / "runner-temp")
    env["RUNNER_TOOL_CACHE"] = str(tmp_path / "tool-cache")
    os.makedirs(env["RUNNER_TEMP"])
    action = _action_checkout(tmp_path)

    runs = run_composite(action, {"args": "--all"}, env, root, tmp_path)
    install, *rest = runs
    assert install.returncode == 0, install.stderr
    assert all(r.returncode == 0 for r in rest), [(r.name, r.stdout, r.stderr) for r in rest]

    assert _freeze(job_bin) == before  # not one package added, removed or upgraded
    outputs = {k: v for r in runs for k, v in r.outputs.items()}
    assert outputs["ok"] == "2" and outputs["error"] == "0" and outputs["drifted"] == "0"

    # a second job on the same (self-hosted) runner reuses the virtualenv in the tool cache
    venvs = list((tmp_path / "tool-cache" / "codemode-action").glob("*/.complete"))
    assert len(venvs) == 1
    built = venvs[0].stat().st_mtime_ns
    (tmp_path / "second").mkdir()
    again = run_composite(action, {"args": "--all"}, env, root, tmp_path / "second")
    assert all(r.returncode == 0 for r in again), [(r.name, r.stderr) for r in again]
    assert venvs[0].stat().st_mtime_ns == built
    assert _freeze(job_bin) == before
