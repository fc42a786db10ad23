"""The terminal rendering: ``file:line:`` locations editors jump to, one summary line.

Colour only when writing to a terminal and ``NO_COLOR`` is unset (https://no-color.org).
"""

from __future__ import annotations

import os
from typing import TextIO

from codemode.logsafe import log_safe
from codemode.report.inert import inert_report
from codemode.report.model import (
    CASE_PASSED,
    CaseResult,
    CaseStatus,
    FunctionResult,
    Refusal,
    Report,
    impact_text,
)
from codemode.scope import regen_command
from codemode.verdicts import Verdict

_COLORS = {"red": "31", "green": "32", "yellow": "33", "cyan": "36", "dim": "2", "bold": "1"}
STATUS_COLOR: dict[Verdict | CaseStatus, str] = {
    "ok": "green",
    "drifted": "red",
    "error": "red",
    "stale": "yellow",
    "missing": "yellow",
    "orphaned": "yellow",
    "changed": "red",
    "message_changed": "yellow",  # shown, fails only on request (#32)
    "unstable": "yellow",  # the diff could not tell: shown, fails only on request (#32)
    "passed": "green",
    "failed": "red",
    "empty": "yellow",
    "skipped": "dim",  # a case an LLM judge skipped, a function a budget left unexplored
}


# verdicts said on the function's own line (a case's line says the others)
_OWN_LINE = ("missing", "orphaned", "stale", "changed", "message_changed", "unstable")


def use_color(stream: TextIO, mode: str = "auto") -> bool:
    if mode in ("always", "never"):
        return mode == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


class Painter:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, name: str) -> str:
        if not self.color or name not in _COLORS:
            return text
        return f"\x1b[{_COLORS[name]}m{text}\x1b[0m"

    def status(self, status: str) -> str:
        return self(status, STATUS_COLOR.get(status, "bold"))


def _loc(spec: str | None, line: int | None) -> str:
    if not spec:
        return ""
    return f"{spec}:{line}: " if line else f"{spec}: "


def _states_both(c: CaseResult) -> bool:
    """The case's message is its failed ``expected`` or ``raises`` check, which already says
    what was expected and what happened (the message is the first failed check's)."""
    first = next((k for k in c.checks if k.passed is False), None)
    return first is not None and first.name in ("expected", "raises") and bool(first.message)


def _case_lines(f: FunctionResult, c: CaseResult, p: Painter) -> list[str]:
    head = f"{_loc(f.spec, c.line)}{f.id}[{c.id}]: {p.status(c.status)}"
    out = [f"{head}: {c.message}" if c.message else head]
    if c.call:
        out.append(f"    call: {c.call}")
    if c.status == "drifted" and c.has_expected and c.message and not _states_both(c):
        from codemode.compare import window  # json, difflib: only when a case is shown

        expected, observed = window(c.expected, c.observed, 100)
        out.append(f"    expected: {expected}")
        out.append(f"    observed: {observed}")
    if c.diff:
        out += [
            "    "
            + p(line, "red" if line.startswith("-") else "green" if line.startswith("+") else "dim")
            for line in c.diff.splitlines()
        ]
    return out


def _witness_lines(f: FunctionResult) -> list[str]:
    if not f.witnesses and not f.diff_note:
        return []  # report.call (json) is imported only for a function the diff spoke of
    from codemode.report.witness import MAX_SHOWN, witness_text

    out = [f"    {witness_text(w)}" for w in f.witnesses[:MAX_SHOWN]]
    if len(f.witnesses) > MAX_SHOWN:
        out.append(f"    ... and {len(f.witnesses) - MAX_SHOWN} more (--format json lists them)")
    if f.diff_note:
        out.append(f"    ({f.diff_note})")
    return out


def _shared_errors(report: Report) -> dict[str, list[tuple[FunctionResult, CaseResult]]]:
    """Case errors with one cause (a module that fails to import fails every case of every
    function in it): message -> the cases, for messages that more than one case shares."""
    groups: dict[str, list[tuple[FunctionResult, CaseResult]]] = {}
    for f in report.sorted_functions():
        for c in f.cases:
            if c.status == "error" and c.message:
                groups.setdefault(c.message, []).append((f, c))
    return {m: g for m, g in groups.items() if len(g) > 1}


