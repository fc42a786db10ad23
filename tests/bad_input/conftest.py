"""Run ``codemode check`` on a copy of tests/data/hazards with one bad spec beside a good one."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hazard_run import HAZARDS, Run

from codemode.cli.main import main
from codemode.report.model import Report
from codemode.report.terminal import render

GOOD = """
hazards.good.add:
  dataset:
    - case: {id: two, inputs: [1, 1], expected: 2}
"""


@pytest.fixture
def check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """``check(bad_yaml)`` writes specs/bad.yml (bad item + the good function) and runs."""

    def run(
        bad: str | bytes,
        *,
        good_inline: bool = True,
        extra: tuple[str, ...] = (),
        setup: Callable[[Path], object] | None = None,
    ) -> Run:
        root = tmp_path / "hazards"
        if not root.exists():
            shutil.copytree(HAZARDS, root, ignore=shutil.ignore_patterns("__pycache__"))
        if setup is not None:
            setup(root)
        spec = root / "specs" / "bad.yml"
        if isinstance(bad, bytes):
            spec.write_bytes(bad)
        else:
            spec.write_text(bad + (GOOD if good_inline else ""), encoding="utf-8")
        if good_inline and not isinstance(bad, bytes):
            (root / "specs" / "good.yml").unlink(missing_ok=True)
        capsys.readouterr()
        code = main(["check", "--root", str(root), "--all", "--format", "json", *extra])
        out = capsys.readouterr().out
        report = json.loads(out)
        return Run(code, report, render(Report.from_dict(report)), root)

    return run
