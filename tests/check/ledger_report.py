"""The ledger example's report, read by case: ``ledger.status("money.to_cents[whole]")``."""

from __future__ import annotations

from pathlib import Path

from codemode.report.model import CaseResult, FunctionResult, Report

LEDGER = Path(__file__).parents[1] / "data" / "ledger"


class Ledger:
    """The report of ``codemode check --all`` on a fresh copy of tests/data/ledger."""

    def __init__(self, root: Path, report: Report) -> None:
        self.root = root
        self.report = report
        self.functions = {f.id: f for f in report.functions}

    def function(self, fid: str) -> FunctionResult:
        return self.functions[f"ledger.{fid}"]

    def case(self, ref: str) -> CaseResult:
        """``money.to_cents[whole]`` -> that case's result."""
        fid, _, cid = ref.rstrip("]").partition("[")
        cases = {c.id: c for c in self.function(fid).cases}
        return cases[cid]

    def status(self, ref: str) -> str:
        return self.case(ref).status

    def log(self) -> list[str]:
        path = self.root / "fixture_log.txt"
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
