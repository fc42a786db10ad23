"""Compare canonical values: float tolerance, NaN equal to NaN, bools never equal to ints.

Floats compare with a relative tolerance only (``float_tolerance``), plus an absolute one
that is zero unless ``float_abs_tolerance`` says otherwise: a hidden absolute floor made
``0.0`` equal to ``6.6e-34`` and ``-5e-13`` equal to ``5e-13`` (#21). An int compared with an
int, or with a float, is exact: ``1e17`` is not ``100000000000000001``.

Both sides are canonical data (``worker.canonical.canonical``): the expected value from
YAML and the observed value from the worker went through the same function, so tuples
already are lists, sets sorted lists, dataclasses dicts, dates ISO strings.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Callable
from typing import Any, NamedTuple

# The canonical form's tags, from the worker's one module of constants (it imports nothing,
# so the terminal report does not pay for the worker's canonical code).
from codemode.worker.tags import BYTES_TAG as BYTES_TAG
from codemode.worker.tags import UNREPRESENTABLE_TAG as UNREPRESENTABLE_TAG


class Tolerance(NamedTuple):
    """How close two floats must be: ``[tool.codemode] float_tolerance`` (relative) and
    ``float_abs_tolerance`` (absolute, 0 unless the project asks for one)."""

    rel: float = 1e-9
    abs: float = 0.0


DEFAULT_TOLERANCE = Tolerance()


def _numbers_equal(expected: int | float, observed: int | float, tol: Tolerance) -> bool:
    if isinstance(expected, int) or isinstance(observed, int):
        # Exact: an int equals a float only when the float is that very integer.
        other = observed if isinstance(expected, int) else expected
        mine = expected if isinstance(expected, int) else observed
        if isinstance(other, float):
            return other.is_integer() and int(other) == mine
        return bool(expected == observed)
    if math.isnan(expected) or math.isnan(observed):
        return math.isnan(expected) and math.isnan(observed)
    if math.isinf(expected) or math.isinf(observed):
        return expected == observed
    return math.isclose(expected, observed, rel_tol=tol.rel, abs_tol=tol.abs)


# Types whose two values of the same type are equal exactly when ``==`` says so here.
_EXACT = frozenset({str, int, bool, type(None)})


def values_equal(expected: Any, observed: Any, tol: Tolerance = DEFAULT_TOLERANCE) -> bool:
    kind = type(expected)
    if kind is type(observed) and kind in _EXACT:  # most outputs: what general_equal says
        return bool(expected == observed)
    return general_equal(expected, observed, tol)


def general_equal(expected: Any, observed: Any, tol: Tolerance = DEFAULT_TOLERANCE) -> bool:
    """``values_equal`` without its shortcut (a test holds the two to one answer)."""
    if isinstance(expected, bool) or isinstance(observed, bool):
        return type(expected) is type(observed) and expected == observed
    if isinstance(expected, (int, float)) and isinstance(observed, (int, float)):
        return _numbers_equal(expected, observed, tol)
    if isinstance(expected, list) and isinstance(observed, list):
        return len(expected) == len(observed) and all(
            values_equal(e, o, tol) for e, o in zip(expected, observed)
        )
    if isinstance(expected, dict) and isinstance(observed, dict):
        if UNREPRESENTABLE_TAG in observed or UNREPRESENTABLE_TAG in expected:
            return False
        return expected.keys() == observed.keys() and all(
            values_equal(v, observed[k], tol) for k, v in expected.items()
        )
    if type(expected) is not type(observed):
        return False
    return bool(expected == observed)


def _path(parent: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if isinstance(key, str) and key.isidentifier():
        return f"{parent}.{key}" if parent else key
    return f"{parent}[{key!r}]"


def differences(
    expected: Any,
    observed: Any,
    tol: Tolerance = DEFAULT_TOLERANCE,
    path: str = "",
    limit: int = 5,
    show: Callable[[Any], str] | None = None,
) -> list[str]:
    """Where two values differ, as ``path: expected → observed`` lines (at most ``limit``);
    ``show`` writes a value (``render`` by default; the PR comment writes Python)."""
    out: list[str] = []

    def walk(e: Any, o: Any, p: str) -> None:
        if len(out) >= limit or values_equal(e, o, tol):
            return
        if isinstance(e, dict) and isinstance(o, dict) and UNREPRESENTABLE_TAG not in o:
            # Walk in the expected value's key order: set order varies between processes
            # (string hashing is salted), and a diff must read the same on every run.
            for k in e:
                if k not in o:
                    out.append(f"{_path(p, k)}: missing (expected {short(e[k], show=show)})")
            for k in o:
                if k not in e:
                    out.append(f"{_path(p, k)}: unexpected key (observed {short(o[k], show=show)})")
            for k in e:
                if k in o:
                    walk(e[k], o[k], _path(p, k))
            return
        if isinstance(e, list) and isinstance(o, list):
            if len(e) != len(o):
                out.append(f"{p or 'output'}: length {len(e)} → {len(o)}")
            for i, (a, b) in enumerate(zip(e, o)):
                walk(a, b, _path(p, i))
            return
        out.append(f"{p or 'output'}: {short(e, show=show)} → {short(o, show=show)}")

    walk(expected, observed, path)
    return out[:limit]


def short(value: Any, width: int = 80, show: Callable[[Any], str] | None = None) -> str:
    text = (show or render)(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def window(
    expected: Any, observed: Any, width: int = 80, show: Callable[[Any], str] | None = None
) -> tuple[str, str]:
    """Both renderings, cut to the same window around their first difference (as pytest shows
    long strings): two long values that differ at the end are never both cut before it.
    ``show`` writes a value (``render`` by default)."""
    a, b = (show or render)(expected), (show or render)(observed)
    if len(a) <= width and len(b) <= width:
        return a, b
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, first - width // 3)
    if start < 8:  # a few skipped characters are not worth the ellipsis
        start = 0

    def cut(text: str) -> str:
        end = start + width
        return ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")

    return cut(a), cut(b)


def render(value: Any) -> str:
    """A compact, YAML-flavoured rendering of a canonical value for messages."""
    if isinstance(value, dict) and UNREPRESENTABLE_TAG in value:
        return f"<no faithful form: {value[UNREPRESENTABLE_TAG]}>"
    if isinstance(value, dict) and BYTES_TAG in value and len(value) == 1:
        return f"<bytes base64:{value[BYTES_TAG]}>"
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=True, default=repr)
    except (TypeError, ValueError):
        return repr(value)


def text_diff(expected: Any, observed: Any, limit: int = 12) -> str:
    """A unified diff of the two values' pretty forms, for long strings and big structures."""
    if isinstance(expected, str) and isinstance(observed, str):
        a, b = expected.splitlines(), observed.splitlines()
    else:
        a = json.dumps(
            expected, indent=1, ensure_ascii=False, default=repr, sort_keys=False
        ).splitlines()
        b = json.dumps(
            observed, indent=1, ensure_ascii=False, default=repr, sort_keys=False
        ).splitlines()
    lines = list(difflib.unified_diff(a, b, "expected", "observed", lineterm="", n=1))
    if len(lines) > limit:
        lines = [*lines[:limit], f"… {len(lines) - limit} more diff lines"]
    return "\n".join(lines)


def describe(expected: Any, observed: Any, tol: Tolerance = DEFAULT_TOLERANCE) -> str:
    """The short diff shown under a drifted case."""
    diffs = differences(expected, observed, tol)
    if (
        isinstance(expected, str)
        and isinstance(observed, str)
        and ("\n" in expected or "\n" in observed)
    ):
        return text_diff(expected, observed)
    if len(diffs) == 1 and diffs[0].startswith("output:"):
        return ""  # the expected → observed line already says it all
    return "\n".join(diffs)
