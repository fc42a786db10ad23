"""Which recorded calls may become cases, and what a case may pin: one set of rules for the
offline explorer and the model's choices alike.

- A ``TypeError`` or ``AttributeError`` raised inside the body on an input of the wrong type
  (``2.5.lower()``) is an accident of the input, not behaviour: such a call never becomes a
  case. A ``raise`` in the project's own code (the function or an in-repo callee) is a
  deliberate error and may.
- ``match:`` pins only a message the project's own ``raise`` wrote, whole (``^...$``). The interpreter's wording
  (``expected string or bytes-like object, got 'float'``) changes between Python versions,
  so a case on it would drift on 3.10 and pass on 3.13.
"""

from __future__ import annotations

from typing import Any

INCIDENTAL = frozenset({"TypeError", "AttributeError"})


def raised_by_project(exc: dict[str, Any] | None) -> bool:
    return bool(exc) and (exc or {}).get("origin") == "project"


def incidental(kind: str, exc: dict[str, Any] | None) -> bool:
    """A wrong-type accident: TypeError/AttributeError (or a failed unpacking, a wrong-shape
    input) not raised by the project's code."""
    if kind != "raised" or not exc or raised_by_project(exc):
        return False
    if str(exc.get("type")) == "ValueError":
        return "values to unpack" in str(exc.get("message", ""))
    return str(exc.get("type")) in INCIDENTAL


def portable_match(exc: dict[str, Any] | None, limit: int = 80) -> str | None:
    """The ``match:`` regex for a raised exception, or None when it should not have one."""
    if not raised_by_project(exc):
        return None
    message = str((exc or {}).get("message", ""))
    if not message or len(message) > limit or "\n" in message:
        return None
    import re

    # anchored: a search for the bare words would pass a changed message that still holds
    # them ("XXnegative rateXX", "negative rate, got -1")
    return "^" + re.escape(message).replace("\\ ", " ") + "$"
