"""Every reply from the worker is checked against its schema before it becomes an Outcome (#21).

The worker runs the code under review, so a reply line is hostile input: a field of the wrong
type (``"exc": "boom"``, ``"lines": 5``, ``"fatal": [...]``), a value that cannot be decoded (a
timedelta of 10^10 days, a Decimal of ``"not-a-number"``) or a reply for another case than the
one awaited is an ``error`` of the awaited case, with a message that says so: never a crash of
the run (exit 3), never an outcome given to another case.
"""

from __future__ import annotations

import math
from typing import Any

from codemode.worker.outcome import Outcome, TypeMismatch

KINDS = ("returned", "raised", "error")


class BadReply(ValueError):
    """The reply does not fit the protocol; the message says which field."""


def check_decoded(line: str, loads: Any) -> Any:
    """``loads(line)``, any exception of decoding (OverflowError, decimal's InvalidOperation,
    RecursionError...) turned into BadReply."""
    try:
        return loads(line)
    except Exception as exc:  # a tagged value's own constructor may raise anything
        raise BadReply(f"unreadable reply from the worker: {type(exc).__name__}: {exc}") from exc


def _is_str_or_none(v: Any) -> bool:
    return v is None or isinstance(v, str)


def is_number_or_none(v: Any) -> bool:
    return v is None or (
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    )


def _check_exc(exc: Any) -> None:
    if exc is None:
        return
    if not isinstance(exc, dict):
        raise BadReply(f"'exc' is {type(exc).__name__}, not a mapping")
    for key in ("type", "qualname", "message", "where", "origin"):
        if not _is_str_or_none(exc.get(key)):
            raise BadReply(f"'exc.{key}' is not text")
    mro = exc.get("mro", [])
    if not isinstance(mro, list) or not all(isinstance(m, str) for m in mro):
        raise BadReply("'exc.mro' is not a list of names")


# The reply of a case that returned, with nothing asked beyond its value: most replies. Its
# one field to check is the duration (the value is the user's data, any JSON).
_RETURNED = frozenset({"case", "outcome", "value", "duration_ms"})


def check_case_reply(reply: dict[str, Any], case_id: str) -> None:
    """Raise BadReply unless ``reply`` is a well-formed answer for ``case_id``."""
    if reply.get("case") != case_id:
        raise BadReply(
            f"a reply for case {reply.get('case')!r} arrived while case {case_id!r} was awaited "
            "(something wrote to the worker's channel)"
        )
    if (
        reply.keys() == _RETURNED
        and reply["outcome"] == "returned"
        and is_number_or_none(reply["duration_ms"])
    ):
        return  # every check below holds for it (#20: ~2 us of every case)
    kind = reply.get("outcome", "error")
    if kind not in KINDS:
        raise BadReply(f"'outcome' is {kind!r}, not one of {', '.join(KINDS)}")
    _check_exc(reply.get("exc"))
    if kind == "raised" and not isinstance(reply.get("exc"), dict):
        raise BadReply("a raised outcome without its exception")
    for key in ("message", "clock", "blocked", "built"):
        if key in reply and not _is_str_or_none(reply[key]):
            raise BadReply(f"'{key}' is not text")
    if not is_number_or_none(reply.get("duration_ms")):
        raise BadReply("'duration_ms' is not a finite number")
    lines = reply.get("lines")
    if lines is not None and not (isinstance(lines, list) and all(type(n) is int for n in lines)):
        raise BadReply("'lines' is not a list of line numbers")
    types = reply.get("types", [])
    if not isinstance(types, list) or not all(
        t is None or isinstance(t, (str, dict)) for t in types
    ):
        raise BadReply("'types' is not a list of answers")
    if reply.get("args") is not None and not isinstance(reply["args"], list):
        raise BadReply("'args' is not a list")
    if reply.get("kwargs") is not None and not isinstance(reply["kwargs"], dict):
        raise BadReply("'kwargs' is not a mapping")
    after = reply.get("after")
    if after is not None and not (
        isinstance(after, list) and len(after) == 2 and all(isinstance(a, dict) for a in after)
    ):
        raise BadReply("'after' is not the state before and after the call")


def check_fatal(reply: dict[str, Any]) -> None:
    if not isinstance(reply.get("fatal"), str) or not _is_str_or_none(reply.get("message")):
        raise BadReply("a fatal reply whose kind or message is not text")


# --- a reply as an Outcome ---------------------------------------------------------------


def bad_reply(reply: dict[str, Any], case_id: str) -> str | None:
    """Why ``reply`` cannot be the answer for ``case_id``, or None when it fits its schema."""
    if "bad" in reply:
        return str(reply["bad"])
    try:
        if "fatal" in reply:
            check_fatal(reply)
        else:
            check_case_reply(reply, case_id)
    except BadReply as exc:
        return f"the worker's reply does not fit the protocol: {exc}"
    return None


def type_mismatch(answer: Any) -> TypeMismatch | None:
    if answer is None:
        return None
    if isinstance(answer, dict):
        return TypeMismatch(str(answer.get("spec_error")), spec_error=True)
    return TypeMismatch(str(answer))


_RETURNED_TYPED = _RETURNED | {"types"}


def plain_outcome(reply: dict[str, Any], case_id: str) -> Outcome | None:
    """The outcome of the commonest reply, a value returned with nothing else asked but type
    checks that held, read as ``bad_reply`` and ``outcome`` read it, in one step (#36: most
    of 2,000 replies); None for any other reply, which they read."""
    keys = reply.keys()
    if keys == _RETURNED:
        types: list[TypeMismatch | None] = []
    elif keys == _RETURNED_TYPED and type(reply["types"]) is list:
        types = reply["types"]
        if any(t is not None for t in types):
            return None
        types = [None] * len(types)
    else:
        return None
    case, took = reply["case"], reply["duration_ms"]
    if type(case) is not str or case != case_id or reply["outcome"] != "returned":
        return None
    if not is_number_or_none(took):
        return None
    return Outcome(case, "returned", reply["value"], None, "", took, types)


def outcome(reply: dict[str, Any], case_id: str) -> Outcome:
    kind = reply.get("outcome", "error")
    return Outcome(
        case=str(reply.get("case", case_id)),
        kind=kind,
        value=reply.get("value"),
        exc=reply.get("exc"),
        message=reply.get("message", ""),
        duration_ms=reply.get("duration_ms"),
        types=[type_mismatch(t) for t in reply.get("types", ())],
        lines=reply.get("lines"),
        typed=reply.get("typed"),
        args=reply.get("args"),
        kwargs=reply.get("kwargs"),
        clock=reply.get("clock"),
        blocked=reply.get("blocked"),
        built=reply.get("built"),
        after=reply.get("after"),
        callable=reply.get("callable") is True,
    )
