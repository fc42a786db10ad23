"""A package that fails to import is one verdict for every function under it, in every scope,
printed once with what to install (#23). semantic_version 2.10.0's ``__init__`` imports its
submodule and then reads its own distribution's metadata, which fails until the project is
installed; Python keeps the submodule in sys.modules, so the first function errored and the
later ones passed, and `check --all` disagreed with `check FILE` on unchanged code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode.cli.main import main
from gitkit import git

INIT = """\
from .base import Version, compare

__version__ = __import__("importlib.metadata").metadata.version("semv_not_installed")
"""
BASE = """\
class Version:
    def __init__(self, text: str) -> None:
        self.parts = tuple(int(p) for p in text.split("."))

    def bump(self) -> str:
        return f"{self.parts[0] + 1}.0.0"


def compare(a: str, b: str) -> int:
    pa, pb = Version(a).parts, Version(b).parts
    return (pa > pb) - (pa < pb)


def parse(text: str) -> list:
    return list(Version(text).parts)
"""
FIELDS = "def field_name(x: str) -> str:\n    return x.lower()\n"
BASE_SPEC = """\
fixtures:
  v: {cls: semv.base.Version, args: ["1.2.3"]}
semv.base.compare:
  dataset:
    - case: {id: lt, inputs: ["1.0.0", "2.0.0"], expected: -1}
semv.base.parse:
  dataset:
    - case: {id: p, inputs: ["1.2.3"], expected: [1, 2, 3]}
semv.base.Version.bump:
  fixture: [v]
  dataset:
    - case: {id: b, inputs: [], expected: "2.0.0"}
"""
FIELDS_SPEC = (
    "semv.fields.field_name:\n  dataset:\n    - case: {id: f, inputs: [AB], expected: ab}\n"
)
IDS = {"semv.base.compare", "semv.base.parse", "semv.base.Version.bump", "semv.fields.field_name"}


@pytest.fixture
def semv(tmp_path: Path) -> Path:
    root = tmp_path / "semv"
    files = {
        "pyproject.toml": '[tool.codemode]\nsource_roots = ["src"]\n',
        "src/semv/__init__.py": INIT,
        "src/semv/base.py": BASE,
        "src/semv/fields.py": FIELDS,
        "specs/semv.base.yml": BASE_SPEC,
        "specs/semv.fields.yml": FIELDS_SPEC,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def _verdicts(capsys: pytest.CaptureFixture[str], root: Path, *scope: str) -> dict[str, str]:
    capsys.readouterr()
    code = main(["check", "--root", str(root), "--format", "json", *scope])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    return {
        f["id"]: f"{f['status']}: " + " | ".join(c.get("message", "") for c in f["cases"])
        for f in report["functions"]
    }


def test_every_function_of_the_package_gets_one_verdict_in_every_scope(
    semv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    everything = _verdicts(capsys, semv, "--all")
    one_file = _verdicts(capsys, semv, str(semv / "specs" / "semv.base.yml"))
    for rel, old, new in (
        ("src/semv/base.py", 'split(".")', 'strip().split(".")'),
        ("src/semv/base.py", "(pa > pb)", "int(pa > pb)"),
        ("src/semv/fields.py", "x.lower()", "x.strip().lower()"),
    ):
        (semv / rel).write_text((semv / rel).read_text().replace(old, new))
    git(semv, "add", "-A")
    staged = _verdicts(capsys, semv, "--staged")
    assert staged.pop("semv.base.Version.__init__").startswith("missing")  # no spec of its own
    # Version.bump reads self.parts, which the changed constructor sets (#32)
    assert set(everything) == IDS and set(staged) == set(one_file) | {"semv.fields.field_name"}
    verdicts = {*everything.values(), *one_file.values(), *staged.values()}
    assert len(verdicts) == 1, verdicts  # the same error, whatever ran first
    (verdict,) = verdicts
    assert verdict.startswith("error: cannot import semv: PackageNotFoundError: ")
    assert "at src/semv/__init__.py:3" in verdict
    assert "-m pip install -e .`" in verdict and "make a .venv/" in verdict


@pytest.mark.parametrize("scope", ["--all", "FILE", "--staged"])
def test_the_terminal_says_it_once(
    semv: Path, capsys: pytest.CaptureFixture[str], scope: str
) -> None:
    argv = [scope]
    if scope == "FILE":
        argv = [str(semv / "specs" / "semv.base.yml")]
    elif scope == "--staged":
        for rel, old, new in (
            ("src/semv/base.py", 'split(".")', 'strip().split(".")'),
            ("src/semv/fields.py", "x.lower()", "x.strip().lower()"),
        ):
            (semv / rel).write_text((semv / rel).read_text().replace(old, new))
        git(semv, "add", "-A")
    capsys.readouterr()
    assert main(["check", "--root", str(semv), *argv, "--color", "never"]) == 1
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if "cannot import semv" in ln]
    assert len(lines) == 1, out
    if scope == "--all":
        assert lines[0].endswith(
            "[4 cases in 4 functions: semv.base.Version.bump, semv.base.compare, "
            "semv.base.parse and 1 more]"
        )


def test_a_bootstrap_counts_the_functions_by_cause(
    semv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for spec in (semv / "specs").iterdir():
        spec.unlink()
    capsys.readouterr()
    assert main(["regen", "--root", str(semv), "--all", "--dry-run"]) == 0
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if "cannot import semv" in ln]
    assert len(lines) == 2, out  # the functions' line and the summary's
    assert lines[0].startswith("missing  4 functions: cannot import semv: PackageNotFoundError")
    assert "-m pip install -e .`" in lines[0]
    assert "4 without cases (4 cannot import semv (PackageNotFoundError))" in lines[1]