def _shared_line(group: list[tuple[FunctionResult, CaseResult]], p: Painter) -> str:
    f, c = group[0]
    ids = list(dict.fromkeys(g.id for g, _ in group))
    named = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
    funcs = f"{len(ids)} function{'s' if len(ids) != 1 else ''}"
    return f"{_loc(f.spec, c.line)}{p.status('error')}: {c.message} [{len(group)} cases in {funcs}: {named}]"


def render(
    report: Report, *, color: bool = False, verbose: bool = False, quiet: bool = False
) -> str:
    # Data's control characters escaped; our colours after. Passed cases print nothing of
    # theirs unless verbose: left as they are.
    report = inert_report(report, passed_as_is=not verbose)
    p = Painter(color)
    lines: list[str] = []
    for prob in report.problems:
        lines.append(f"{_loc(prob.file, prob.line)}{p.status('error')}: {prob.message}")
    shared = {} if verbose else _shared_errors(report)
    for f in report.sorted_functions():
        if f.status == "ok" and not verbose:
            continue
        loc = _loc(f.spec, f.line) or (f"{f.path}: " if f.path else "")
        if f.status in _OWN_LINE or (f.message and not f.cases):
            via = f" ({impact_text(f)})" if f.impacted_by else ""
            lines.append(f"{loc}{f.id}: {p.status(f.status)}: {f.message}{via}")
            lines += _witness_lines(f)
            if f.status not in ("stale", "changed", "message_changed"):
                continue
        elif f.witnesses:  # drifted or broken too: the calls the change altered
            lines.append(f"{loc}{f.id}: {p.status('changed')}: the outcome of these calls changed")
            lines += _witness_lines(f)
        for c in f.cases:
            if c.status == CASE_PASSED and not verbose:
                continue
            if c.status in ("skipped",) and quiet:
                continue
            group = shared.get(c.message)
            if group is not None:
                if group[0] == (f, c):  # one line per cause, where it first occurs
                    lines.append(_shared_line(group, p))
                continue
            lines.extend(_case_lines(f, c, p))
    lines.extend(spec_changes(report, p))
    if not quiet:
        for note in _diff_line(report) + list(report.notes):
            lines.append(p(f"note: {note}", "dim"))
    lines.append(summary(report, p))
    hint = accept_hint(report)
    if hint and not quiet:
        lines.append(hint)
    # A message or value with a line of its own must not become a workflow command in CI (#11).
    return log_safe("\n".join(lines) + "\n")


def spec_changes(report: Report, p: Painter) -> list[str]:
    """The review of the spec files the change edited: a line per file with its counts, then
    each call-out (``!`` a reviewer must look, ``·`` all is well)."""
    if not report.reviews:
        return []
    out = [p("spec changes:", "bold")]
    for r in report.reviews:
        counts = [
            f"{len(ids)} {word}"
            for ids, word in ((r.added, "added"), (r.changed, "changed"), (r.removed, "removed"))
            if ids
        ] + ([f"{len(r.moved)} moved"] if r.moved else [])
        what = {"added": " (new file)", "deleted": " (deleted)"}.get(r.status, "")
        if r.old_file:
            what = f" (renamed from {r.old_file})"
        out.append(f"  {r.file}{what}: {', '.join(counts) or 'no case changed'}")
        out.extend(f"    problem: {x}" for x in r.problems)
        cases = {(c.function, c.id): c for c in r.cases}
        for k in r.callouts:
            mark = p("!", "yellow") if k.level == "warning" else p("·", "dim")
            ref = f"{k.function}[{k.case}]" if k.case else (k.function or "")
            word = f" [{k.verdict}]" if k.verdict else ""  # the word --fail-on takes (#35)
            line = f"    {mark} {_loc(r.file, k.line)}{ref}{word}: {k.message}"
            change = cases.get((k.function or "", k.case or ""))
            if change is not None and change.observed:
                line += f": {change.call}: {change.expected} → {change.observed}"
            out.append(line)
    return out


def summary(report: Report, p: Painter | None = None) -> str:
    p = p or Painter(False)
    counts = {k: v for k, v in report.counts().items() if v}
    cases = {k: v for k, v in report.case_counts().items() if v}
    n = sum(counts.values())
    parts = [f"{n} function{'s' if n != 1 else ''}"]
    if counts:
        parts.append(", ".join(f"{v} {p.status(k)}" for k, v in counts.items()))
    text = ": ".join(parts)
    if cases:
        total = sum(cases.values())
        text += f"; {total} case{'s' if total != 1 else ''}: " + ", ".join(
            f"{v} {k}" for k, v in cases.items()
        )
    if report.problems:
        text += f"; {len(report.problems)} spec problem{'s' if len(report.problems) != 1 else ''}"
    review = {k: v for k, v in report.review_counts().items() if v}
    if review:
        text += "; spec review: " + ", ".join(f"{v} {k}" for k, v in review.items())
    if report.elapsed is not None:
        text += f" ({report.elapsed:.2f} s)"
    return p(f"codemode: {text}", "bold")


