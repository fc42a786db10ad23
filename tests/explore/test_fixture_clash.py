"""Two functions of one module whose path parameters share a name but need different
``codemode.tmp_path`` fixtures (a folder to remove, a file to write): the spec file holds one
``fixtures: path:``. regen writes the first and says why the second got no cases; before, the
second's cases were written under the first's fixture and failed on the code they were
written from (IsADirectoryError), or were refused with no reason given."""

from __future__ import annotations

from pathlib import Path

import yaml

from wallkit import codemode, git, run_env

FILES = '''\
import shutil


def wipe(path):
    """Remove the folder ``path`` and say so."""
    shutil.rmtree(path)
    return True


def save(path, text):
    """Write ``text`` to the file ``path``; the number of characters written."""
    with open(path, "w") as fh:
        return fh.write(text)
'''


def test_a_fixture_name_two_functions_need_differently_is_refused_with_its_reason(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    (root / "hz").mkdir(parents=True)
    (root / "hz" / "__init__.py").write_text("")
    (root / "hz" / "files.py").write_text(FILES)
    (root / "pyproject.toml").write_text('[project]\nname = "hz"\nversion = "0"\n')
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    env = run_env(tmp_path, tmp_path / "home")

    regen = codemode(root, env, "regen", "--all")
    out = regen.stdout + regen.stderr
    assert regen.returncode == 0, out
    written = yaml.safe_load((root / "specs" / "hz.files.yml").read_text())
    (kept,) = [f for f in ("wipe", "save") if f"hz.files.{f}" in written]
    other = "save" if kept == "wipe" else "wipe"
    clash = [ln for ln in out.splitlines() if f"hz.files.{other}" in ln and "fixture `path`" in ln]
    assert clash and "missing" in "\n".join(clash), out
    assert written[f"hz.files.{kept}"]["fixture"] == ["path"]
    check = codemode(root, env, "check", "--all")
    assert check.returncode == 0, check.stdout + check.stderr  # no false drift
