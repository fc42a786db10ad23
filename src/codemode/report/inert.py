"""A report whose every string is inert on a terminal (#33).

An exception's message, a returned string, a worker's last line of stderr: whatever the code
under test produced reaches the report as text, and printed raw, ``\\x1b[2J`` clears the
user's screen and ``\\x1b]0;...\\x07`` retitles the window. The terminal renderings take the
report through ``inert_report`` first, so every control character in data is shown as its
escape; the colours they add themselves come after, and are the only sequences printed.
"""

from __future__ import annotations

from typing import Any, TypeVar

from codemode.logsafe import inert
from codemode.report.model import CASE_PASSED, CaseResult

T = TypeVar("T")


def inert_report(report: T, *, passed_as_is: bool = False) -> T:
    """``report`` (or any record of the report's) with ``logsafe.inert`` applied to every
    string in it: the records' fields, the user's values (dict keys too), the witnesses.

    ``passed_as_is``: passed cases are left as they are, for a rendering that prints none of
    their text (the terminal's without ``--verbose`` counts them only): walking 2,000 cases'
    values was most of the time the report took to print."""
    return _inert(report, 0, passed_as_is)  # type: ignore[no-any-return]


def _inert(value: Any, depth: int, passed_as_is: bool) -> Any:
    if isinstance(value, str):
        out = inert(value)
        return value if out == value else out  # the same object: its record is kept as is
    if depth > 100:  # canonical data is bounded well below this; never a recursion error
        return value
    if isinstance(value, tuple):
        if passed_as_is and type(value) is CaseResult and value.status == CASE_PASSED:
            return value
        items = [_inert(v, depth + 1, passed_as_is) for v in value]
        if _same(items, value):
            return value  # nothing to escape: the record itself, not a copy
        return type(value)._make(items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, list):
        items = [_inert(v, depth + 1, passed_as_is) for v in value]
        return value if _same(items, value) else items
    if isinstance(value, dict):
        pairs = [
            (_inert(k, depth + 1, passed_as_is), _inert(v, depth + 1, passed_as_is))
            for k, v in value.items()
        ]
        same = all(k is a and v is b for (k, v), (a, b) in zip(pairs, value.items()))
        return value if same else dict(pairs)
    return value


def _same(items: list[Any], values: Any) -> bool:
    return all(a is b for a, b in zip(items, values))
