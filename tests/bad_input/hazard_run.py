"""What one ``codemode check`` run on the hazards project reported, read as errors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

HAZARDS = Path(__file__).parents[1] / "data" / "hazards"


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
