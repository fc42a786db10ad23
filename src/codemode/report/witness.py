"""One behaviour-diff witness in words: ``loyalty_tier(4999): 'silver' → 'gold'``.

Shared by every rendering (terminal, Markdown, annotations, JUnit) so they say the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from codemode.report.call import format_call, literal
from codemode.report.model import Report, Witness

MAX_SHOWN = 5  # witnesses per function in a rendering; the JSON holds them all


def then_call(shown: str, then: Mapping[str, Sequence[object]]) -> str:
    """The call of what ``shown`` returned (engine's ``then``, #32): ``natsort_keygen()(x)``,
    or ``sorted([...], key=natsort_keygen())``."""
    if "sort" in then:
        return f"sorted({literal(list(then['sort']))}, key={shown})"
    return shown + format_call("", list(then.get("args") or ()))


def shape(w: Witness) -> tuple[str, str, str]:
    """What kind of change a witness shows: its kind, and each side's outcome (a raised
    type, or the returned value's type)."""

    def side(outcome: Any) -> str:
        if isinstance(outcome, dict) and "raised" in outcome:
            return f"raises {outcome['raised']}"
        value = outcome.get("returned") if isinstance(outcome, dict) else outcome
        return type(value).__name__

    return w.kind, side(w.old), side(w.new)


def only_messages(witnesses: Sequence[Witness]) -> bool:
    """Every witness raises the same exception type on both sides, with another message: the
    ``message_changed`` verdict, which fails only on request (#32)."""
    return bool(witnesses) and all(w.kind == "message" for w in witnesses)


def representative(witnesses: Sequence[Witness], limit: int = MAX_SHOWN) -> list[Witness]:
    """Up to ``limit`` witnesses: the first of each shape, then the others, in order. What an
    accept writes (#35) and what the PR comment shows of a function's witnesses."""
    seen: set[tuple[str, str, str]] = set()
    firsts: list[Witness] = []
    rest: list[Witness] = []
    for w in witnesses:
        (rest if shape(w) in seen else firsts).append(w)
        seen.add(shape(w))
    return (firsts + rest)[:limit]


def format_value(value: Any, limit: int = 80) -> str:
    text = literal(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def outcome_text(outcome: Any, limit: int = 80) -> str:
    """``'gold'`` for a returned value, ``raises ValueError: bad input`` for an exception."""
    if isinstance(outcome, dict) and isinstance(outcome.get("after"), dict):
        # the state the call left, besides what it returned or raised (#32)
        rest = {k: v for k, v in outcome.items() if k != "after"}
        parts = ", ".join(f"{n}: {format_value(v, limit)}" for n, v in outcome["after"].items())
        return f"{outcome_text(rest, limit)}, after the call {parts}"
    if isinstance(outcome, dict) and "returned" in outcome:
        return format_value(outcome["returned"], limit)
    if isinstance(outcome, dict) and "raised" in outcome:
        message = str(outcome.get("message") or "")
        if len(message) > limit:
            # cut in the middle: Python's own messages end with what they are about
            # (`... missing 1 required positional argument: 'day'`, #35)
            tail = limit // 3
            message = message[: limit - tail - 1] + "…" + message[-tail:]
        return f"raises {outcome['raised']}" + (f": {message}" if message else "")
    return format_value(outcome, limit)


def witness_text(w: Witness, limit: int = 80) -> str:
    """``call: old → new``; a message-only change says so; a call whose outcome agrees but
    that left its receiver or an argument otherwise, ``call: after the call, self: old → new``
    (#32)."""
    state = state_text(w.old, w.new, limit)
    if state:
        return f"{w.call}: {state}"
    what = " (message changed)" if w.kind == "message" else ""
    if _returned(w.old) and _returned(w.new):
        # two long values (a parsed tree, a long text) cut around where they first differ,
        # not both at their start, where they agree
        from codemode.compare import window

        a, b = window(w.old["returned"], w.new["returned"], limit, show=literal)
        return f"{w.call}: {a} → {b}{what}"
    return f"{w.call}: {outcome_text(w.old, limit)} → {outcome_text(w.new, limit)}{what}"


def _returned(outcome: Any) -> bool:
    return isinstance(outcome, dict) and "returned" in outcome and "after" not in outcome


def state_text(old: Any, new: Any, limit: int) -> str:
    """``after the call, self: {...} → {...}`` for the first part the call left otherwise."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return ""
    before, after = old.get("after"), new.get("after")
    if not (isinstance(before, dict) and isinstance(after, dict) and before.keys() & after.keys()):
        return ""
    name = next(n for n in before if n in after)
    shown = f"{format_value(before[name], limit)} → {format_value(after[name], limit)}"
    return f"after the call, {name}: {shown}"


def accept_function_command(report: Report) -> str:
    """``codemode accept ID ...`` for the functions with witnesses: pasted as is, it writes
    them as cases with their new outcomes."""
    ids = [f.id for f in report.sorted_functions() if f.witnesses]
    if not ids:
        return ""
    from codemode.report.accept_hint import scope_flags

    where = scope_flags(report.scope)
    if len(ids) > 3:
        return f"codemode accept --all{where}"
    return "codemode accept " + " ".join(ids) + where


def witness_call(
    function_id: str,
    args: Sequence[object],
    kwargs: Mapping[str, object] | None,
    receiver: Mapping[str, object] | None = None,
) -> str:
    """``loyalty_tier(4999)``, or ``Version('1.0.0').bump()`` for a method called on the
    instance a recipe (``{"cls": ..., "args": [...], "kwargs": {...}}``) builds, with the
    calls that prepared it (``"calls"``) as statements before."""
    shown = format_call(function_id, list(args), dict(kwargs or {}))
    if not receiver:
        return shown
    built_args = receiver.get("args")
    built_kwargs = receiver.get("kwargs")
    built = format_call(
        str(receiver.get("cls", "")),
        list(built_args) if isinstance(built_args, (list, tuple)) else [],
        dict(built_kwargs) if isinstance(built_kwargs, Mapping) else None,
    )
    method = format_call(function_id.rsplit(".", 1)[-1], list(args), dict(kwargs or {}))
    steps = receiver.get("calls")
    if not steps or not isinstance(steps, list):
        return f"{built}.{method}"
    # prepared as the test prepared it: ``obj = Parser(); obj.add_rule('x'); obj.parse('x y')``
    lines = [f"obj = {built}"]
    for step in steps:
        name, step_args, step_kwargs = [*list(step), [], {}][:3]
        lines.append(_step(str(name), list(step_args), dict(step_kwargs or {})))
    return "; ".join([*lines, f"obj.{method}"])


def _step(name: str, args: list[Any], kwargs: dict[str, Any]) -> str:
    """One call that prepared an instance, as the test wrote it."""
    if name == "__setattr__" and len(args) == 2 and not kwargs:
        return f"obj.{args[0]} = {literal(args[1])}"
    if name == "__setitem__" and len(args) == 2 and not kwargs:
        return f"obj[{literal(args[0])}] = {literal(args[1])}"
    return "obj." + format_call(name, args, kwargs)


def construction_call(function_id: str, exprs: Mapping[str, object]) -> str:
    """``render(parse('<b>x</b>'))``: a call whose arguments the tests build (no YAML form),
    shown as their source, each name a setup line assigns put in place (imports left out).
    A name the setup changes after its assignment (``doc.add(x)``), and the instance the
    test built (``exprs["self"]``), is shown as the statements that build and change it:
    ``p = Parser(load('x')); p.add('y'); p.parse('x y')``. ``ast`` is imported here: the
    report's modules stay light on the hook's path."""
    import ast

    bound: dict[str, ast.expr] = {}
    order: list[tuple[str, str]] = []  # (the name a line builds or changes, the line)
    for line in str(exprs.get("setup") or "").splitlines():
        try:
            body = ast.parse(line).body
        except SyntaxError:
            continue
        stmt = body[0] if body else None
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            bound[stmt.targets[0].id] = stmt.value
            order.append((stmt.targets[0].id, ""))
        elif isinstance(stmt, (ast.Expr, ast.Assign)):
            order.append((line.split(".", 1)[0].split("[", 1)[0], line))
    changed = {name for name, line in order if line and name in bound}
    me = exprs.get("self")
    if isinstance(me, str) and me in bound:
        changed.add(me)
    shown_first = {name: bound.pop(name) for name in changed}

    class Put(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> Any:
            value = bound.get(node.id) if isinstance(node.ctx, ast.Load) else None
            # a fresh copy: a node put in twice, or into itself, would make a cycle
            return node if value is None else ast.parse(ast.unparse(value), mode="eval").body

    def inline(src: str) -> str:
        try:
            node = ast.parse(src, mode="eval").body
        except SyntaxError:
            return src
        for _ in range(5):  # a chain of assignments, a few deep
            node = Put().visit(node)
        return ast.unparse(node)

    args, kwargs = exprs.get("args"), exprs.get("kwargs")
    parts = [inline(str(a)) for a in (args if isinstance(args, list) else [])]
    named = kwargs.items() if isinstance(kwargs, dict) else ()
    parts += [f"{k}={inline(str(v))}" for k, v in named]
    shown = f"{function_id.rsplit('.', 1)[-1]}({', '.join(parts)})"
    if isinstance(me, str) and me in shown_first:
        shown = f"{me}.{shown}"
    lines = [
        line or f"{name} = {inline(ast.unparse(shown_first[name]))}"
        for name, line in order
        if name in shown_first
    ]
    return "; ".join([*dict.fromkeys(lines), shown])
