"""The PR comment's review of the spec files the pull request itself changed (#19): per file,
the call-outs a reviewer must not miss, then a table of the cases added, changed, moved and
removed, and how each fares at the head commit.

It comes before the behaviour changes (#35): the pull request's own edits to its specs are
what its reviewer signs off, and a long list of witnesses must not push them off the page.
A case that errors at head (its module cannot be imported) shows its status, never an
expected → observed pair: there is no observed value.
"""

from __future__ import annotations

from codemode.report.links import Links
from codemode.report.markdown_inline import escape_text, message, span, where
from codemode.report.markdown_sections import CASE_ICONS, Section
from codemode.report.model import Callout, CaseChange, Report, SpecReview

_REVIEW_ICONS = {"warning": "⚠️", "info": "ℹ️"}
_KIND_WORDS = (
    ("added", "added"),
    ("changed", "changed"),
    ("removed", "removed"),
    ("moved", "moved"),
)
REVIEW_CASES = 15  # cases listed per file before "… N more"
REVIEW_CALLOUTS = 20  # call-outs per file (most important first) before "… N more"


def reviews(report: Report, overflow: str, links: Links | None = None) -> Section:
    items = tuple(_review_item(r, links) for r in report.reviews)
    return Section(
        "Spec files changed in this pull request",
        items,
        lambda n: f"… {n} more spec file(s), {overflow}",
        tail="Added, changed and moved cases were verified at the head commit, and removed "
        "cases were run there too.\n",
    )


def _review_item(r: SpecReview, links: Links | None) -> str:
    what = {"added": " (new file)", "deleted": " (deleted)"}.get(r.status, "")
    if r.old_file:
        what = f" (renamed from {span(r.old_file)})"
    at = where(r.file, None, links) if r.status != "deleted" else span(r.file)
    counts = ", ".join(
        f"{len(getattr(r, attr))} {word}" for attr, word in _KIND_WORDS if getattr(r, attr)
    )
    lines = [f"**{at}**{what}: {counts or 'no case changed'}\n"]
    lines += [f"- 🛑 {escape_text(p)}\n" for p in r.problems]
    cases = {(c.function, c.id): c for c in r.cases}
    for k in r.callouts[:REVIEW_CALLOUTS]:
        lines.append(_callout_line(r, k, cases.get((k.function or "", k.case or "")), links))
    if len(r.callouts) > REVIEW_CALLOUTS:
        lines.append(f"- … {len(r.callouts) - REVIEW_CALLOUTS} more call-out(s)\n")
    if not r.cases:  # a report that names the cases only (an older report.json)
        for attr, word in _KIND_WORDS:
            refs = getattr(r, attr)[:REVIEW_CASES]
            if refs:
                lines.append(f"- {word}: {', '.join(span(x) for x in refs)}\n")
    shown = r.cases[:REVIEW_CASES]
    if shown:
        lines.append("\n| Case | Change | At head | Line |\n|---|---|---|---|\n")
        lines += [_review_row(r, c, links) for c in shown]
    if len(r.cases) > REVIEW_CASES:
        lines.append(f"\n_… {len(r.cases) - REVIEW_CASES} more case(s)_\n")
    return "".join(lines) + "\n"


def _values(c: CaseChange | None, *, cell: bool = False) -> str:
    """``expected → observed`` of a case that drifted at head; nothing for one that errored
    (an import error is no outcome) or passed."""
    if c is None or not c.observed or c.status == "error":
        return ""
    return f"{span(c.expected, cell=cell)} → {span(c.observed, cell=cell)}"


def _callout_line(r: SpecReview, k: Callout, change: CaseChange | None, links: Links | None) -> str:
    ref = f"{k.function}[{k.case}]" if k.case else (k.function or "")
    at = f" · {where(r.file, k.line, links)}" if k.line else ""
    word = f" **{escape_text(k.verdict)}**" if k.verdict else ""  # a --fail-on word (#35)
    line = f"- {_REVIEW_ICONS.get(k.level, '')} {span(ref)}{word}{at}: {message(k.message)}"
    values = _values(change) if k.kind in ("contradicted", "hides_change") else ""
    if change is not None and values:
        line += f": {span(change.call)}: {values}"
    return line + "\n"


def _review_row(r: SpecReview, c: CaseChange, links: Links | None) -> str:
    """One case: its id and call (the function is in the call), the change, how it fares at
    head, and its line in this file (the section's heading names the file): a narrow row."""
    change = escape_text(c.kind)
    if c.what:
        change += " (" + ", ".join(escape_text(w) for w in c.what) + ")"
    if c.old_id or c.old_file:
        was = f"{c.old_file}: " if c.old_file else ""
        change += f" from {span(was + (c.old_id or c.id), cell=True)}"
    state = f"{CASE_ICONS.get(c.status or '', '')} {escape_text(c.status or 'not run')}"
    values = _values(c, cell=True)
    if values:
        state += f": {values}"
    if c.kind == "removed":
        at = f"{c.line} before" if c.line else "–"
    else:
        url = links.blob(r.file, c.line) if links and c.line else None
        at = f"[{c.line}]({url})" if url else str(c.line or "–")
    return f"| {span(c.id, cell=True)} {span(c.call, cell=True)} | {change} | {state} | {at} |\n"
