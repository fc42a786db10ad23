"""From recorded calls to on-disk cases: expectations copied from the record, ids made safe.

Whoever chooses (the model or the offline explorer), the expected value, the ``raises``
class and the ``match`` text of a case come from here, from what the worker observed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from codemode.explore.record import CallRecord
from codemode.explore.selection import admit
from codemode.explore.selection.admit import portable_match
from codemode.explore.target import TargetInfo, bind_keywords
from codemode.report.model import Refusal
from codemode.specs.write import yaml_safe
from codemode.worker.canonical import has_faithful_form

_ID_BAD = re.compile(r"[^a-z0-9_]+")


def safe_id(text: str) -> str:
    out = _ID_BAD.sub("_", text.strip().lower()).strip("_")
    return (out or "case")[:60]


# A case id a reviewer reads at a glance: under 32 characters (#23 found
# `cents_example_minus_one_and_rate_above_0_2`). Shortened in steps, each only while the id
# is still too long: the words of our own value labels (values.py, variants.py), then the
# joins of one parameter's label to the next, then whole words from the end.
MAX_ID = 31
_SHORTER = (
    ("_example_", "_"),
    ("example_", ""),
    ("docstring_", "doc_"),
    ("_and_", "_"),
    ("surrounding_whitespace", "padded"),
    ("compatibility", "compat"),
    ("negative", "neg"),
    ("minus_one", "minus1"),
    ("plus_one", "plus1"),
    ("times_1000", "x1000"),
    ("separators", "seps"),
)


# Words that only join a label to what follows: an id cut after one says nothing true.
_JOINS = frozenset({"and", "above", "below", "minus", "plus", "times", "to", "equal", "of", "at"})


def readable_id(text: str) -> str:
    out = _ID_BAD.sub("_", text.strip().lower()).strip("_") or "case"
    for long, short in _SHORTER:
        if len(out) <= MAX_ID:
            break
        out = out.replace(long, short).strip("_") or out
    return _cut_words(out)[:MAX_ID]


def _cut_words(out: str) -> str:
    """Whole words off the end while the id is too long; a number (``0_2``: 0.2) is one word,
    and a join left at the end goes too: cut from ``rate_above_0_2``, ``rate_above_0`` would
    name another case (#35)."""
    words: list[str] = []
    for w in out.split("_"):
        if words and w.isdigit() and words[-1].replace("_", "").isdigit():
            words[-1] += "_" + w
        else:
            words.append(w)
    while len("_".join(words)) > MAX_ID and len(words) > 1:
        words.pop()
        while len(words) > 1 and words[-1] in _JOINS:
            words.pop()
    return "_".join(words)


def unique_id(base: str, taken: set[str]) -> str:
    """``base``, or ``base_case2``...: a bare ``_2`` after ``mode`` would read as mode 2 (#35)."""
    cand, n = base, 2
    while cand in taken:
        suffix = f"_case{n}"
        cand, n = f"{base[: MAX_ID - len(suffix)].rstrip('_')}{suffix}", n + 1
    taken.add(cand)
    return cand


def inputs_of(rec: CallRecord, info: TargetInfo | None) -> list[Any] | dict[str, Any] | None:
    """The ``inputs`` of a case for this call: a list, or a dict when keywords were used."""
    if not rec.kwargs:
        return list(rec.args)
    if not rec.args:
        return dict(rec.kwargs)
    if info is None:
        return None
    return bind_keywords(info, list(rec.args), dict(rec.kwargs))


SCHEMA_KEY = "\u0000schema"  # a case's serializer needs, popped before it is written


def input_form(rec: CallRecord, info: TargetInfo | None) -> tuple[Any, dict[str, str]]:
    """The case's ``inputs`` and the serializer schema they need (``specs/forms.py``); NoForm
    says why the call cannot be written, and what would make it writable (#22)."""
    from codemode.specs.forms import NoForm, receiver, to_spec, top_level

    inputs = inputs_of(rec, info)
    if rec.receiver is None and inputs is not None and yaml_safe(inputs):
        return inputs, {}
    if info is None:
        raise NoForm(
            "the call's arguments need a form the function's signature decides",
            "pass each argument by the name of its parameter",
        )
    named = bind_keywords(info, list(rec.args), dict(rec.kwargs))
    if named is None:
        raise NoForm(
            "the arguments do not bind to the function's parameters by name",
            "call it with the arguments its signature takes",
        )
    out: dict[str, Any] = {}
    schema: dict[str, str] = {}
    if rec.receiver is not None:
        if RECEIVER in named:
            raise NoForm(
                f"a parameter is named {RECEIVER!r}, the key of a method's receiver",
                "add a fixture that builds the instance",
            )
        out[RECEIVER], cls = receiver(rec.receiver)
        schema[RECEIVER] = str(cls)
    for name, value in named.items():
        try:
            data, builder = top_level(to_spec(value))
        except NoForm as exc:
            raise NoForm(f"argument {name!r}: {exc.reason}", exc.remedy) from None
        out[name] = data
        if builder is not None:
            schema[name] = builder
    return out, schema


RECEIVER = "self"  # the inputs key of a method's receiver (worker/builders.py reads it)


def spec_inputs(rec: CallRecord, info: TargetInfo | None) -> tuple[Any, dict[str, str]] | None:
    """The case's ``inputs`` and the serializer schema they need; None when not writable."""
    from codemode.specs.forms import NoForm

    try:
        return input_form(rec, info)
    except NoForm:
        return None


class Why(NamedTuple):
    """Why a call cannot become a case, and what would make it writable (#22)."""

    reason: str
    remedy: str = ""

    def __str__(self) -> str:
        return f"{self.reason}; {self.remedy}" if self.remedy else self.reason


def refusal(rec: CallRecord, info: TargetInfo | None) -> Why | None:
    """Why the call cannot become a case that replays faithfully from YAML (None: it can)."""
    from codemode.specs.forms import NoForm

    if rec.kind == "error":
        return Why(
            f"the call could not run ({rec.message.split(';')[0][:120]})",
            "pass arguments the sandbox can hand to the function",
        )
    if rec.clock:
        return Why(
            f"it read the clock ({rec.clock}); an outcome that changes with the date is never "
            "a case",
            "pass the time in as a parameter",
        )
    try:
        input_form(rec, info)
    except NoForm as exc:
        return Why(exc.reason, exc.remedy)
    if rec.kind == "returned" and not (has_faithful_form(rec.value) and yaml_safe(rec.value)):
        return Why(
            "its output has no faithful form in YAML (an object without data fields?)",
            "give the returned class data fields (a dataclass, a pydantic model)",
        )
    if rec.kind == "raised" and incidental(rec, info):
        return Why(
            f"{(rec.exc or {}).get('type')} raised by Python, not by the project: the input was "
            "of the wrong kind (junk), not a behaviour",
            "pass the kind of value the function takes",
        )
    return None


def usable(rec: CallRecord, info: TargetInfo | None) -> bool:
    """Whether the call can become a case that replays faithfully from YAML."""
    return refusal(rec, info) is None


def incidental(rec: CallRecord, info: TargetInfo | None) -> bool:
    """A wrong-type error the function never raises on purpose: the input was junk, not a case.

    ``line_total({"sku": "A-1"})`` raising AttributeError says nothing about ``line_total``;
    a TypeError the function raises itself (``raise TypeError(...)`` in its body) is behaviour.
    """
    # judged by where the worker saw it raised (explore/selection/admit.py): a `raise` in the project's
    # own code (the function or an in-repo callee) is deliberate, anything else an accident
    return admit.incidental(rec.kind, rec.exc)


def case_from_record(rec: CallRecord, case_id: str, info: TargetInfo | None) -> dict[str, Any]:
    inputs, schema = spec_inputs(rec, info) or (inputs_of(rec, info), {})
    case: dict[str, Any] = {"id": case_id, "inputs": inputs}
    if schema:
        case[SCHEMA_KEY] = schema
    if rec.kind == "returned":
        case["expected"] = rec.value
    else:
        exc = rec.exc or {}
        case["raises"] = str(exc.get("type", "Exception"))
        match = portable_match(exc)  # the project's own message only, escaped, short
        if match is not None:
            case["match"] = match
    return case


def describe_call(rec: CallRecord, name: str, limit: int = 160) -> str:
    """``#3 f(100.0, 0.1) -> 90.0``: one line per recorded call for the phase-2 prompt."""
    from codemode.compare import render

    parts = [_show(a) for a in rec.args] + [f"{k}={_show(v)}" for k, v in rec.kwargs.items()]
    call = f"{name}({', '.join(parts)})"
    if rec.receiver is not None:
        call = f"{call} on {_receiver_text(rec.receiver)}"
    if len(call) > limit:
        call = call[: limit - 3] + "..."
    if rec.kind == "returned":
        out = _show(rec.typed) if _rich(rec.typed) else render(rec.value)
        out = out if len(out) <= limit else out[: limit - 3] + "..."
        return f"#{rec.n} {call} -> {out}"
    if rec.kind == "raised":
        exc = rec.exc or {}
        return f"#{rec.n} {call} raises {exc.get('type')}: {str(exc.get('message', ''))[:100]}"
    return f"#{rec.n} {call} failed: {rec.message[:100]}"


def _receiver_text(recipe: Any) -> str:
    """``Wallet('ada', Decimal('100')) after .deposit(Decimal('50'))``: the instance and the
    calls made on it before, never written as a chain on a return value (#22)."""
    text = repr(recipe.snapshot()) if hasattr(recipe, "snapshot") else repr(recipe)
    calls = list(getattr(recipe, "_calls", []) or [])
    if not calls:
        return text
    ctor = text[: len(text) - sum(len(_call_text(c)) for c in calls)]
    return f"{ctor} after " + ", ".join(_call_text(c) for c in calls)


def _call_text(call: Any) -> str:
    name, args, kwargs = call
    inner = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f".{name}({', '.join(inner)})"


def _rich(value: Any) -> bool:
    """Whether ``value`` holds a type JSON has not (Decimal, date, tuple, bytes, a project object)."""
    if isinstance(value, (list, dict)) and type(value) in (list, dict):
        items = value.values() if isinstance(value, dict) else value
        return any(_rich(v) for v in items)
    return not (value is None or isinstance(value, (str, int, float, bool)))


def _show(value: Any) -> str:
    """An argument or result as the model would write it: Python's repr for rich values."""
    from codemode.compare import render

    return repr(value) if _rich(value) else render(value)


def auto_id(rec: CallRecord, info: TargetInfo | None) -> str:
    if rec.kind == "raised":
        exc_type = str((rec.exc or {}).get("type", "error"))
        return "raises_" + safe_id(re.sub(r"(?<!^)(?=[A-Z])", "_", exc_type))
    names = [p.name for p in info.params] if info else []
    values = list(rec.args) + list(rec.kwargs.values())
    keys = names[: len(rec.args)] + list(rec.kwargs)
    for key, v in zip(keys, values):
        if isinstance(v, (str, list, dict)) and not v:
            return f"empty_{safe_id(key)}"
    for key, v in zip(keys, values):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
            return f"negative_{safe_id(key)}"
    for key, v in zip(keys, values):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0:
            return f"zero_{safe_id(key)}"
    return "returns_" + safe_id(type(rec.value).__name__ if rec.value is not None else "none")


def representative(
    records: Sequence[CallRecord], info: TargetInfo | None, limit: int = 60
) -> list[CallRecord]:
    """The calls worth showing: each that reached new lines or a new outcome, then the rest."""
    seen_lines: set[int] = set()
    seen_out: set[tuple[str, str]] = set()
    first: list[CallRecord] = []
    rest: list[CallRecord] = []
    for r in records:
        if not usable(r, info):
            continue
        new = not set(r.lines) <= seen_lines or r.outcome_key not in seen_out
        seen_lines |= set(r.lines)
        seen_out.add(r.outcome_key)
        (first if new else rest).append(r)
    picked = first[:limit] + rest[: max(0, limit - len(first))]
    return sorted(picked, key=lambda r: r.n)


def build_cases(
    chosen: Iterable[tuple[CallRecord, str]],
    info: TargetInfo | None,
    taken: set[str],
    refused: list[Refusal] | None = None,
) -> list[dict[str, Any]]:
    """Cases for the chosen (record, wanted id) pairs; unusable records are skipped, each
    with its call, reason and remedy in ``refused`` when a list is given."""
    out: list[dict[str, Any]] = []
    seen_calls: set[int] = set()
    for rec, wanted in chosen:
        if rec.n in seen_calls:
            continue
        why = refusal(rec, info)
        if why is not None:
            if refused is not None:
                call = describe_call(rec, info.name if info else "f").split(" ", 1)[-1]
                refused.append(Refusal(call, why.reason, why.remedy, wanted))
            continue
        seen_calls.add(rec.n)
        out.append(case_from_record(rec, unique_id(readable_id(wanted), taken), info))
    return out
