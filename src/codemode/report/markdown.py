"""The PR comment and the job summary: one Markdown document, budgeted to a size limit.

GitHub rejects a comment over 65,536 characters, and a job summary over 1 MiB (counted in
bytes), so the document is built from sections of items, each item already rendered, and the
sections share the budget: a section that needs little gets all it needs, the others split the
rest, and each cut section ends with a "… N more" line pointing at the job summary or the
report artifact. Items are sorted most important first (``STATUS_ORDER``), so what is cut is
always the least important.

Everything from report data is hostile (a fork's code wrote its outputs; in a ``workflow_run``
job, its report): it is shown in code spans and fences that nothing can close, or as text in
which no @-mention, link, image, HTML tag or issue reference is live (``escape_text``).
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from codemode.logsafe import inert, log_safe
from codemode.report.links import Links
from codemode.report.model import (
    CASE_DRIFTED,
    CASE_ERROR,
    FAILING_CASE_ORDER,
    STATUS_ORDER,
    Callout,
    CaseChange,
    CaseResult,
    FunctionResult,
    Report,
    SpecEdit,
    SpecReview,
)
from codemode.scope import regen_command

COMMENT_LIMIT = 65_536
# $GITHUB_STEP_SUMMARY accepts up to 1 MiB per step, in bytes; stay clear of it (the notes
# about the comment are appended after the summary).
SUMMARY_LIMIT = 1_000_000
SUMMARY_BYTES_LIMIT = 1_048_576  # GitHub's own limit, for tests and docs
DEFAULT_COMMENT_ID = "default"
# The id goes into an HTML comment; anything else could close it (``-->``) or break the line.
COMMENT_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")

ICONS = {
    "error": "🛑",
    "drifted": "❌",
    "orphaned": "⚠️",
    "skipped": "⏭️",
    "missing": "⚠️",
    "stale": "⚠️",
    "changed": "🔀",
    "ok": "✅",
}
CASE_ICONS = {
    "passed": "✅",
    "drifted": "❌",
    "failed": "❌",
    "error": "🛑",
    "empty": "⚠️",
    "skipped": "⚠️",
}
VALUE_LIMIT = 300  # characters of one expected/observed value
DIFF_LIMIT = 1_500  # characters of one diff or one case's detail
ACCEPT_LIMIT = 10  # accept commands listed before "… N more"


@dataclass(frozen=True)
class Section:
    """A titled list of rendered items; ``more`` says what the cut items were."""

    title: str
    items: tuple[str, ...]
    more: Callable[[int], str]
    head: str = ""  # e.g. a table header, kept whenever at least one item is shown
    tail: str = ""

    def size(self, n: int | None = None, measure: Callable[[str], int] = len) -> int:
        shown = self.items if n is None else self.items[:n]
        return measure(self._render(shown, len(self.items) - len(shown)))

    def render(self, budget: int, measure: Callable[[str], int] = len) -> str:
        """As many items as fit in ``budget`` (characters, or what ``measure`` counts)."""
        if self.size(measure=measure) <= budget:
            return self._render(self.items, 0)
        lo, hi = 0, len(self.items)  # largest n with size(n) <= budget; sizes grow with n
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.size(mid, measure) <= budget:
                lo = mid
            else:
                hi = mid - 1
        return self._render(self.items[:lo], len(self.items) - lo)

    def _render(self, shown: Sequence[str], cut: int) -> str:
        parts = [f"### {self.title}\n"]
        if shown:
            parts.append(self.head)
            parts.extend(shown)
            parts.append(self.tail)
        if cut:
            parts.append(f"\n_{self.more(cut)}_\n")
        return "".join(parts) + "\n"


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
            _functions_table(report, overflow, links),
            _problems(report, overflow),
            _cases(report, overflow, links),
            _edits(report, overflow),
            _reviews(report, overflow, links),
            _accept(report),
        )
        if s.items
    ]
    witnesses = _witnesses(report, overflow)
    if witnesses.items:  # the behaviour diff's calls (#18), after the failing cases
        cases_at = [i for i, s in enumerate(sections) if s.title.startswith("Drifted")]
        sections.insert(cases_at[0] + 1 if cases_at else min(1, len(sections)), witnesses)
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


# --- summary -------------------------------------------------------------------------------


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
    scope = f" · scope {_span(report.scope.describe())}" if report.scope else ""
    cases = report.case_counts()
    case_text = ", ".join(f"{n} {escape_text(s)}" for s, n in cases.items() if n)
    case_part = f" · cases: {case_text}" if case_text else ""
    return (f"## codemode {title}: {verdict}\n\n" + " · ".join(parts) + case_part + scope).rstrip()


def _footer(report: Report) -> str:
    lines = []
    if report.cost and (report.cost.requests or report.cost.usd):
        c = report.cost
        usd = f" · ≈ ${c.usd:.4f}" if isinstance(c.usd, (int, float)) else ""
        model = f" · {_span(c.model)}" if c.model else ""
        lines.append(
            f"**LLM cost:** {_count(c.requests)} request(s) · {_count(c.input_tokens)} input / "
            f"{_count(c.output_tokens)} output tokens{usd}{model}"
        )
    elif report.mode == "regen":
        lines.append("**LLM cost:** no model requests")
    lines.extend(f"> {escape_text(str(n))}" for n in report.notes[:10])
    lines.append("<sub>codemode · verified by running the real code</sub>")
    return "\n\n".join(lines) + "\n"


# --- sections ------------------------------------------------------------------------------


def _functions_table(report: Report, overflow: str, links: Links | None = None) -> Section:
    rows = tuple(_function_row(f, links) for f in report.sorted_functions())
    return Section(
        title="Functions",
        items=rows,
        more=lambda n: f"… {n} more function(s), {overflow}",
        head="| | Function | Verdict | Cases | Spec |\n|---|---|---|---|---|\n",
    )


def _function_row(f: FunctionResult, links: Links | None = None) -> str:
    passed = sum(1 for c in f.cases if c.status == "passed")
    cases = f"{passed}/{len(f.cases)}" if f.cases else "–"
    where = _where(f.spec, f.line, links, cell=True) if f.spec else "–"
    verdict = escape_text(f.status)
    if f.renamed_to:
        verdict += f" → {_span(f.renamed_to, cell=True)}"
    elif f.message and f.status != "ok":
        verdict += f": {_message(_clip(f.message, 120), cell=True)}"
    name = _span(f.id, cell=True)
    source = links.blob(f.path, f.source_line) if links and f.path else None
    if source:
        name = f"[{name}]({source})"
    return f"| {ICONS.get(f.status, '')} | {name} | {verdict} | {cases} | {where} |\n"


def _problems(report: Report, overflow: str) -> Section:
    items = tuple(
        f"- {_span(_loc(p.file, p.line))}: {escape_text(p.message)}\n" for p in report.problems
    )
    return Section("Spec problems", items, lambda n: f"… {n} more problem(s), {overflow}")


def _failing_cases(report: Report) -> list[tuple[FunctionResult, CaseResult]]:
    order = FAILING_CASE_ORDER
    pairs = [(f, c) for f in report.sorted_functions() for c in f.cases if c.status in order]
    pairs.sort(key=lambda p: (STATUS_ORDER.get(p[0].status, 9), order[p[1].status]))
    return pairs


def _cases(report: Report, overflow: str, links: Links | None = None) -> Section:
    items = tuple(_case_item(f, c, links) for f, c in _failing_cases(report))
    return Section(
        "Drifted and failing cases",
        items,
        lambda n: f"… {n} more case(s), {overflow}",
        head="expected → observed, most important first\n\n",
    )


def _case_item(f: FunctionResult, c: CaseResult, links: Links | None = None) -> str:
    where = f" · {_where(f.spec, c.line or f.line, links)}" if f.spec else ""
    status = escape_text(c.status)
    line = f"- {CASE_ICONS.get(c.status, '')} **{_span(case_ref(f, c))}** · {status}{where}"
    call = f" {_span(c.call)}:" if c.call else ""
    if c.status == CASE_DRIFTED or (c.has_expected and c.status != CASE_ERROR):
        # expected → observed says it all; the message would repeat it.
        line += f":{call} {_span(_value(c.expected))} → {_span(_value(c.observed))}"
    elif c.message:
        line += f":{call} {escape_text(_clip(c.message, 300))}"
    elif call:
        line += f":{call[:-1]}"
    if c.diff:
        fenced = _fenced(_clip(c.diff, DIFF_LIMIT), "diff")
        line += "\n" + "\n".join(f"  {x}" for x in fenced.splitlines())
    return line + "\n"


def _witnesses(report: Report, overflow: str) -> Section:
    """Each behaviour-diff witness: the call, its old outcome and its new one (#18)."""
    from codemode.report.witness import outcome_text

    items: list[str] = []
    for f in report.sorted_functions():
        for w in f.witnesses:
            what = " (message changed)" if w.kind == "message" else ""
            items.append(
                f"- {ICONS['changed']} **{_span(w.call)}** · {_span(f.id)}: "
                f"{_span(outcome_text(w.old, VALUE_LIMIT))} → "
                f"{_span(outcome_text(w.new, VALUE_LIMIT))}{escape_text(what)}\n"
            )
        if f.witnesses and f.diff_note:
            items.append(f"  - {escape_text(f.diff_note)}\n")
    return Section(
        "Behaviour changes",
        tuple(items),
        lambda n: f"… {n} more, {overflow}",
        head="calls whose outcome the change altered: old → new\n\n",
    )


def _edits(report: Report, overflow: str) -> Section:
    items = tuple(_edit_item(e) for e in report.edits)
    applied = any(e.applied for e in report.edits)
    title = "Spec edits committed" if applied else "Proposed spec edits"
    return Section(title, items, lambda n: f"… {n} more edit(s), {overflow}")


def _edit_item(e: SpecEdit) -> str:
    # Inside an HTML block Markdown is not parsed (a backslash would show), but GitHub still
    # links mentions and URLs in its text: _plain, not escape_text.
    summary = f" — {_plain(e.summary)}" if e.summary else ""
    state = " (applied)" if e.applied else ""
    return (
        f"<details><summary><code>{_html(_one_line(e.file))}</code>{state}{summary}</summary>\n\n"
        f"{_fenced(_clip(e.diff, 8_000), 'diff')}\n</details>\n\n"
    )


def _reviews(report: Report, overflow: str, links: Links | None = None) -> Section:
    items = tuple(_review_item(r, links) for r in report.reviews)
    return Section(
        "Spec files changed in this pull request",
        items,
        lambda n: f"… {n} more spec file(s), {overflow}",
        tail="Added, changed and moved cases were verified at the head commit, and removed "
        "cases were run there too.\n",
    )


_REVIEW_ICONS = {"warning": "⚠️", "info": "ℹ️"}
_KIND_WORDS = (
    ("added", "added"),
    ("changed", "changed"),
    ("removed", "removed"),
    ("moved", "moved"),
)
REVIEW_CASES = 15  # cases listed per file before "… N more"
REVIEW_CALLOUTS = 20  # call-outs per file (most important first) before "… N more"


def _review_item(r: SpecReview, links: Links | None) -> str:
    what = {"added": " (new file)", "deleted": " (deleted)"}.get(r.status, "")
    if r.old_file:
        what = f" (renamed from {_span(r.old_file)})"
    where = _where(r.file, None, links) if r.status != "deleted" else _span(r.file)
    counts = ", ".join(
        f"{len(getattr(r, attr))} {word}" for attr, word in _KIND_WORDS if getattr(r, attr)
    )
    lines = [f"**{where}**{what}: {counts or 'no case changed'}\n"]
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
                lines.append(f"- {word}: {', '.join(_span(x) for x in refs)}\n")
    shown = r.cases[:REVIEW_CASES]
    if shown:
        lines.append("\n| Case | Change | At head | Spec |\n|---|---|---|---|\n")
        lines += [_review_row(r, c, links) for c in shown]
    if len(r.cases) > REVIEW_CASES:
        lines.append(f"\n_… {len(r.cases) - REVIEW_CASES} more case(s)_\n")
    return "".join(lines) + "\n"


def _callout_line(r: SpecReview, k: Callout, change: CaseChange | None, links: Links | None) -> str:
    ref = f"{k.function}[{k.case}]" if k.case else (k.function or "")
    where = f" · {_where(r.file, k.line, links)}" if k.line else ""
    word = f" **{escape_text(k.verdict)}**" if k.verdict else ""  # a --fail-on word (#35)
    line = f"- {_REVIEW_ICONS.get(k.level, '')} {_span(ref)}{word}{where}: {_message(k.message)}"
    if change is not None and change.observed and k.kind in ("contradicted", "hides_change"):
        line += f": {_span(change.call)}: {_span(change.expected)} → {_span(change.observed)}"
    return line + "\n"


def _review_row(r: SpecReview, c: CaseChange, links: Links | None) -> str:
    ref = _span(f"{c.function}[{c.id}]", cell=True)
    change = escape_text(c.kind)
    if c.what:
        change += " (" + ", ".join(escape_text(w) for w in c.what) + ")"
    if c.old_id or c.old_file:
        was = f"{c.old_file}: " if c.old_file else ""
        change += f" from {_span(was + (c.old_id or c.id), cell=True)}"
    state = f"{CASE_ICONS.get(c.status or '', '')} {escape_text(c.status or 'not run')}"
    if c.observed:
        state += f": {_span(c.expected, cell=True)} → {_span(c.observed, cell=True)}"
    if c.kind == "removed":
        where = _span(f"line {c.line} before" if c.line else "–", cell=True)
    else:
        where = _where(r.file, c.line, links, cell=True)
    return f"| {ref} {_span(c.call, cell=True)} | {change} | {state} | {where} |\n"


def _accept(report: Report) -> Section:
    drifted = [(f, c) for f, c in _failing_cases(report) if c.status == CASE_DRIFTED]
    needs_regen = any(f.status in ("missing", "stale") for f in report.functions)
    from codemode.report.witness import accept_function_command

    changed = accept_function_command(report)
    if not drifted and not needs_regen and not changed:
        return Section("How to accept", (), lambda n: "")
    lines = []
    if changed:
        lines.append("# record the behaviour changes as cases (and accept drifted cases)")
        lines.append(changed)
    if drifted:
        lines.append("# take the observed outputs as the new expectations")
        lines.extend(
            f"codemode accept {shlex.quote(case_ref(f, c))}" for f, c in drifted[:ACCEPT_LIMIT]
        )
        if len(drifted) > ACCEPT_LIMIT:
            lines.append(f"# … {len(drifted) - ACCEPT_LIMIT} more drifted case(s)")
    for ref in report.reverting() if changed or drifted else ():
        lines.append(f"# careful: accepting {ref} reverts the expectation this change edited")
    if drifted or needs_regen:
        lines.append("# or regenerate the specs of the changed functions")
        lines.append(regen_command(report.scope, on_head=True) or "codemode regen")
    text = (
        "If the new behaviour is intended, update the specs and push:\n\n"
        + _fenced("\n".join(lines), "sh")
        + "\n"
    )
    return Section("How to accept", (text,), lambda n: "")


# --- helpers -------------------------------------------------------------------------------


def case_ref(f: FunctionResult, c: CaseResult) -> str:
    """``pkg.mod.func[case]``, the form ``codemode accept`` takes."""
    return f"{f.id}[{c.id}]"


def _loc(file: str | None, line: int | None) -> str:
    return f"{file}:{line}" if file and line else (file or "")


def _value(v: Any) -> str:
    try:
        text = json.dumps(v, ensure_ascii=False, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        text = repr(v)
    return _clip(text, VALUE_LIMIT)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _one_line(text: str) -> str:
    # control characters shown as their escapes, as the terminal shows them (#33)
    return inert(" ".join(text.split()))


def _span(text: str, *, cell: bool = False) -> str:
    """A code span that survives any content: delimiters longer than any backtick run inside.

    In a table cell a pipe must be escaped even inside a code span (GFM splits cells first).
    """
    text = _one_line(text)
    if cell:
        text = text.replace("|", "\\|")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    tick = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{tick}{pad}{text}{pad}{tick}" if text else ""


def _cell(text: str) -> str:
    return escape_text(text)


def _where(file: str | None, line: int | None, links: Links | None, *, cell: bool = False) -> str:
    """``file:line`` as a code span, linked to that line of the head commit when ``links``
    says where that is (the link is codemode's own; the path is percent-encoded in it)."""
    text = _span(_loc(file, line), cell=cell)
    url = links.blob(file, line) if links and text else None
    return f"[{text}]({url})" if url else text


def _message(text: str, *, cell: bool = False) -> str:
    """A message of codemode's own words in which `backticked` parts are commands or names:
    those become code spans, the rest inert text (``escape_text`` would show the backticks)."""
    parts = _one_line(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code, only text
        return _cell(text) if cell else escape_text(text)
    # Text parts keep their edge spaces ("run `x` to"); only code parts become spans.
    return "".join(
        (_span(part, cell=cell) if part else "") if i % 2 else _inert(part)
        for i, part in enumerate(parts)
    )


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# GitHub links these in any text outside code, after Markdown: @mentions (and e-mail
# addresses), bare URLs, www. hosts and #123 and GH-123 issue references (#21). A zero-width
# space after the trigger keeps them readable and dead (the way dependabot writes @-mentions
# it quotes).
_ZWSP = "\u200b"
_LIVE = re.compile(r"@|://|(?i:www)\.|#(?=\d)|(?<!\w)(?i:gh)-(?=\d)")
# What Markdown would read as links, images, emphasis, code or cells; HTML is entities.
_MD_ESCAPES = {c: "\\" + c for c in "\\`*_[]|~"}
_MD_ESCAPES.update({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def escape_text(text: str) -> str:
    """One line of report text as inert Markdown: no mention, link, image, HTML or code."""
    return _inert(_one_line(text))


def _inert(text: str) -> str:
    text = "".join(_MD_ESCAPES.get(ch, ch) for ch in text)
    return _LIVE.sub(lambda m: m.group(0)[:1] + _ZWSP + m.group(0)[1:], text)


def _plain(text: str) -> str:
    """``escape_text`` for text inside an HTML block, where backslashes would show."""
    return _LIVE.sub(lambda m: m.group(0)[:1] + _ZWSP + m.group(0)[1:], _html(_one_line(text)))


def _count(value: object) -> str:
    # The report may come from a fork's artifact: a number is printed as one, anything else as text.
    return f"{value:,}" if isinstance(value, int) else escape_text(str(value))


def _fenced(text: str, lang: str) -> str:
    """A fence longer than any backtick run in ``text``, so values cannot close it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"
