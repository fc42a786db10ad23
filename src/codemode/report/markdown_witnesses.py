"""The PR comment's behaviour changes: the behaviour diff's witnesses, grouped per function.

A change to one helper alters the outcome of hundreds of calls across its callers, most of
them the same input re-dressed (padded, upper-cased, ``!`` appended: the pool's variants).
A reviewer needs what kinds of change there are, not each call (#35): per function, one call
for each distinct kind of outcome change (``'a' → 'A'``, ``'item' → raises ValueError``, a
message that changed), at most ``MAX_CALLS``, and the rest counted. The JSON report holds
them all. What the diff has to say of a function (its budget cut the search, it could not
compare) is on the function's own line, never under its last call.
"""

from __future__ import annotations

from collections.abc import Sequence

from codemode.report.markdown_inline import escape_text, plural, span
from codemode.report.markdown_sections import ICONS, Section, failing_cases, named
from codemode.report.model import FunctionResult, Report, Witness, impact_text
from codemode.report.notation import outcome_value, value_text
from codemode.report.witness import only_messages, representative, shape, state_text

MAX_CALLS = 5  # witness calls listed per function
VALUE_WIDTH = 100  # characters of one outcome in a witness line


def representatives(witnesses: Sequence[Witness], most: int = MAX_CALLS) -> list[Witness]:
    """One witness of each kind of outcome change (``report.witness.shape``), first come
    first, at most ``most``; two when they are all of one kind: a pattern, not a list."""
    kinds = len({shape(w) for w in witnesses})
    return representative(witnesses, min(most, max(2, kinds)))


def witness_line(w: Witness) -> str:
    state = state_text(w.old, w.new, VALUE_WIDTH)
    if state:  # the outcome agrees; the state the call left does not (#32)
        return f"- {span(w.call)}: {escape_text(state)}\n"
    old = value_text(outcome_value(w.old), VALUE_WIDTH)
    new = value_text(outcome_value(w.new), VALUE_WIDTH)
    what = " (message changed)" if w.kind == "message" else ""
    return f"- {span(w.call)}: {span(old)} → {span(new)}{escape_text(what)}\n"


def _function_item(f: FunctionResult) -> str:
    shown = representatives(f.witnesses)
    note = f" · {escape_text(f.diff_note)}" if f.diff_note else ""
    if f.impacted_by:  # its own code did not change: say through what it reaches the change
        note = f" · {escape_text(impact_text(f))}{note}"
    n = len(f.witnesses)
    icon = ICONS["message_changed" if only_messages(f.witnesses) else "changed"]
    head = (
        f"{icon} **{span(f.id)}** · {plural(n, 'call')} {'differs' if n == 1 else 'differ'}{note}\n"
    )
    lines = [witness_line(w) for w in shown]
    left = len(f.witnesses) - len(shown)
    if left:
        lines.append(
            f"- _… {plural(left, 'more call')} of {'these kinds' if len(shown) > 1 else 'this kind'}_\n"
        )
    return head + "".join(lines) + "\n"


def _unrepeated(note: str, errors: Sequence[str]) -> str:
    """``note`` without a tail that an error shown above already says in full (the module
    that failed to import fails the cases too): the error is shown once (#35)."""
    parts = note.split(": ")
    for i in range(1, len(parts)):
        if any(": ".join(parts[i:]) in e for e in errors):
            return ": ".join(parts[:i]) + " (the error above)"
    return note


def _notes(report: Report) -> list[str]:
    """What the diff says of functions it found no witness for (a change accepted, a side
    that could not be compared, calls that vary between runs): one line per note, with the
    functions it is about."""
    errors = list({c.message for _, c in failing_cases(report) if c.status == "error"} - {""})
    by_note: dict[str, list[str]] = {}
    for f in report.sorted_functions():
        if f.status == "unstable":  # what it could not compare, and one such call (#32)
            by_note.setdefault(f"unstable: {f.message}", []).append(f.id)
        if f.diff_note and not f.witnesses:
            by_note.setdefault(_unrepeated(f.diff_note, errors), []).append(f.id)
    # paragraphs, not list items: after a function's list of calls, an item would join it
    return [f"ℹ️ {named(ids)}: {escape_text(note)}\n\n" for note, ids in by_note.items()]


def witnesses(report: Report, overflow: str) -> Section:
    """Each function's witnesses: a few representative calls, the rest counted."""
    changed = [f for f in report.sorted_functions() if f.witnesses]
    items = [_function_item(f) for f in changed]
    notes = _notes(report)
    if notes:
        items.append("".join(notes)[:-1])  # the section ends the last paragraph
    total = sum(len(f.witnesses) for f in changed)
    head = ""
    if changed:
        head = (
            f"{plural(total, 'call')} in {plural(len(changed), 'function')} changed outcome, "
            f"old → new; a call of each kind is shown, the report lists them all\n\n"
        )
    return Section("Behaviour changes", tuple(items), lambda n: f"… {n} more, {overflow}", head)
