"""Reviewed deletions stick (#12): a generated case deleted by hand is not generated again."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from codemode.check.run import run_check
from codemode.cli.main import main
from codemode.config import load_config
from codemode.scope import Scope
from codemode.specs.spec_files import load_spec_file

CLAMP = """\
def clamp(x: int, lo: int = 0, hi: int = 10) -> int:
    if x < lo:
        return lo
    return hi if x > hi else x
"""
README = Path(__file__).resolve().parents[2] / "README.md"


def _regen(root: Path) -> None:
    assert main(["regen", "--root", str(root), "--function", "num.clamp", "-q"]) == 0


def _ids(spec: Path, root: Path) -> list[str]:
    [func] = load_spec_file(spec, root).functions
    return [c.id for c in func.cases]


def test_a_deleted_generated_case_stays_deleted_until_its_id_leaves_the_list(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "num.py").write_text(CLAMP)
    (root / "pyproject.toml").write_text('[project]\nname = "num"\n')
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    spec = root / "specs" / "num.yml"
    _regen(root)
    first = _ids(spec, root)
    assert len(first) >= 3
    gone = first[1]
    # The reviewer deletes one generated case by hand.
    text = spec.read_text()
    line = next(ln for ln in text.splitlines(keepends=True) if f"{{id: {gone}," in ln)
    spec.write_text(text.replace(line, ""))
    _regen(root)
    assert gone not in _ids(spec, root)
    [func] = load_spec_file(spec, root).functions
    assert func.meta.deleted == (gone,) and gone not in func.meta.generated
    _regen(root)  # once recorded, it stays out on every later run
    assert gone not in _ids(spec, root)
    assert load_spec_file(spec, root).functions[0].meta.deleted == (gone,)
    assert {f.status for f in run_check(load_config(root), Scope("all")).functions} == {"ok"}
    # README's way back: take the id out of `deleted:` and regen the function.
    text = spec.read_text()
    spec.write_text(re.sub(r"\n\s*deleted: \[[^\]]*\]", "", text))
    _regen(root)
    assert gone in _ids(spec, root)
    assert load_spec_file(spec, root).functions[0].meta.deleted == ()


def test_readme_everyday_use_starts_with_the_bootstrap_and_says_how_to_restore_a_case() -> None:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Everyday use", 1)[1].split("\n## ", 1)[0]
    first_command = next(ln for ln in section.splitlines() if ln.startswith("codemode "))
    assert first_command.startswith("codemode regen --all")
    assert "deleted:" in section and "bring it back" in section
