"""Each flag of benchmarks/upgrade_detection.py names a call that shows the change: a drifted
case of the function's spec, or a witness of the behaviour diff. Here those calls are taken
out of codemode's JSON report (and the spec files, for a case's inputs) and re-run on both
releases by the differential runner, so that a flag counts only when its call really
behaves differently (stable on the old release, a different outcome on the new one)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from _differential import Call, run_calls

FLAG_STATUSES = ("drifted", "changed")  # a verdict that flags a function
NOT_RECHECKABLE = "not re-checkable"


@dataclass(frozen=True)
class Witness:
    function: str
    call: Call | None  # None: the call has no plain Python form the runner can rebuild
    source: str  # "case <id>" or "witness <n>"
    text: str  # how codemode showed it


def _literal(value: Any) -> str | None:
    """Python source of a YAML-safe value, or None for one that has no literal form."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, list):
        items = [_literal(v) for v in value]
        return None if None in items else f"[{', '.join(items)}]"  # type: ignore[arg-type]
    if isinstance(value, dict):
        pairs = [(_literal(k), _literal(v)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    return None


def call_from_inputs(fid: str, case: dict[str, Any], origin: str) -> Call | None:
    """The call a spec case makes (``input`` or ``inputs``), as plain Python source."""
    if "input" in case:
        args, kwargs = [case["input"]], {}
    elif isinstance(case.get("inputs"), list):
        args, kwargs = case["inputs"], {}
    elif isinstance(case.get("inputs"), dict):
        args, kwargs = [], case["inputs"]
    else:
        args, kwargs = [], {}
    a = [_literal(v) for v in args]
    k = [(str(key), _literal(v)) for key, v in kwargs.items()]
    if None in a or any(v is None for _, v in k):
        return None
    return Call(fid, tuple(a), tuple(k), origin)  # type: ignore[arg-type]


def call_from_text(fid: str, text: str, origin: str) -> Call | None:
    """A call written as ``name(args)`` (a witness's call), when its arguments are literals."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call):
        return None
    try:
        args = tuple(repr(ast.literal_eval(a)) for a in node.args)
        kwargs = tuple((k.arg or "", repr(ast.literal_eval(k.value))) for k in node.keywords)
    except ValueError:
        return None
    if any(k == "" for k, _ in kwargs):
        return None
    return Call(fid, args, kwargs, origin)


def _spec_cases(root: Path, spec: str | None, fid: str) -> dict[str, dict[str, Any]]:
    if not spec:
        return {}
    try:
        data = yaml.safe_load((root / spec).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return {}
    block = data.get(fid) or {}
    out = {}
    for item in block.get("dataset") or ():
        case = item.get("case", item) if isinstance(item, dict) else None
        if isinstance(case, dict) and "id" in case:
            out[str(case["id"])] = case
    return out


def _witness_call(fid: str, w: Any, n: int) -> Witness:
    origin = f"witness {n}"
    if not isinstance(w, dict):
        return Witness(fid, None, origin, str(w))
    call = None
    if w.get("receiver"):
        return Witness(fid, None, origin, str(w.get("call", ""))[:200])  # a method's instance
    if "inputs" in w or "input" in w:
        call = call_from_inputs(fid, w, origin)
    elif "args" in w:  # codemode's JSON witness: args (list), kwargs (mapping or null)
        call = call_from_inputs(fid, {"inputs": list(w.get("args") or [])}, origin)
        kwargs = w.get("kwargs") or {}
        if call is not None and kwargs:
            extra = call_from_inputs(fid, {"inputs": dict(kwargs)}, origin)
            call = None if extra is None else Call(fid, call.args, extra.kwargs, origin)
    text = str(w.get("call", ""))
    if call is None and text:
        call = call_from_text(fid, text, origin)
    shown = f"{text or w.get('inputs')}: {w.get('old')!r} -> {w.get('new')!r}"
    return Witness(fid, call, origin, shown[:200])


def witnesses(root: Path, function: dict[str, Any]) -> list[Witness]:
    """The calls that show a flagged function's change: its drifted cases, its witnesses."""
    fid = function["id"]
    out = []
    cases = _spec_cases(root, function.get("spec"), fid)
    for case in function.get("cases", ()):
        if case.get("status") != "drifted":
            continue
        spec_case = cases.get(case["id"])
        call = call_from_inputs(fid, spec_case, f"case {case['id']}") if spec_case else None
        shown = f"{case['id']}: {case.get('expected')!r} -> {case.get('observed')!r}"
        out.append(Witness(fid, call, f"case {case['id']}", shown[:200]))
    for n, w in enumerate(function.get("witnesses") or (), 1):
        out.append(_witness_call(fid, w, n))
    return out


def recheck(
    old_src: Path, new_src: Path, found: list[Witness], module_level: set[str]
) -> dict[Witness, str]:
    """Each witness's verdict: 'real' (stable on the old release, a different value or
    exception type on the new), 'real (message)' (the same exception type with another
    message), 'same' (no difference when re-run), 'unstable', or NOT_RECHECKABLE (a method,
    or an input with no literal form; shown apart, never counted as correct)."""
    # the runner imports everything before the last dot as a module: a method's calls
    # ('pkg.mod.Class.method') are not re-run here
    runnable = [w for w in found if w.call is not None and w.function in module_level]
    calls = [w.call for w in runnable]
    verdict = {w: NOT_RECHECKABLE for w in found}
    if not calls:
        return verdict
    old1 = run_calls(old_src, calls, messages=True)  # type: ignore[arg-type]
    old2 = run_calls(old_src, calls, messages=True)  # type: ignore[arg-type]
    new = run_calls(new_src, calls, messages=True)  # type: ignore[arg-type]
    for w, a, b, n in zip(runnable, old1, old2, new):
        if a != b or "timeout" in (a, n) or a.startswith("bad-input"):
            verdict[w] = "unstable"
        elif a == n:
            verdict[w] = "same"
        elif _kind(a) == _kind(n):
            verdict[w] = "real (message)"  # the same exception type, another message
        else:
            verdict[w] = "real"
    return verdict


def _kind(outcome: str) -> str:
    return outcome.split(":", 2)[1] if outcome.startswith("raised:") else outcome
