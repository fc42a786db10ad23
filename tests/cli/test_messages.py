"""The text a user sees when something needs doing: each message says what differs, counts
one cause once, and suggests a command that does something for the scope that ran."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from codemode.cli.main import main
from gitkit import git


def _project(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["check", "--color", "never", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _env() -> dict[str, str]:
    return dict(os.environ)


# --- long drifted values: the window around the first difference -----------------------------

LONG = """
    def settings(decimal):
        return {"name": "report", "columns": ["a", "b", "c", "d", "e", "f", "g", "h"],
                "separator": ";", "quote": '"', "header": True, "encoding": "utf-8",
                "decimal": decimal}

    def poem(last):
        return "roses are red\\nviolets are blue\\nsugar is sweet\\n" + last
"""

LONG_SPEC = """
    m.settings:
      dataset:
        - case:
            id: long
            input: false
            expected: {name: report, columns: [a, b, c, d, e, f, g, h], separator: ";",
                       quote: '"', header: true, encoding: utf-8, decimal: true}
    m.poem:
      dataset:
        - case:
            id: lines
            input: and so are you
            expected: "roses are red\\nviolets are blue\\nsugar is sweet\\nand so am I"
"""


def test_long_drift_shows_the_differing_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, {"m.py": LONG, "specs/m.yml": LONG_SPEC})
    code, out, _ = _check(capsys, "--root", str(root))
    assert code == 1
    lines = out.splitlines()
    head = next(line for line in lines if "m.settings[long]: drifted" in line)
    # both sides are cut to the same window, which holds the difference, not the shared start
    assert head.endswith('"decimal": true}, observed …' + head.split("observed …")[1])
    assert '"decimal": true}' in head and '"decimal": false}' in head
    assert '"name": "report"' not in head


def test_multiline_string_drift_is_a_unified_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, {"m.py": LONG, "specs/m.yml": LONG_SPEC})
    _, out, _ = _check(capsys, "--root", str(root))
    assert "    --- expected\n    +++ observed\n" in out
    assert "    -and so am I\n    +and so are you\n" in out


# --- one problem per cause ------------------------------------------------------------------


def test_a_failed_import_is_one_line_with_a_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = "".join(
        f"pkg.mod.f{i}:\n  dataset:\n"
        + "".join(f"    - case: {{id: c{j}, input: 1, expected: 2}}\n" for j in range(4))
        for i in range(5)
    )
    root = _project(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/mod.py": "import not_installed_anywhere\n"},
    )
    (root / "specs").mkdir()
    (root / "specs" / "mod.yml").write_text(spec)
    code, out, _ = _check(capsys, "--root", str(root))
    assert code == 1
    errors = [line for line in out.splitlines() if "not_installed_anywhere" in line]
    assert len(errors) == 1, out
    assert errors[0].startswith("specs/mod.yml:3: error: cannot import pkg.mod: ")
    assert errors[0].endswith(
        "[20 cases in 5 functions: pkg.mod.f0, pkg.mod.f1, pkg.mod.f2 and 2 more]"
    )
    assert out.splitlines()[-1].startswith("codemode: 5 functions: 5 error; 20 cases: 20 error")


# --- hints built from the scope that ran ------------------------------------------------------


def test_hints_under_base_name_base(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _project(
        tmp_path,
        {
            "shop.py": "def price(x):\n    return x\n",
            "specs/shop.yml": "shop.price:\n  dataset:\n    - case: {id: one, input: 1, expected: 1}\n",
        },
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-qb", "feature")
    (root / "shop.py").write_text(
        "def price(x):\n    if x > 5:\n        return x - 1\n    return x\n\n\n"
        "def tax(x):\n    return x * 2\n"
    )
    git(root, "commit", "-qam", "feature")
    code, out, _ = _check(capsys, "--root", str(root), "--base", "main", "--no-diff")
    assert code == 0
    assert (
        "shop.tax: missing: added with no spec; run `codemode regen --base main` to write one"
        in out
    )
    assert "add a case or run `codemode regen --base main`" in out
    assert out.endswith("To write cases for the changed functions:\n  codemode regen --base main\n")
    assert "--staged" not in out


def test_no_regen_hint_without_a_change_scope(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path, {"m.py": LONG, "specs/m.yml": LONG_SPEC})
    _, out, _ = _check(capsys, "--root", str(root))
    assert "codemode regen" not in out


# --- an empty project, a misspelt table, no git -----------------------------------------------


def test_empty_project_says_where_it_looked_and_how_to_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(
        tmp_path,
        {
            "pyproject.toml": "[tool.codemode]\nspecs = ['evals/*.yml']\n",
            "src/pkg/m.py": "def f(x):\n    return x\n",
        },
    )
    code, out, _ = _check(capsys, "--root", str(root))
    assert code == 0
    assert out == (
        f"note: no spec files found under {root}: searched evals/*.yml "
        "(the `specs` globs of [tool.codemode])\n"
        "To write a first spec for every function (source roots: src, .):\n"
        "  codemode regen --all\n"
        "codemode: 0 functions" + out.rsplit("codemode: 0 functions", 1)[1]
    )


@pytest.mark.parametrize("name", ["codemod", "code-mode", "code_mode", "CodeMode", "codmode"])
def test_misspelt_tool_table_warns(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _project(
        tmp_path,
        {
            "pyproject.toml": f"[project]\nname = 'x'\n\n[tool.{name}]\nspecs = ['evals/*.yml']\n",
            "specs/m.yml": "math.sqrt:\n  dataset:\n    - case: {id: four, input: 16, expected: 4.0}\n",
        },
    )
    code, _, err = _check(capsys, "--root", str(root))
    assert code == 0
    assert err == (
        f"codemode: warning: {root / 'pyproject.toml'}:4: [tool.{name}] looks like a misspelt "
        "[tool.codemode]; codemode reads only [tool.codemode], so these settings are ignored\n"
    )


def test_other_tool_tables_do_not_warn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _project(
        tmp_path,
        {
            "pyproject.toml": "[tool.codemode]\n[tool.ruff]\n[tool.coverage.run]\n[tool.codespell]\n[tool.commitizen]\n[tool.mypy]\n",
            "specs/m.yml": "math.sqrt:\n  dataset:\n    - case: {id: four, input: 16, expected: 4.0}\n",
        },
    )
    _, _, err = _check(capsys, "--root", str(root))
    assert err == ""


def test_staged_outside_git_says_how_to_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    root = _project(tmp_path, {"pyproject.toml": "[tool.codemode]\n"})
    code, _, err = _check(capsys, "--root", str(root), "--staged")
    assert code == 2
    assert "pass --root" not in err
    assert err == (
        f"codemode: error: not a git repository: {root}; --staged, --base and --worktree "
        "compare git commits, so run `git init` (and commit) first, or check every spec "
        "without a scope: `codemode check`\n"
    )
