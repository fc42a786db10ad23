"""The PR comment and the job summary: one Markdown document, budgeted to a size limit.

GitHub rejects a comment over 65,536 characters, and a job summary over 1 MiB (counted in
bytes), so the document is built from sections of items, each item already rendered, and the
sections share the budget: a section that needs little gets all it needs, the others split the
rest, and each cut section ends with a "… N more" line pointing at the job summary or the
report artifact. Items are sorted most important first (``STATUS_ORDER``), so what is cut is
always the least important.

A reviewer reads it in 10 seconds (#35), top to bottom: the verdicts (a narrow table, details
under it), the failing cases (an error many cases share, once), the review of the pull
request's own spec edits, the behaviour changes (a few calls per function), the edits regen
proposes, one command per way to accept, and last the notes. The sections live beside this
module: ``markdown_sections`` (the table, the cases), ``markdown_review``, ``markdown_witnesses``;
``markdown_inline`` makes every piece of report data inert.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from codemode.logsafe import log_safe
from codemode.report.links import Links
from codemode.report.markdown_inline import (
    clip,
    count,
    escape_text,
    fenced,
    html,
    plain,
    short_shas,
    span,
)
from codemode.report.markdown_review import reviews
from codemode.report.markdown_sections import (
    ICONS,
    Section,
    cases,
    function_details,
    functions_table,
    problems,
)
from codemode.report.markdown_witnesses import witnesses
from codemode.report.model import STATUS_ORDER, Report, SpecEdit

COMMENT_LIMIT = 65_536
# $GITHUB_STEP_SUMMARY accepts up to 1 MiB per step, in bytes; stay clear of it (the notes
# about the comment are appended after the summary).
SUMMARY_LIMIT = 1_000_000
SUMMARY_BYTES_LIMIT = 1_048_576  # GitHub's own limit, for tests and docs
DEFAULT_COMMENT_ID = "default"
# The id goes into an HTML comment; anything else could close it (``-->``) or break the line.
COMMENT_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
NOTES_SHOWN = 10
COMMAND_SHA = 12  # hex digits of a commit in a command to paste: unambiguous, and short
MARKER_PREFIX = "<!-- codemode:comment-id="


def valid_comment_id(value: str) -> bool:
    return COMMENT_ID_PATTERN.fullmatch(value) is not None


def marker(comment_id: str) -> str:
    """The hidden line that identifies our comment; the id lets a monorepo keep several."""
    if not valid_comment_id(comment_id):  # callers validate with a message; this is the floor
        raise ValueError(f"invalid comment id {comment_id!r}")
    return f"{MARKER_PREFIX}{comment_id} -->"


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))


def render_markdown(
    report: Report,
    *,
    comment_id: str = DEFAULT_COMMENT_ID,
    limit: int = COMMENT_LIMIT,
    overflow: str = "see the job summary / report artifact",
    in_bytes: bool = False,
    links: Links | None = None,
) -> str:
    """The whole document, never longer than ``limit`` characters (UTF-8 bytes: ``in_bytes``).
    ``links``: permalinks into the head commit for spec and source lines (else plain text)."""
    measure: Callable[[str], int] = utf8_size if in_bytes else len
    head = marker(comment_id) + "\n" + _summary(report) + "\n\n"
    foot = _footer(report)
    sections = [
        s
        for s in (
            functions_table(report, overflow, links),
            function_details(report, overflow),
            problems(report, overflow),
            cases(report, overflow, links),
            reviews(report, overflow, links),  # the PR's own spec edits, before the witnesses
            witnesses(report, overflow),
            _edits(report, overflow),
            _accept(report),
        )
        if s.items
    ]
    # Lines of values (a diff in a fence) must not read as workflow commands anywhere they are
    # echoed; the few characters this adds are in the budget.
    head, foot = log_safe(head), log_safe(foot)
    sections = [dataclasses.replace(s, items=tuple(map(log_safe, s.items))) for s in sections]
    budget = limit - measure(head) - measure(foot)
    shares = _share(budget, [s.size(measure=measure) for s in sections])
    body = "".join(s.render(n, measure) for s, n in zip(sections, shares, strict=True))
    return _cut(head + body + foot, limit, in_bytes)


def _cut(text: str, limit: int, in_bytes: bool) -> str:
    if not in_bytes:
        return text[:limit]
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def _share(budget: int, needs: list[int]) -> list[int]:
    """Water-filling: sections needing less than an equal share get it all, the rest split."""
    shares = [0] * len(needs)
    pending = sorted(range(len(needs)), key=lambda i: needs[i])
    left = max(budget, 0)
    while pending:
        fair = left // len(pending)
        i = pending[0]
        if needs[i] <= fair:
            shares[i] = needs[i]
            left -= needs[i]
            pending.pop(0)
        else:
            for j in pending:
                shares[j] = fair
            break
    return shares


# --- summary and footer ------------------------------------------------------------------


def _summary(report: Report) -> str:
    counts = report.counts()
    total = len(report.functions)
    bad = [v for v in sorted(counts, key=lambda v: STATUS_ORDER.get(v, 9)) if v != "ok"]
    parts = [f"{ICONS.get(v, '')} {counts[v]} {escape_text(v)}" for v in bad if counts[v]]
    parts.append(f"{ICONS['ok']} {counts.get('ok', 0)} ok")
    attention = total - counts.get("ok", 0)
    if report.problems:
        parts.append(f"{ICONS['error']} {len(report.problems)} spec problem(s)")
    title = "regen" if report.mode == "regen" else "check"
    if attention or report.problems:
        verdict = f"**{attention} of {total} function(s) need attention**"
    else:
        verdict = f"**all {total} function(s) verified**" if total else "**nothing to verify**"
    scope = f" · scope {span(short_shas(report.scope.describe()))}" if report.scope else ""
    case_counts = report.case_counts()
    case_text = ", ".join(f"{n} {escape_text(s)}" for s, n in case_counts.items() if n)
    case_part = f" · cases: {case_text}" if case_text else ""
    return (f"## codemode {title}: {verdict}\n\n" + " · ".join(parts) + case_part + scope).rstrip()


def shown_notes(report: Report) -> list[str]:
    """The notes worth a reader's time: each once, and not the behaviour diff's note on a
    function, which the function's own line in the comment says (#33). A run's timings
    (``Report.elapsed``, ``DiffRun.seconds``) change on every push and say nothing about the
    code: the comment leaves them out (#35)."""
    said = {f"behaviour diff of {f.id}: {f.diff_note}" for f in report.functions if f.diff_note}
    first = [report.diff.describe()] if report.diff is not None else []
    kept = (str(n).strip() for n in (*first, *report.notes))
    return list(dict.fromkeys(n for n in kept if n and n not in said))


def _footer(report: Report) -> str:
    lines = []
    if report.cost and (report.cost.requests or report.cost.usd):
        c = report.cost
        usd = f" · ≈ ${c.usd:.4f}" if isinstance(c.usd, (int, float)) else ""
        model = f" · {span(c.model)}" if c.model else ""
        lines.append(
            f"**LLM cost:** {count(c.requests)} request(s) · {count(c.input_tokens)} input / "
            f"{count(c.output_tokens)} output tokens{usd}{model}"
        )
    elif report.mode == "regen":
        lines.append("**LLM cost:** no model requests")
    notes = shown_notes(report)
    if notes:
        more = len(notes) - NOTES_SHOWN
        listed = "".join(f"- {escape_text(short_shas(n))}\n" for n in notes[:NOTES_SHOWN])
        lines.append("**Notes**\n\n" + listed + (f"- … {more} more\n" if more > 0 else ""))
    lines.append("<sub>codemode · verified by running the real code</sub>")
    return "\n\n".join(x.rstrip("\n") for x in lines) + "\n"


# --- what regen proposes, and how to accept ------------------------------------------------


def _edits(report: Report, overflow: str) -> Section:
    items = tuple(_edit_item(e) for e in report.edits)
    applied = any(e.applied for e in report.edits)
    title = "Spec edits committed" if applied else "Proposed spec edits"
    return Section(title, items, lambda n: f"… {n} more edit(s), {overflow}")


def _edit_item(e: SpecEdit) -> str:
    # Inside an HTML block Markdown is not parsed (a backslash would show), but GitHub still
    # links mentions and URLs in its text: plain, not escape_text.
    summary = f" — {plain(e.summary)}" if e.summary else ""
    state = " (applied)" if e.applied else ""
    return (
        f"<details><summary><code>{html(' '.join(e.file.split()))}</code>{state}{summary}"
        f"</summary>\n\n{fenced(clip(e.diff, 8_000), 'diff')}\n</details>\n\n"
    )


def _accept(report: Report) -> Section:
    """One command per way to accept: nothing listed twice (#35)."""
    from codemode.report.accept_hint import accept_steps

    steps = accept_steps(report)
    if not steps:
        return Section("How to accept", (), lambda n: "")
    lines = []
    for i, step in enumerate(steps):
        lines.append(f"# {'or ' if i else ''}{step.why}")
        lines.append(short_shas(step.command, COMMAND_SHA))
        lines += [f"# {line}" for line in step.careful]
    text = (
        "If the new behaviour is intended, update the specs and push:\n\n"
        + fenced("\n".join(lines), "sh")
        + "\n"
    )
    return Section("How to accept", (text,), lambda n: "")
