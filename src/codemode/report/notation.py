"""One notation for values in a rendering: the Python literal that builds them (#35).

A reviewer who reads ``{"message": "Invalid month 13", "raised": "ValueError"}`` in one section
and ``'silver' → 'gold'`` in the next has to translate; everything the PR comment shows of a
value goes through here instead: a returned value as its literal (``report.call.literal``), an
exception as ``raises ValueError: Invalid month 13``, a spec's ``raises:`` as ``raises
ValueError matching 'negative'``, and two long values cut to the window where they differ.
"""

from __future__ import annotations

from typing import Any

from codemode.report.call import literal
from codemode.report.model import CaseResult

VALUE_WIDTH = 120  # characters of one value before it is cut around its first difference


def raised(value: Any) -> tuple[str, str] | None:
    """(type, message) when ``value`` is an outcome that raised (``{"raised": T, "message":
    m}``, what the worker reports for a case or a witness), else None."""
    if isinstance(value, dict) and "raised" in value and set(value) <= {"raised", "message"}:
        return str(value["raised"]), str(value.get("message") or "")
    return None


def raises_spec(value: Any) -> tuple[str, str] | None:
    """(type, match) when ``value`` is a case's expected exception (``{"raises": T, "match":
    m}``, as the check reports a ``raises:`` case), else None."""
    if isinstance(value, dict) and "raises" in value and set(value) <= {"raises", "match"}:
        return str(value["raises"]), str(value.get("match") or "")
    return None


def value_text(value: Any, width: int = VALUE_WIDTH) -> str:
    """A returned value, or what an outcome or expectation says, in Python's words."""
    exc = raised(value)
    if exc is not None:
        kind, text = exc
        return f"raises {kind}" + (f": {_middle(text, width)}" if text else "")
    spec = raises_spec(value)
    if spec is not None:
        kind, match = spec
        return f"raises {kind}" + (f" matching {_cut(literal(match), width)}" if match else "")
    return _cut(literal(value), width)


def outcome_value(outcome: Any) -> Any:
    """A witness's outcome (``{"returned": v}`` or a raise) as ``value_text`` reads it."""
    if isinstance(outcome, dict) and set(outcome) == {"returned"}:
        return outcome["returned"]
    return outcome


def pair(expected: Any, observed: Any, width: int = VALUE_WIDTH) -> tuple[str, str]:
    """Expected and observed, each in Python's words; two long literals are cut to the same
    window around their first difference, so the difference is never cut off."""
    if raised(observed) or raises_spec(expected) or raised(expected):
        return value_text(expected, width), value_text(observed, width)
    from codemode.compare import window  # difflib, json: only when a value is shown

    return window(expected, observed, width, show=literal)


def case_pair(c: CaseResult, width: int = VALUE_WIDTH) -> tuple[str, str] | None:
    """A failing case's expected and observed values, or None when the case has no observed
    outcome to show: an error (an import that failed, a timeout) is a message, never a value
    (``31 → None`` for a case whose module could not be imported, #35)."""
    if c.status == "error" or not c.has_expected:
        return None
    if c.observed is None and c.status != "drifted":
        return None
    return pair(c.expected, c.observed, width)


def differences_text(c: CaseResult) -> str:
    """Where a drifted case's structured value differs, ``[2]: 251 → 250`` a line; for two
    strings of several lines, the case's own line diff. Empty when one line says it all."""
    e, o = c.expected, c.observed
    if isinstance(e, str) and isinstance(o, str):
        return c.diff if ("\n" in e or "\n" in o) else ""
    if not (isinstance(e, (dict, list)) and isinstance(o, (dict, list))) or raised(o):
        return ""
    from codemode.compare import differences

    lines = differences(e, o, show=literal)
    return "" if len(lines) == 1 and lines[0].startswith("output:") else "\n".join(lines)


def _middle(text: str, width: int) -> str:
    """A message cut in the middle: Python's own messages end with what they are about
    (``... missing 1 required positional argument: 'day'``, #35)."""
    if len(text) <= width:
        return text
    tail = width // 3
    return text[: width - tail - 1] + "…" + text[-tail:]


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
