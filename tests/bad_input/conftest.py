"""Run ``codemode check`` on a copy of tests/data/hazards with one bad spec beside a good one."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from codemode.cli.main import main
from codemode.render.terminal import render
from codemode.report import Report

HAZARDS = Path(__file__).parents[1] / "data" / "hazards"

GOOD = """
hazards.good.add:
  dataset:
    - case: {id: two, inputs: [1, 1], expected: 2}
"""


@dataclass(frozen=True)
class Error:
    file: str | None
    line: int | None
    message: str
    where: str  # "problem" | function id | "function[case]"


@dataclass
class Run:
    code: int
    report: dict[str, Any]
    text: str
    root: Path

    def status(self, fid: str) -> str:
        return next(str(f["status"]) for f in self.report["functions"] if f["id"] == fid)

    def errors(self) -> list[Error]:
        out = [
            Error(p["file"], p["line"], p["message"], "problem") for p in self.report["problems"]
        ]
        for f in self.report["functions"]:
            if f["status"] == "error" and not f["cases"]:
                out.append(Error(f["spec"], f["line"], f["message"], f["id"]))
            for c in f["cases"]:
                if c["status"] == "error":
                    out.append(Error(f["spec"], c["line"], c["message"], f"{f['id']}[{c['id']}]"))
        return out

    def one_error(self) -> Error:
        """The run reports exactly one error, and the good function beside it still passes."""
        errors = self.errors()
        assert len(errors) == 1, errors
        assert self.status("hazards.good.add") == "ok", self.text
        assert self.code == 1
        return errors[0]


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
