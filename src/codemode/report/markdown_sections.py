"""The PR comment's sections of verdicts: the Functions table and the details below it, spec
problems, and the drifted and failing cases, each a ``Section`` of rendered items.

The table stays narrow enough for a 1000 px window (#35): a verdict is one word in it, and
what a verdict has to say (why a function is missing, what it was renamed to) is a line below
the table. A message that many cases or functions share (one import error fails every case of
a module) is shown once, with how many it stands for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from codemode.report.links import Links
from codemode.report.markdown_inline import (
    clip,
    escape_text,
    fenced,
    message,
    plural,
    short_shas,
    span,
    where,
)
from codemode.report.model import (
    CASE_DRIFTED,
    FAILING_CASE_ORDER,
    STATUS_ORDER,
    CaseResult,
    CaseStatus,
    FunctionResult,
    Report,
    impact_text,
)
from codemode.report.notation import case_pair, differences_text
from codemode.verdicts import Verdict

ICONS: dict[Verdict, str] = {
    "error": "🛑",
    "drifted": "❌",
    "orphaned": "⚠️",
    "skipped": "⏭️",
    "missing": "⚠️",
    "stale": "⚠️",
    "changed": "🔀",
    "message_changed": "✉️",
    "unstable": "🎲",
    "ok": "✅",
}
CASE_ICONS: dict[CaseStatus, str] = {
    "passed": "✅",
    "drifted": "❌",
    "failed": "❌",
    "error": "🛑",
    "empty": "⚠️",
    "skipped": "⚠️",
}
DIFF_LIMIT = 1_500  # characters of one diff or one case's detail
MESSAGE_LIMIT = 600  # characters of one message shown once for many cases
NAMED = 3  # functions (or files) a grouped line names before "and N more"


@dataclass(frozen=True)
class Section:
    """A titled list of rendered items; ``more`` says what the cut items were. An untitled
    section follows the one before it (the details under the Functions table)."""

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
        parts = [f"### {self.title}\n"] if self.title else []
        if shown:
            parts.append(self.head)
            parts.extend(shown)
            parts.append(self.tail)
        if cut:
            parts.append(f"\n_{self.more(cut)}_\n")
        return "".join(parts) + "\n"


def case_ref(f: FunctionResult, c: CaseResult) -> str:
    """``pkg.mod.func[case]``, the form ``codemode accept`` takes."""
    return f"{f.id}[{c.id}]"


def named(ids: Sequence[str]) -> str:
    """``a``, ``b``, ``c`` and 2 more: a few names as code spans, the rest counted."""
    shown = ", ".join(span(i) for i in ids[:NAMED])
    return shown + (f" and {len(ids) - NAMED} more" if len(ids) > NAMED else "")


# --- the Functions table and the lines under it ----------------------------------------------


def functions_table(report: Report, overflow: str, links: Links | None = None) -> Section:
    rows = tuple(_function_row(f, links) for f in report.sorted_functions())
    return Section(
        title="Functions",
        items=rows,
        more=lambda n: f"… {n} more function(s), {overflow}",
        head="| Function | Verdict | Cases | Spec |\n|---|---|---|---|\n",
    )


# A zero-width space after each "/" of a spec path lets its cell wrap there: a long path then
# takes two lines instead of pushing the table past a 1000 px window (#35). Function ids stay
# whole: they are pasted into `codemode accept`.
_BREAK = "/\u200b"


def _function_row(f: FunctionResult, links: Links | None = None) -> str:
    passed = sum(1 for c in f.cases if c.status == "passed")
    cases = f"{passed}/{len(f.cases)}" if f.cases else "–"
    spec = "–"
    if f.spec:
        text = span(f"{f.spec}:{f.line}" if f.line else f.spec, cell=True).replace("/", _BREAK)
        url = links.blob(f.spec, f.line) if links else None
        spec = f"[{text}]({url})" if url else text
    name = span(f.id, cell=True)
    source = links.blob(f.path, f.source_line) if links and f.path else None
    if source:
        name = f"[{name}]({source})"
    verdict = f"{ICONS.get(f.status, '')}\u00a0{escape_text(f.status)}"  # one piece: no wrap
    return f"| {name} | {verdict} | {cases} | {spec} |\n"


# Verdicts whose message the sections below do not say already: a drifted function's cases and
# a changed function's calls have sections of their own.
_DETAILED = ("error", "orphaned", "missing", "stale", "skipped")


def function_details(report: Report, overflow: str) -> Section:
    """What a verdict has to say, a line under the table; one line for functions that say the
    same (three functions of one module that cannot be imported)."""
    shared = set(shared_errors(report))
    groups: dict[tuple[str, str], list[FunctionResult]] = {}
    for f in report.sorted_functions():
        text = f"renamed to `{f.renamed_to}`" if f.renamed_to else f.message
        if f.status in _DETAILED and text and text not in shared:
            groups.setdefault((f.status, text), []).append(f)
    items = tuple(_detail(status, text, fs) for (status, text), fs in groups.items())
    return Section("", items, lambda n: f"… {n} more, {overflow}")


def _detail(status: str, text: str, functions: list[FunctionResult]) -> str:
    who = span(functions[0].id) if len(functions) == 1 else named([f.id for f in functions])
    many = f"{len(functions)} functions " if len(functions) > 1 else ""
    via = impact_text(functions[0])
    why = f" ({escape_text(via)})" if via and len(functions) == 1 else ""
    text = short_shas(clip(text, MESSAGE_LIMIT))
    return (
        f"- {ICONS.get(status, '')} {many}{who} **{escape_text(status)}**{why}: {message(text)}\n"
    )


def problems(report: Report, overflow: str) -> Section:
    items = tuple(
        f"- {span(f'{p.file}:{p.line}' if p.line else p.file)}: {escape_text(p.message)}\n"
        for p in report.problems
    )
    return Section("Spec problems", items, lambda n: f"… {n} more problem(s), {overflow}")


# --- drifted and failing cases ---------------------------------------------------------------


def failing_cases(report: Report) -> list[tuple[FunctionResult, CaseResult]]:
    order = FAILING_CASE_ORDER
    pairs = [(f, c) for f in report.sorted_functions() for c in f.cases if c.status in order]
    pairs.sort(key=lambda p: (STATUS_ORDER.get(p[0].status, 9), order[p[1].status]))
    return pairs


def shared_errors(report: Report) -> dict[str, list[tuple[FunctionResult, CaseResult]]]:
    """Case errors with one cause (a module that fails to import fails every case of every
    function in it): message -> the cases, for messages more than one case shares."""
    groups: dict[str, list[tuple[FunctionResult, CaseResult]]] = {}
    for f, c in failing_cases(report):
        if c.status == "error" and c.message:
            groups.setdefault(c.message, []).append((f, c))
    return {m: g for m, g in groups.items() if len(g) > 1}


def cases(report: Report, overflow: str, links: Links | None = None) -> Section:
    shared = shared_errors(report)
    items: list[str] = []
    weights: list[int] = []  # how many cases each item stands for
    for f, c in failing_cases(report):
        group = shared.get(c.message) if c.status == "error" else None
        if group is None:
            items.append(_case_item(f, c, links))
            weights.append(1)
        elif group[0] == (f, c):  # the group, where its first case would be
            items.append(_error_group(group, links))
            weights.append(len(group))
    return Section(
        "Drifted and failing cases",
        tuple(items),
        lambda n: f"… {sum(weights[len(weights) - n :])} more case(s), {overflow}",
        head="expected → observed, most important first\n\n",
    )


def _error_group(group: list[tuple[FunctionResult, CaseResult]], links: Links | None) -> str:
    """One error for many cases: the message once, how many cases, which functions."""
    f, c = group[0]
    ids = list(dict.fromkeys(g.id for g, _ in group))
    at = f" · {where(f.spec, c.line or f.line, links)}" if f.spec else ""
    of = f"of {span(ids[0])}" if len(ids) == 1 else f"in {len(ids)} functions ({named(ids)})"
    text = message(short_shas(clip(c.message, MESSAGE_LIMIT)))
    return f"- {CASE_ICONS['error']} **{plural(len(group), 'case')}** {of} · error{at}: {text}\n"


def _case_item(f: FunctionResult, c: CaseResult, links: Links | None = None) -> str:
    at = f" · {where(f.spec, c.line or f.line, links)}" if f.spec else ""
    status = "" if c.status == CASE_DRIFTED else f" · {escape_text(c.status)}"
    line = f"- {CASE_ICONS.get(c.status, '')} **{span(case_ref(f, c))}**{status}{at}"
    call = f" {span(c.call)}:" if c.call else ""
    # A drifted case: expected → observed says it all, the message would repeat it; a failed
    # evaluator or an error: its message.
    shown = case_pair(c) if c.status == CASE_DRIFTED else None
    if shown is not None:
        line += f":{call} {span(shown[0])} → {span(shown[1])}"
    elif c.message:
        line += f":{call} {message(short_shas(clip(c.message, 300)))}"
    elif call:
        line += f":{call[:-1]}"
    detail = differences_text(c) if shown is not None else ""
    if detail:
        block = fenced(clip(detail, DIFF_LIMIT), "diff")
        line += "\n" + "\n".join(f"  {x}" for x in block.splitlines())
    return line + "\n"
