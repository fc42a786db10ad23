"""What a call left in its receiver and its mutable arguments: the behaviour diff's view of a
method that returns None and changes its object (#32). Runs in the worker.

``bits.append(x)``, ``d.update(...)``, ``counter.reset()`` return None on both sides; only the
state they leave tells the versions apart. So, when the case asks (``after``), the worker
renders, after the call, the receiver of a bound method and every argument of a mutable
kind, in canonical data (worker/canonical.py: public attributes or a repr; an object whose
repr holds an address has no faithful form, and the parent never counts such a part as a
difference). The rendering is bounded: past ``MAX_CHARS`` of JSON a part is its length and a
digest, the same on both sides when the state is. Immutable arguments (text, numbers, tuples)
are never rendered: they cannot change, and most calls pass only those.
"""

from __future__ import annotations

import json
import time
import types

from .canonical import canonical
from .params import positional_names
from .tags import REPR_TAG, UNREPRESENTABLE_TAG

TYPE_CHECKING = False  # not typing's: importing typing costs the worker's start (canonical.py)
if TYPE_CHECKING:
    from typing import Any

MAX_CHARS = 20_000  # JSON characters of one rendered part, past which it is a digest
# Seconds the state before a call may take to render; past it the call is compared on its
# outcome alone: a receiver holding a parser's tables would slow every call of the diff.
MAX_SECONDS = 0.02
# Kinds whose instances a call cannot change (a tuple's items could be, but a call that changes
# an item of a tuple it was given is rare, and rendering every tuple would cost every call).
_FIXED = (str, bytes, int, float, complex, bool, type(None), tuple, frozenset, range, type)


def state(func: Any, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any] | None:
    """The receiver's and the mutable arguments' canonical state, by name, or None when the
    call has neither (or it is too slow to render)."""
    started = time.perf_counter()
    parts: dict[str, Any] = {}
    receiver = getattr(func, "__self__", None)
    if receiver is not None and not isinstance(receiver, (type, types.ModuleType)):
        parts["self"] = receiver
    names = positional_names(func)
    for i, value in enumerate(args):
        if not isinstance(value, _FIXED):
            parts[names[i] if i < len(names) else f"argument {i + 1}"] = value
    for name, value in kwargs.items():
        if not isinstance(value, _FIXED):
            parts[str(name)] = value
    if not parts:
        return None
    out = {name: _rendered(value) for name, value in parts.items()}
    return out if time.perf_counter() - started < MAX_SECONDS else None


def _rendered(value: Any) -> Any:
    try:
        data = canonical(value)
        text = json.dumps(data, sort_keys=True, default=repr)
    except Exception as exc:  # a property that raises, keys that do not sort: no form
        return {UNREPRESENTABLE_TAG: f"state not readable ({type(exc).__name__})"}
    if len(text) <= MAX_CHARS:
        return data
    import hashlib

    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return {REPR_TAG: f"<state of {len(text):,} characters, sha256 {digest}>"}
