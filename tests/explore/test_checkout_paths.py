"""A function whose output holds where the checkout is (a relative path made absolute against
the working directory): every gate run here agrees, and `check` on another clone fails. regen
leaves such a case out and says which path it holds; the other cases are written, and a
`check` of a clone in another folder passes (the benchmark's cached specs drifted so when its
temporary repository moved)."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from wallkit import codemode, git, run_env

SOURCE = '''\
import os


def where(name):
    """The file ``name`` as an absolute path, and its length."""
    return os.path.abspath(name)


def size(name):
    """How long the name is."""
    return len(name)
'''

TEST = """\
from hz.paths import size, where


def test_where():
    assert where("notes.txt").endswith("notes.txt")
    assert size("notes.txt") == 9
"""


def regen_all(
    tmp_path: Path, module: str, source: str, test: str
) -> tuple[Path, dict[str, str], str]:
    """A committed project with ``hz/<module>.py`` and its test, and what ``regen --all`` said
    there: (its root, the run's environment, the output)."""
    root = tmp_path / "repo"
    (root / "hz").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "hz" / "__init__.py").write_text("")
    (root / "hz" / f"{module}.py").write_text(source)
    (root / "tests" / f"test_{module}.py").write_text(test)
    (root / "pyproject.toml").write_text('[project]\nname = "hz"\nversion = "0"\n')
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    env = run_env(tmp_path, tmp_path / "home")
    regen = codemode(root, env, "regen", "--all")
    out = regen.stdout + regen.stderr
    assert regen.returncode in (0, 1), out
    return root, env, out


def test_an_output_holding_the_checkout_path_is_left_out_with_its_reason(tmp_path: Path) -> None:
    root, env, out = regen_all(tmp_path, "paths", SOURCE, TEST)
    said = [ln for ln in out.splitlines() if "would fail on another checkout" in ln]
    assert said and str(root.resolve()) in "\n".join(said), out
    written = yaml.safe_load((root / "specs" / "hz.paths.yml").read_text())
    assert str(root.resolve()) not in (root / "specs" / "hz.paths.yml").read_text()
    assert written["hz.paths.size"]["dataset"], written

    git(root, "add", ".")
    git(root, "commit", "-qm", "specs")
    clone = tmp_path / "elsewhere" / "clone"
    shutil.copytree(root, clone)
    check = codemode(clone, env, "check", "--all")
    assert check.returncode == 0, check.stdout + check.stderr


WALK = '''\
import os


def listing(top):
    """The files under ``top``, relative to it, the first eight in order."""
    out = []
    for folder, _, files in os.walk(top or "."):
        out += [os.path.relpath(os.path.join(folder, f), top or ".") for f in files]
    return sorted(out)[:8]


def size(name):
    """How long the name is."""
    return len(name)
'''

WALK_TEST = """\
from hz.walk import listing, size


def test_listing():
    assert isinstance(listing(""), list)
    assert size("notes.txt") == 9
"""


def test_an_output_listing_the_checkouts_files_is_left_out_with_its_reason(
    tmp_path: Path,
) -> None:
    """Called with "", a directory walk lists the working directory: the checkout itself, which
    every commit changes (a false drift on the very code the case was written from)."""
    root, _, out = regen_all(tmp_path, "walk", WALK, WALK_TEST)
    assert "lists this checkout's files" in out, out
    text = (root / "specs" / "hz.walk.yml").read_text()
    assert ".git/" not in text and "hz/walk.py" not in text, text
    assert yaml.safe_load(text)["hz.walk.size"]["dataset"], text
