"""The truth of benchmarks/upgrade_detection.py: what the releases' changelogs (and new tests)
announce, written as witness calls and confirmed by running both releases.

Each announced change is one call (``Announced``): the function codemode should flag, a Python
expression that calls it, and the outcome the changelog's words lead to on the old release and
on the new one. The call is run on both releases (the old one twice: an outcome that differs
between two runs of the same code confirms nothing) and counts only when both outcomes are the
ones written down and they differ in value or exception type. Anything else is excluded with
its reason, which is about the releases, never about codemode: the old or new outcome is not
the one announced, it is unstable, or only an exception's message changed (a message-only
difference is no change of behaviour here, as in codemode's default ``fail_on``).

Outcomes are written as the runner prints them: ``value:<repr>`` (an iterator's first items as
a list; `` at 0x...`` addresses left out) or ``raised:<ExceptionType>`` (the message is not
compared). The expression sees the public names of the function's module, the function under
its own name, every module and class on the way to it under theirs, and ``datetime``, ``date``,
``time``, ``timedelta``, ``Decimal``, ``io``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from _releases import OBSERVE, run_beside

CONFIRMED = "confirmed"


@dataclass(frozen=True)
class Announced:
    """One change a changelog (or a new release's test) announces, as a call."""

    function: str  # dotted id of the function (or method) codemode should flag
    call: str  # a Python expression calling it
    old: str  # its outcome on the old release: "value:<repr>" or "raised:<Type>"
    new: str  # and on the new one
    says: str = ""  # the changelog's words (or the new test) it comes from


RUNNER = (
    OBSERVE
    + r"""
import datetime, decimal, importlib, json, sys
sys.path.insert(0, sys.argv[1])
BASE = {"datetime": datetime.datetime, "date": datetime.date, "time": datetime.time,
        "timedelta": datetime.timedelta, "Decimal": decimal.Decimal, "io": io}
def names(fid):
    # the longest importable module, then attributes; each bound under its own name
    parts = fid.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError as e:
            tried = ".".join(parts[:i])
            if e.name is None or not (tried == e.name or tried.startswith(e.name + ".")):
                raise  # the module exists and fails to import (a missing dependency)
            continue
        ns = {k: v for k, v in vars(obj).items() if not k.startswith("_")}
        ns.update({parts[0]: importlib.import_module(parts[0]), parts[i - 1]: obj})
        for p in parts[i:]:
            obj = getattr(obj, p)
            ns[p] = obj
        return ns
    raise ImportError(fid)
def outcome(fid, call):
    try:
        ns = {**BASE, **names(fid)}
    except Exception as e:
        return "import-error:" + type(e).__name__ + ": " + str(e)[:300]
    return observe(lambda: eval(call, ns), 2.0)
json.dump([outcome(f, c) for f, c in json.load(sys.stdin)], sys.stdout)
"""
)


def run(src: Path, calls: list[Announced]) -> list[str]:
    """Each call's outcome on the package under ``src``, in a fresh interpreter run from a
    folder beside it (the same for both releases)."""
    payload = [[a.function, a.call] for a in calls]
    return run_beside(RUNNER, src, payload, "running changelog witnesses")


def kind(outcome: str) -> str:
    """What a change is judged on: the value, or the exception's type (not its message)."""
    if outcome.startswith("raised:"):
        return "raised:" + outcome.split(":", 2)[1].strip()
    return outcome


def matches(observed: str, written: str) -> bool:
    return kind(observed) == kind(written)


def verdict(written: Announced, old1: str, old2: str, new: str) -> str:
    """CONFIRMED, or why the call does not confirm the announced change."""
    if old1 != old2 or "timeout" in (old1, new):
        return f"unstable or too slow on the releases (old {old1[:80]!r}, new {new[:80]!r})"
    if old1.startswith("import-error") or new.startswith("import-error"):
        return f"the release cannot be imported here ({(old1 if 'import' in old1 else new)[:120]})"
    if kind(old1) == kind(new):
        same = "only the exception's message differs" if old1 != new else "no difference"
        return f"{same} when run: {old1[:80]!r}"
    if not matches(old1, written.old):
        return f"the old release gives {old1[:100]!r}, not the announced {written.old[:60]!r}"
    if not matches(new, written.new):
        return f"the new release gives {new[:100]!r}, not the announced {written.new[:60]!r}"
    return CONFIRMED


def confirm(old_src: Path, new_src: Path, announced: list[Announced]) -> dict[Announced, str]:
    """Each announced change's verdict: CONFIRMED when both releases behave as written."""
    if not announced:
        return {}
    old1, old2, new = run(old_src, announced), run(old_src, announced), run(new_src, announced)
    return {
        a: verdict(a, o1, o2, n) for a, o1, o2, n in zip(announced, old1, old2, new, strict=True)
    }


def defined(src: Path, fid: str) -> bool:
    """Whether ``fid`` names a function or method defined in the source under ``src`` (the
    longest module path that exists, then classes and a function in its AST): an id codemode
    can know, as opposed to a witness written under a wrong name."""
    parts = fid.split(".")
    for i in range(len(parts) - 1, 0, -1):
        base = src.joinpath(*parts[:i])
        for path in (base.with_suffix(".py"), base / "__init__.py"):
            if path.is_file():
                return _in_tree(ast.parse(path.read_text(encoding="utf-8")).body, parts[i:])
    return False


def _in_tree(body: list[ast.stmt], names: list[str]) -> bool:
    for node in body:
        if getattr(node, "name", None) != names[0]:
            continue
        if len(names) == 1:
            return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        if isinstance(node, ast.ClassDef) and _in_tree(node.body, names[1:]):
            return True
    return False
