"""Spec writes never leave the repository (#21): ``accept`` and ``regen`` refuse a spec whose
symlink resolves outside it, and regen creates no folder or file outside it."""

from __future__ import annotations

import os
from pathlib import Path

from security_kit import git, make_project, run_cli

CALC = """
def add(a: int, b: int) -> int:
    return a + b
"""
DRIFTED = """\
hazards.calc.add:
  dataset:
    - case: {id: drift, inputs: [1, 2], expected: 4}
"""


def test_accept_refuses_a_spec_linked_outside_the_repository(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "t.yml"
    outside.parent.mkdir()
    outside.write_text(DRIFTED)
    root = make_project(tmp_path, modules={"calc": CALC}, commit=False)
    os.symlink(outside, root / "specs" / "calc.yml")
    git(root, "init", "-q", "-b", "main")
    run = run_cli(root, "accept", "hazards.calc.add[drift]")
    assert run.code == 2, (run.code, run.out, run.err)
    assert "Traceback" not in run.err
    assert "specs/calc.yml" in run.err and "outside the repository" in run.err, run.err
    assert outside.read_text() == DRIFTED


def test_regen_creates_nothing_outside_through_a_dangling_link(tmp_path: Path) -> None:
    far = tmp_path / "far"
    root = make_project(tmp_path, modules={"calc": CALC}, commit=False)
    os.symlink(far / "a" / "b" / "t.yml", root / "specs" / "hazards.calc.yml")
    git(root, "init", "-q", "-b", "main")
    run = run_cli(root, "regen", "--all", "--format", "json", timeout=120)
    assert run.code in (1, 2), (run.code, run.err[-2000:])
    assert "Traceback" not in run.err, run.err[-2000:]
    assert not far.exists(), sorted(p.as_posix() for p in far.rglob("*"))
    assert "outside the repository" in run.out + run.err, (run.out[-2000:], run.err[-2000:])


def test_a_link_inside_the_repository_is_still_edited(tmp_path: Path) -> None:
    root = make_project(tmp_path, modules={"calc": CALC}, commit=False)
    real = root / "specs" / "real" / "calc.yml"
    real.parent.mkdir()
    real.write_text(DRIFTED)
    os.symlink(Path("real") / "calc.yml", root / "specs" / "calc.yml")
    git(root, "init", "-q", "-b", "main")
    # Both names reach the block; the real file is the one to edit.
    run = run_cli(root, "accept", "hazards.calc.add[drift]")
    assert run.code == 0, (run.code, run.out, run.err)
    assert "expected: 3" in real.read_text()
    assert (root / "specs" / "calc.yml").is_symlink()
