"""Spec writes under attack and under contention: no loop, no lost edit, no lost comment, and
a symlinked spec stays a link with its target's mode."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from security_kit import assert_contained, check, make_project, run_cli

VICTIM = """
def add(a: int, b: int) -> int:
    if a > b:
        return a - b
    return a + b


def mul(a: int, b: int) -> int:
    return a * b
"""
FLOW_TOP = (
    "{hazards.victim.add: {dataset: [{case: {id: mine, inputs: [1, 2], expected: 3}}]},"
    " hazards.victim.mul: {dataset: [{case: {id: m, inputs: [2, 3], expected: 6}}]}}\n"
)
SPEC = """\
# Hand-written: the arithmetic of the victim module.
hazards.victim.add:
  # keep: the order of a and b matters
  dataset: [
    {case: {id: mine, inputs: [1, 2], expected: 3}},  # the smallest sum
    {case: {id: drift, inputs: [5, 1], expected: 6}},  # wrong on purpose: accept fixes it
  ]
hazards.victim.mul:
  dataset:
    - case: {id: m, inputs: [2, 3], expected: 6}  # hand-written too
"""


def _cases(path: Path, fid: str) -> dict[str, object]:
    data = yaml.safe_load(path.read_text())
    return {c["case"]["id"]: c["case"].get("expected") for c in data[fid]["dataset"]}


def test_regen_of_a_one_line_flow_spec_ends(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"flow.yml": FLOW_TOP}, modules={"victim": VICTIM})
    run = run_cli(root, "regen", "--function", "hazards.victim.add", "--format", "json", timeout=60)
    assert_contained(run, codes=(0,))
    spec = root / "specs" / "flow.yml"
    assert _cases(spec, "hazards.victim.mul") == {"m": 6}
    add = _cases(spec, "hazards.victim.add")
    assert add["mine"] == 3 and len(add) > 3
    assert_contained(check(root), codes=(0,))


def _popen(root: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "codemode", *args],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )


def test_two_regens_and_an_accept_on_one_spec_all_land(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"v.yml": SPEC}, modules={"victim": VICTIM})
    spec = root / "specs" / "v.yml"
    for _ in range(4):
        spec.write_text(SPEC)
        procs = [
            _popen(root, "regen", "--function", "hazards.victim.add"),
            _popen(root, "regen", "--function", "hazards.victim.mul"),
            _popen(root, "accept", "hazards.victim.add[drift]"),
        ]
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err.decode()
        text = spec.read_text()
        add, mul = _cases(spec, "hazards.victim.add"), _cases(spec, "hazards.victim.mul")
        assert add["mine"] == 3 and mul["m"] == 6, text  # hand-written cases survive
        assert add["drift"] == 4, text  # accept's edit landed
        assert len(add) > 2 and len(mul) > 1, text  # both regens' edits landed
        for comment in (
            "# Hand-written: the arithmetic",
            "# keep: the order of a and b matters",
            "# the smallest sum",
            "# wrong on purpose",
            "# hand-written too",
        ):
            assert comment in text, text
    assert_contained(check(root), codes=(0,))


def test_a_symlinked_spec_stays_a_link_and_keeps_its_mode(tmp_path: Path) -> None:
    root = make_project(tmp_path, modules={"victim": VICTIM}, commit=False)
    target = root / "shared" / "v.yml"
    target.parent.mkdir()
    target.write_text(SPEC)
    target.chmod(0o640)
    link = root / "specs" / "v.yml"
    link.symlink_to(os.path.relpath(target, link.parent))
    run = run_cli(root, "accept", "hazards.victim.add[drift]", "--format", "json")
    assert run.code == 0, run.err
    assert link.is_symlink()
    assert _cases(target, "hazards.victim.add")["drift"] == 4
    assert target.stat().st_mode & 0o777 == 0o640


HOLDER = """
import sys, time
from pathlib import Path
from codemode.lock import locked
spec = Path(sys.argv[1])
with locked(spec, spec.parents[1]) as target:
    text = target.read_text()
    Path(sys.argv[2]).write_text("locked")
    time.sleep(4)  # a slow writer: regen must wait for it, then build on what it wrote
    target.write_text(text + "# the other writer was here\\n")
"""


@pytest.mark.slow  # the other writer holds the lock for 4 s
def test_a_writer_that_holds_the_lock_is_waited_for_and_built_upon(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"v.yml": SPEC}, modules={"victim": VICTIM})
    spec, flag = root / "specs" / "v.yml", tmp_path / "flag"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(spec), str(flag)])
    while not flag.exists():
        assert holder.poll() is None
    run = run_cli(root, "regen", "--function", "hazards.victim.mul", "--format", "json")
    assert holder.wait(timeout=30) == 0
    assert run.code == 0, run.err
    text = spec.read_text()
    assert "# the other writer was here" in text, text
    assert len(_cases(spec, "hazards.victim.mul")) > 1, text
