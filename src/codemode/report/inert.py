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

T = TypeVar("T")


def inert_report(report: T) -> T:
    """``report`` (or any record of the report's) with ``logsafe.inert`` applied to every
    string in it: the records' fields, the user's values (dict keys too), the witnesses."""
    return _inert(report, 0)  # type: ignore[no-any-return]


def _inert(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return inert(value)
    if depth > 100:  # canonical data is bounded well below this; never a recursion error
        return value
    if isinstance(value, tuple):
        items = [_inert(v, depth + 1) for v in value]
        return type(value)._make(items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, list):
        return [_inert(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {_inert(k, depth + 1): _inert(v, depth + 1) for k, v in value.items()}
    return value