def _drifted_refs(report: Report) -> list[str]:
    """What ``accept`` takes to accept every drifted case, pasted as is (#23): a function with
    one drifted case names it (``'ID[CASE]'``), one with more is named by its id, which
    accepts all of its drifted cases."""
    refs = []
    for f in report.functions:
        cases = [c.id for c in f.cases if c.status == "drifted"]
        if len(cases) == 1:
            refs.append(f"'{f.id}[{cases[0]}]'")
        elif cases:
            refs.append(f.id)
    return refs


def accept_hint(report: Report) -> str:
    drifted = _drifted_refs(report)
    stale = any(f.status in ("stale", "missing") for f in report.functions)
    regen = regen_command(report.scope)
    out = []
    if drifted:
        out.append(
            "If the new behaviour is intended, take the observed outputs as expectations:\n"
            f"  codemode accept {' '.join(drifted)}"
        )
    changed = ""
    if any(f.witnesses for f in report.functions):  # report.call imports json: only then
        from codemode.report.witness import accept_function_command

        changed = accept_function_command(report)
    if changed:
        out.append(f"If the behaviour changes are intended, record them as cases:\n  {changed}")
    reverting = report.reverting() if out else ()
    if reverting:
        out.append(
            f"  but accepting {', '.join(reverting)} reverts the expectation this change edited "
            "(the code contradicts the edit): fix the code, or the edit, instead"
        )
    if stale and regen:  # the same change the check looked at, so the command does something
        out.append(f"To write cases for the changed functions:\n  {regen}")
    return "\n".join(out)


def render_regen(report: Report) -> str:
    """What ``regen`` did: the edits, one line per function, the functions that share one
    message (a package that fails to import) on one line with a count, cost and notes."""
    report = inert_report(report)
    lines = [e.diff.rstrip("\n") for e in report.edits if e.diff]
    groups: dict[tuple[str, str], list[str]] = {}
    refused = {f.id: f.refused for f in report.functions}
    for f in report.sorted_functions():
        groups.setdefault((f.status, f.message), []).append(f.id)
    for (status, message), ids in groups.items():
        if len(ids) == 1 or not message or status == "ok":  # a count per function is its own
            for fid in ids:
                lines.append(f"{status:8} {fid}: {message}")
                lines += _refused_lines(refused.get(fid, ()))
            continue
        named = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
        lines.append(f"{status:8} {len(ids)} functions: {message} [{named}]")
    if report.cost is not None:
        c = report.cost
        usd = f", ~{c.usd:.4f} USD" if c.usd is not None else ""
        lines.append(
            f"model {c.model}: {c.requests} request(s), "
            f"{c.input_tokens} in / {c.output_tokens} out tokens{usd}"
        )
    lines += [f"note: {n}" for n in (*_diff_line(report), *report.notes)]
    if report.elapsed is not None:
        lines.append(f"note: elapsed {report.elapsed:.2f} s")
    return log_safe("\n".join(lines) + "\n")


def _diff_line(report: Report) -> list[str]:
    """The behaviour diff's line, with its time (the terminal's reader waited for it)."""
    d = report.diff
    return [f"{d.describe()} (elapsed {d.seconds:.2f} s)"] if d is not None else []


MAX_REFUSED_LINES = 8  # per function in the terminal; the JSON report lists every one


def _refused_lines(refused: tuple[Refusal, ...]) -> list[str]:
    """Each chosen call that was not written: the call, why, and what would make it writable."""
    out = [
        f"         not written: {r.call}; why: {r.reason}"
        + (f"; to write it, {r.remedy}" if r.remedy else "")
        for r in refused[:MAX_REFUSED_LINES]
    ]
    if len(refused) > MAX_REFUSED_LINES:
        out.append(
            f"         ... {len(refused) - MAX_REFUSED_LINES} more not written "
            "(--format json lists them all)"
        )
    return out
