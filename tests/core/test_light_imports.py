"""The hook's common case stays light: a staged change that touches no spec'd function
is answered without importing the worker, the sandbox, YAML or pydantic."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codemode import compare
from codemode.worker import canonical
from gitkit import git

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "shop"
HEAVY = (
    "codemode.worker.canonical",
    "codemode.worker.runner",
    "codemode.check.verify",
    "codemode.check.assertions",
    "yaml",
    "pydantic",
)
# What a no-op hook run avoids besides: ~10 ms for dataclasses (with inspect), and tomllib
# once [tool.codemode] is in the config cache (the run before wrote it).
STARTUP = ("dataclasses", "inspect", "tomllib", "json", "shutil", "difflib")

PROBE = """
import sys
from codemode.cli.main import main
code = main(["check", "--staged", "-q"])
heavy = {heavy!r}
print("LOADED=" + ",".join(m for m in heavy if m in sys.modules))
"""


def test_compare_uses_the_workers_tags() -> None:
    assert compare.BYTES_TAG is canonical.BYTES_TAG
    assert compare.UNREPRESENTABLE_TAG is canonical.UNREPRESENTABLE_TAG



def _at_startup(modules: tuple[str, ...]) -> set[str]:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys; print(','.join(m for m in {modules!r} if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return set(out.split(",")) - {""}


def _loaded(repo: Path, modules: tuple[str, ...] = HEAVY) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=modules)],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next(ln for ln in out.splitlines() if ln.startswith("LOADED="))
    return [m for m in line.removeprefix("LOADED=").split(",") if m]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The shop, committed, with a new unspec'd function staged."""
    repo = tmp_path / "shop"
    shutil.copytree(EXAMPLE, repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    (repo / "src/shop/extra.py").write_text("def helper(x):\n    return x + 1\n")
    git(repo, "add", "-A")
    return repo


def test_a_change_to_an_unspecd_function_loads_no_verification_stack(repo: Path) -> None:
    assert _loaded(repo) == []
    # less what the interpreter loads by itself (a site .pth may import shutil, say)
    assert sorted(set(_loaded(repo, STARTUP)) - _at_startup(STARTUP)) == []
    # and when a spec'd function changes, the stack is there (the probe can see it)
    pricing = repo / "src/shop/pricing.py"
    pricing.write_text(
        pricing.read_text().replace("round(net * (1 + rate), 2)", "round(net * (1 + rate), 3)")
    )
    git(repo, "add", "-A")
    assert "codemode.check.verify" in _loaded(repo)


def test_report_json_of_the_no_op(repo: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "codemode", "check", "--staged", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0
    assert [(f["id"], f["status"]) for f in json.loads(out.stdout)["functions"]] == [
        ("shop.extra.helper", "missing")
    ]
