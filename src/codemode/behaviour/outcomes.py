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
from codemode.worker.tags import OBJECT_TAG

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
    # the receiver's and mutable arguments' state (before, after) the call, each by name
    # (worker/after.py), or None: the call has neither, or the side did not say
    state: tuple[dict[str, Any], dict[str, Any]] | None = None

    def shown(self) -> dict[str, Any]:
        if self.kind == "returned":
            return {"returned": self.value}
        return {"raised": self.exc_type, "message": self.message}


def seen(
    kind: str,
    value: Any,
    exc: dict[str, Any] | None,
    clock: Any,
    roots: Sequence[str],
    after: Any = None,
) -> Seen:
    """The worker's outcome as a ``Seen``; ``roots``: the sides' directories, blanked out of
    messages (a path in an exception's text says where the tree was written, not behaviour);
    ``after``: the state before and after the call (worker/after.py)."""
    state = (after[0], after[1]) if isinstance(after, list) and len(after) == 2 else None
    if kind != "raised":
        return Seen(kind, value if kind == "returned" else None, clock=bool(clock), state=state)
    exc = exc or {}
    message = str(exc.get("message", ""))
    for root in roots:
        if root:
            message = message.replace(root, "<root>")
    message = _ADDRESS.sub("0x...", message)[:MAX_MESSAGE]
    return Seen("raised", None, str(exc.get("type", "Exception")), message, bool(clock), state)


def _opaque(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds a part with no faithful form."""
    if depth > 20:
        return False
    if isinstance(value, dict):
        return UNREPRESENTABLE_TAG in value or any(_opaque(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_opaque(v, depth + 1) for v in value)
    return False


def _formless(value: Any) -> bool:
    return isinstance(value, dict) and UNREPRESENTABLE_TAG in value


def _formed(a: Any, b: Any, depth: int = 0) -> tuple[Any, Any]:
    """``a`` and ``b`` without the parts that have no faithful form on both sides at one place
    (a lock in a node of two parsed trees): such a part is never a difference, and the rest
    of the value still is (a node of another class beside it). A part formless on one side
    only stays: what has a form on the other side differs from it."""
    if _formless(a) and _formless(b):
        return None, None
    if depth > 80:  # deeper than the canonical form writes (its _MAX_DEPTH)
        return a, b
    if isinstance(a, dict) and isinstance(b, dict):
        x, y = dict(a), dict(b)
        for k in a.keys() & b.keys():
            x[k], y[k] = _formed(a[k], b[k], depth + 1)
        return x, y
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = [_formed(i, j, depth + 1) for i, j in zip(a, b)]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    return a, b


def _values_differ(a: Any, b: Any) -> bool:
    """Whether two canonical values differ in a part that has a faithful form on both sides
    (the default tolerance, 1e-9 relative, as check's default)."""
    if values_equal(a, b):
        return False
    x, y = _formed(a, b)
    return not values_equal(x, y)


def difference(old: Seen, new: Seen, rel_tol: float = 1e-9) -> WitnessKind | None:
    """How ``old`` and ``new`` differ, or None when they agree (or cannot be compared: a side
    that did not run, or values with no faithful form). A call whose outcome agrees but that
    left its receiver or an argument in another state differs in value (#32)."""
    kind = _outcome_difference(old, new)
    if kind in (None, "message") and state_change(old, new):
        return "value"
    return kind


def state_change(old: Seen, new: Seen) -> dict[str, tuple[Any, Any]]:
    """What the call left otherwise on each side, by name (``self``, an argument): the parts
    whose state before the call agrees on both sides and whose state after it does not. A
    part that started apart (the class's constructor changed) says nothing of the call; one
    with no faithful form on both sides (an address in its repr) is never a difference; an
    object is compared on the attributes both sides have (a refactor's new attribute is not
    a behaviour)."""
    if old.state is None or new.state is None or "error" in (old.kind, new.kind):
        return {}
    (before_old, after_old), (before_new, after_new) = old.state, new.state
    out: dict[str, tuple[Any, Any]] = {}
    for name in after_old.keys() & after_new.keys():
        if name not in before_old or name not in before_new:
            continue
        if not values_equal(before_old[name], before_new[name]):
            continue
        a, b = _shared(after_old[name], after_new[name])
        if not _values_differ(a, b):
            continue
        out[name] = (a, b)
    return out


def _shared(a: Any, b: Any) -> tuple[Any, Any]:
    """Two objects' canonical forms on the attributes both have; other values as they are."""
    if isinstance(a, dict) and isinstance(b, dict) and OBJECT_TAG in a and OBJECT_TAG in b:
        # an attribute with no faithful form (a lock, a handle) is left out, not the object
        keys = [k for k in a.keys() & b.keys() if not (_opaque(a[k]) or _opaque(b[k]))]
        return {k: a[k] for k in keys}, {k: b[k] for k in keys}
    return a, b


def shown_states(old: Seen, new: Seen) -> tuple[dict[str, Any], dict[str, Any]]:
    """Each side's outcome as a witness shows it: with ``after`` (the parts the call left
    otherwise, by name) when only the state tells the versions apart."""
    a, b = old.shown(), new.shown()
    changed = state_change(old, new) if _outcome_difference(old, new) in (None, "message") else {}
    if changed:
        a["after"] = {name: pair[0] for name, pair in changed.items()}
        b["after"] = {name: pair[1] for name, pair in changed.items()}
    return a, b


def _outcome_difference(old: Seen, new: Seen) -> WitnessKind | None:
    if old.kind == "error" or new.kind == "error":
        return None
    if old.kind == "returned" and new.kind == "returned":
        return "value" if _values_differ(old.value, new.value) else None
    if old.kind != new.kind:
        return "value"  # returned on one side, raised on the other
    if old.exc_type != new.exc_type:
        return "exception"
    if old.message != new.message:
        return "message"
    return None


def same(a: Seen, b: Seen, rel_tol: float = 1e-9, *, state: bool = True) -> bool:
    """Two runs of one call on one side agree (the call is deterministic there); without
    ``state``, on what the call returned or raised alone."""
    if not state:
        return a.kind == b.kind and _outcome_difference(a, b) is None
    return a.kind == b.kind and difference(a, b, rel_tol) is None


def by_state(old: Seen, new: Seen) -> bool:
    """Whether only the state the call left tells ``old`` and ``new`` apart (their outcomes
    agree, or differ in a message alone)."""
    return _outcome_difference(old, new) in (None, "message")
