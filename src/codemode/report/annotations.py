"""GitHub workflow-command annotations (``::error file=…,line=…::msg``) on spec lines.

GitHub shows at most 10 error and 10 warning annotations per step, and drops the rest
silently; so we emit the 10 most important of each ourselves and end with a notice that
says how many were left out, rather than let GitHub choose which ones a reader sees.

The runner reads every line a step prints, on stdout and stderr, as a possible workflow
command: a line that starts with ``::`` (after spaces), or holds ``##[`` (the legacy form),
can set outputs, mask values or stop command processing. Each value in a command is escaped
as the actions toolkit does (``escape_data``, ``escape_property``); any other text that may
hold report data goes through ``log_safe`` (``codemode.logsafe``) before it is printed.
"""

from __future__ import annotations

from dataclasses import dataclass

from codemode.logsafe import log_safe
from codemode.report.model import FAILING_CASE_ORDER, STATUS_ORDER, Report
from codemode.scope import regen_command

MAX_PER_LEVEL = 10
_WARNING_VERDICTS = ("orphaned", "missing", "stale", "unstable")
__all__ = ["Annotation", "escape_data", "escape_property", "log_safe", "render_annotations"]


@dataclass(frozen=True)
class Annotation:
    level: str  # "error" | "warning" | "notice"
    message: str
    file: str | None = None
    line: int | None = None
    title: str | None = None

    def command(self) -> str:
        props = [
            f"{k}={escape_property(str(v))}"
            for k, v in (("file", self.file), ("line", self.line), ("title", self.title))
            if v is not None
        ]
        head = f"::{self.level}" + (" " + ",".join(props) if props else "")
        return f"{head}::{escape_data(self.message)}"


def escape_data(text: str) -> str:
    """Escape a command's message the way @actions/core does (``%``, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Property values additionally escape ``:`` and ``,``, which delimit properties."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def build_annotations(report: Report, limit: int = MAX_PER_LEVEL) -> list[Annotation]:
    """At most ``limit`` errors and ``limit`` warnings, most important first, then a notice."""
    errors: list[tuple[tuple[int, int], Annotation]] = []
    warnings: list[tuple[tuple[int, int], Annotation]] = []
    for p in report.problems:
        errors.append(((-1, 0), Annotation("error", p.message, p.file, p.line, "codemode: spec")))
    for f in report.sorted_functions():
        rank = STATUS_ORDER.get(f.status, 9)
        failing = [c for c in f.cases if c.status in FAILING_CASE_ORDER]
        for c in failing:
            text = c.message or f"{c.status}: expected {c.expected!r}, observed {c.observed!r}"
            if c.call:
                text = f"{c.call}: {text}"
            if c.diff:
                text += "\n" + c.diff
            title = f"codemode: {f.id}[{c.id}] {c.status}"
            # a message alone changed (#32): it fails only on request
            level, into = (
                ("warning", warnings) if f.status == "message_changed" else ("error", errors)
            )
            order = (rank, FAILING_CASE_ORDER[c.status])
            into.append((order, Annotation(level, text, f.spec, c.line, title)))
        if f.witnesses:  # the behaviour diff (#18): one annotation per function, on its source
            from codemode.report.witness import MAX_SHOWN, only_messages, witness_text

            text = "\n".join(witness_text(w, 200) for w in f.witnesses[:MAX_SHOWN])
            more = len(f.witnesses) - MAX_SHOWN
            if more > 0:
                text += f"\n... and {more} more"
            if only_messages(f.witnesses):  # fails only on request (#32): a warning
                title = f"codemode: {f.id} exception message changed"
                warnings.append(((rank, 0), Annotation("warning", text, f.path, None, title)))
            else:
                title = f"codemode: {f.id} behaviour changed"
                errors.append(((rank, 0), Annotation("error", text, f.path, None, title)))
        if f.status == "error" and not failing:
            text = f.message or "error"
            errors.append(
                ((rank, 0), Annotation("error", text, f.spec, f.line, f"codemode: {f.id} error"))
            )
        elif f.status in _WARNING_VERDICTS:
            text = f.message or _warning_text(f.status, f.renamed_to, report)
            file, line = (f.spec, f.line) if f.spec else (f.path, None)
            title = f"codemode: {f.id} {f.status}"
            warnings.append(((rank, 0), Annotation("warning", text, file, line, title)))
    warnings += _review_warnings(report)
    errors.sort(key=lambda p: p[0])  # stable: keeps the report's order within a rank
    warnings.sort(key=lambda p: p[0])
    out = [a for _, a in errors[:limit]] + [a for _, a in warnings[:limit]]
    left = max(len(errors) - limit, 0) + max(len(warnings) - limit, 0)
    if left:
        out.append(
            Annotation(
                "notice",
                f"codemode: {left} more annotation(s) not shown (GitHub shows {limit} errors "
                f"and {limit} warnings per step); see the job summary or the report artifact",
            )
        )
    return out


def _review_warnings(report: Report) -> list[tuple[tuple[int, int], Annotation]]:
    """The review's call-outs that want a look, on the spec line at head (ranked after the
    verdicts' warnings: a drifted case already has its error annotation)."""
    out = []
    for r in report.reviews:
        for k in r.callouts:
            if k.level != "warning":
                continue
            ref = f"{k.function}[{k.case}]" if k.case else (k.function or r.file)
            text = f"{ref}: {k.message}" + (f" ({k.call})" if k.call else "")
            title = f"codemode: spec review: {k.kind}"
            file = r.file if r.status != "deleted" else None
            out.append(((len(STATUS_ORDER), 0), Annotation("warning", text, file, k.line, title)))
    return out


def _warning_text(status: str, renamed_to: str | None, report: Report) -> str:
    if status == "orphaned":
        return (
            f"the spec names a function that no longer exists; renamed to {renamed_to}"
            if renamed_to
            else "the spec names a function that no longer exists"
        )
    if status == "missing":
        return f"changed function without a spec; run `{regen_command(report.scope, on_head=True) or 'codemode regen'}`"
    return "the function changed and its spec still passes, but the new behaviour is not covered"


def render_annotations(report: Report, limit: int = MAX_PER_LEVEL) -> str:
    return "".join(a.command() + "\n" for a in build_annotations(report, limit))
