"""Whether two outcomes of one call differ, and how: pure rules, no process.

An outcome is what the worker said a call did: ``returned`` a canonical value, or ``raised``
an exception (type and message). Values are compared as ``check`` compares a case
(``compare.values_equal``: float tolerance, NaN equal to NaN); a value with no faithful form
(a generator, an object whose repr holds an address) is never a difference on its own, and a
memory address or the side's own directory in a message is not a change of message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from codemode.compare import UNREPRESENTABLE_TAG, values_equal
from codemode.report.model import WitnessKind

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
MAX_MESSAGE = 300
# The worker's error for an output too large to send (runner._too_big, and the parent's
# total for large replies, pool._recv): such a call is not compared, and the diff says so.
_OVERSIZED = re.compile(r"the (output|reply) is [\d.]+ MB as data")


def oversized(kind: str, message: str) -> bool:
    """An outcome that is the error of an output over what one case may return."""
    return kind == "error" and _OVERSIZED.match(message) is not None


class Seen(NamedTuple):
    """One side's outcome of one call, reduced to what a witness shows."""

    kind: str  # returned | raised | error
    value: Any = None
    exc_type: str = ""
    message: str = ""
    clock: bool = False  # the project's code read the clock during the call

    def shown(self) -> dict[str, Any]:
        if self.kind == "returned":
            return {"returned": self.value}
        return {"raised": self.exc_type, "message": self.message}


def seen(
    kind: str, value: Any, exc: dict[str, Any] | None, clock: Any, roots: Sequence[str]
) -> Seen:
    """The worker's outcome as a ``Seen``; ``roots``: the sides' directories, blanked out of
    messages (a path in an exception's text says where the tree was written, not behaviour)."""
    if kind != "raised":
        return Seen(kind, value if kind == "returned" else None, clock=bool(clock))
    exc = exc or {}
    message = str(exc.get("message", ""))
    for root in roots:
        if root:
            message = message.replace(root, "<root>")
    message = _ADDRESS.sub("0x...", message)[:MAX_MESSAGE]
    return Seen("raised", None, str(exc.get("type", "Exception")), message, bool(clock))


def _opaque(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds a part with no faithful form."""
    if depth > 20:
        return False
    if isinstance(value, dict):
        return UNREPRESENTABLE_TAG in value or any(_opaque(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_opaque(v, depth + 1) for v in value)
    return False


def difference(old: Seen, new: Seen, rel_tol: float = 1e-9) -> WitnessKind | None:
    """How ``old`` and ``new`` differ, or None when they agree (or cannot be compared: a side
    that did not run, or values with no faithful form)."""
    if old.kind == "error" or new.kind == "error":
        return None
    if old.kind == "returned" and new.kind == "returned":
        # the default tolerance (1e-9 relative), as check's default
        if values_equal(old.value, new.value):
            return None
        if _opaque(old.value) and _opaque(new.value):
            return None
        return "value"
    if old.kind != new.kind:
        return "value"  # returned on one side, raised on the other
    if old.exc_type != new.exc_type:
        return "exception"
    if old.message != new.message:
        return "message"
    return None


def same(a: Seen, b: Seen, rel_tol: float = 1e-9) -> bool:
    """Two runs of one call on one side agree (the call is deterministic there)."""
    return a.kind == b.kind and difference(a, b, rel_tol) is None
