"""``--staged`` judges what will be committed, ``--base`` what the head commit holds (#21): a spec
file that is untracked, unstaged or removed from the index does not exist for them."""

from __future__ import annotations

from pathlib import Path

from security_kit import assert_contained, git, make_project, run_cli

CALC = """
def add(a: int, b: int) -> int:
    return a + b
"""
CALC_SPEC = """
hazards.calc.add:
  dataset:
    - case: {id: two, inputs: [1, 1], expected: 2}
"""


def _staged(root: Path) -> dict[str, str]:
    run = run_cli(root, "check", "--staged", "--format", "json", "--fail-on", "drifted,missing")
    assert_contained(run, codes=(0, 1))
    return {f["id"]: f["status"] for f in run.report["functions"]}


def test_an_untracked_spec_does_not_cover_a_staged_function(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    (root / "src" / "hazards" / "calc.py").write_text(CALC)
    git(root, "add", "src/hazards/calc.py")
    (root / "specs" / "calc.yml").write_text(CALC_SPEC)  # written, never staged
    assert _staged(root)["hazards.calc.add"] == "missing"
    git(root, "add", "specs/calc.yml")
    assert _staged(root)["hazards.calc.add"] == "ok"


def test_a_spec_removed_from_the_index_is_absent(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"calc.yml": CALC_SPEC}, modules={"calc": CALC})
    git(root, "rm", "-q", "--cached", "specs/calc.yml")
    (root / "src" / "hazards" / "calc.py").write_text(CALC.replace("a + b", "b + a"))
    git(root, "add", "src/hazards/calc.py")
    assert _staged(root)["hazards.calc.add"] == "missing"


def test_an_unstaged_spec_edit_is_not_what_is_judged(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"calc.yml": CALC_SPEC}, modules={"calc": CALC})
    (root / "src" / "hazards" / "calc.py").write_text(CALC.replace("a + b", "a + b + 1"))
    git(root, "add", "src/hazards/calc.py")
    # The work tree's spec agrees with the new code, the staged one does not.
    (root / "specs" / "calc.yml").write_text(CALC_SPEC.replace("expected: 2", "expected: 3"))
    assert _staged(root)["hazards.calc.add"] == "drifted"


def test_base_reads_specs_from_the_head_commit(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    git(root, "checkout", "-q", "-b", "feature")
    (root / "src" / "hazards" / "calc.py").write_text(CALC)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "calc")
    (root / "specs" / "calc.yml").write_text(CALC_SPEC)  # in the work tree only
    run = run_cli(root, "check", "--base", "main", "--format", "json", "--fail-on", "missing")
    assert_contained(run, codes=(1,))
    assert run.status("hazards.calc.add") == "missing"
