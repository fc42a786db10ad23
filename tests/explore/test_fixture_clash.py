"""Two functions of one module whose path parameters share a name but need different
``codemode.tmp_path`` fixtures (a folder to remove, a file to write): the spec file holds one
``fixtures: path:``. regen writes the first and says why the second got no cases; before, the
second's cases were written under the first's fixture and failed on the code they were
written from (IsADirectoryError), or were refused with no reason given."""

from __future__ import annotations

from pathlib import Path

import yaml

from wallkit import codemode, git, run_env, state

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


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "hz").mkdir(parents=True)
    (root / "hz" / "__init__.py").write_text("")
    (root / "hz" / "files.py").write_text(FILES)
    (root / "pyproject.toml").write_text('[project]\nname = "hz"\nversion = "0"\n')
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    return root


def test_a_fixture_name_two_functions_need_differently_is_refused_with_its_reason(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path)
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


def test_a_dry_run_leaves_out_only_the_update_whose_fixture_name_is_taken(tmp_path: Path) -> None:
    # A dry run writes nothing as it goes: both functions' gates pass on the file without a
    # `path`, and their updates meet only in the preview. The one that comes second is left
    # out with its reason; the other's edit is still shown, and nothing is written.
    root = _project(tmp_path)
    home = tmp_path / "home"
    env = run_env(tmp_path, home)
    before = state(root, home)
    regen = codemode(root, env, "regen", "--all", "--dry-run")
    out = regen.stdout + regen.stderr
    assert regen.returncode == 0, out
    assert "would not load" not in out, out
    missing = [ln for ln in out.splitlines() if "fixture `path`" in ln and "missing" in ln]
    assert len(missing) == 1, out
    other = "save" if "hz.files.save" in missing[0] else "wipe"
    kept = "wipe" if other == "save" else "save"
    assert f"+hz.files.{kept}:" in out and f"+hz.files.{other}:" not in out, out
    assert state(root, home) == before
