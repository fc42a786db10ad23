"""One way to show a call: ``loyalty_tier(4999)``, as a reviewer would type it.

A drifted case and a behaviour-diff witness are both a call and two outcomes; a reader sees
which call without opening the spec. Arguments are canonical data (what specs hold and the
worker records), written back as Python literals; a long argument is cut to the width a long
value gets (``compare.short``), so one 10 kB string never buries the line.
No imports beyond the standard library's cheapest: the terminal report of every hook run may
call this.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from codemode.compare import BYTES_TAG, UNREPRESENTABLE_TAG

VALUE_WIDTH = 80  # compare.short's width: one argument is cut like one long value
MAX_ARGS = 8  # past this many arguments the rest are counted, not shown


def short_name(function_id: str) -> str:
    """``shop.customers.loyalty_tier`` -> ``loyalty_tier``; ``shop.cart.Cart.total`` ->
    ``Cart.total`` (class names, capitalized by convention, stay with their method)."""
    parts = function_id.split(".")
    keep = [parts[-1]]
    for part in reversed(parts[:-1]):
        if not part[:1].isupper():
            break
        keep.insert(0, part)
    return ".".join(keep)


def format_call(
    function_id: str,
    inputs: Sequence[Any] | Mapping[str, Any] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    width: int = VALUE_WIDTH,
) -> str:
    """``name(arg, ..., key=value)``. ``inputs`` as a spec's ``inputs:`` means it (a list is
    positional, a dict keyword); ``kwargs`` adds keyword arguments to positional ``inputs``."""
    args: Sequence[Any] = ()
    keywords: dict[str, Any] = {}
    if isinstance(inputs, Mapping):
        keywords.update(inputs)
    else:
        args = inputs
    if kwargs:
        keywords.update(kwargs)
    shown = [_cut(literal(a), width) for a in args]
    odd = {}
    for key, value in keywords.items():
        if isinstance(key, str) and key.isidentifier():
            shown.append(f"{key}={_cut(literal(value), width)}")
        else:  # a key no keyword argument can spell (only a **mapping can pass it)
            odd[key] = value
    if odd:
        shown.append("**" + _cut(literal(odd), width))
    if len(shown) > MAX_ARGS:
        shown = [*shown[:MAX_ARGS], f"… {len(shown) - MAX_ARGS} more"]
    return f"{short_name(function_id)}({', '.join(shown)})"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def literal(value: Any) -> str:
    """A canonical value as the Python literal that builds it (``repr`` of the data, with the
    canonical tags turned back: bytes as ``b'…'``, floats that repr cannot spell as
    ``float('nan')``)."""
    if isinstance(value, float):
        text = repr(value)
        return f"float('{text}')" if text in ("nan", "inf", "-inf") else text
    if isinstance(value, dict):
        if UNREPRESENTABLE_TAG in value:
            return f"<no faithful form: {value[UNREPRESENTABLE_TAG]}>"
        if BYTES_TAG in value and len(value) == 1:
            return _bytes(value[BYTES_TAG])
        items = ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items())
        return "{" + items + "}"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def _bytes(encoded: Any) -> str:
    import base64  # only when a call holds bytes
    import binascii

    try:
        return repr(base64.b64decode(str(encoded), validate=True))
    except (binascii.Error, ValueError):
        return f"<bytes base64:{encoded}>"
