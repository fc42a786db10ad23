"""First-order mutants of one function, made in memory from its source (stdlib only).

The worker (``exploring.py``) loads this module when exploration asks for mutation
analysis; the benchmark imports it to mutate files the same way. A mutant is the
function's own ``def`` with one small change (mutmut 3 / cosmic-ray operators):
arithmetic, comparison and boolean operators swapped, ``not`` dropped, a number or a
string constant changed, a call dropped (``text.lower()`` -> ``text``, ``str(x)`` -> ``x``,
a call statement removed), a return value replaced by None; never a translation lookup or a
log line, whose mutants no spec can see (see ``_I18N``). The worker compiles the
mutant with the function's own file name and lines, and switches it in by replacing the
function's ``__code__`` (a trampoline without a file rewritten or a process restarted):
callers, fixtures and methods reach it exactly as they reach the original.
"""

from __future__ import annotations

import ast
import copy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_MUTANTS = 300  # per function: the first ones in source order

_SWAPS: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.And: ast.Or,
    ast.Or: ast.And,
    ast.BitOr: ast.BitAnd,
    ast.BitAnd: ast.BitOr,
}


class _Mutator(ast.NodeTransformer):
    """Walks a function body in a fixed order; applies site ``target`` (-1: only counts)."""

    def __init__(self, target: int = -1) -> None:
        self.target = target
        self.sites: list[tuple[str, int]] = []  # (description, line)

    def _site(self, desc: str, node: ast.AST) -> bool:
        self.sites.append((desc, getattr(node, "lineno", 0)))
        return len(self.sites) - 1 == self.target

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        return self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> Any:
        return self._function(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Any:
        body = node.body
        start = (
            1
            if body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
            else 0
        )  # the docstring is not behaviour
        node.body = body[:start] + [self._stmt(s) for s in body[start:]]
        return node

    def _stmt(self, stmt: ast.stmt) -> ast.stmt:
        out = self.visit(stmt)
        return out if isinstance(out, ast.stmt) else ast.copy_location(ast.Pass(), stmt)

    def visit_Expr(self, node: ast.Expr) -> Any:
        if isinstance(node.value, ast.Call) and _is_logging(node.value):
            return node  # a log line: not an outcome a spec can see
        if isinstance(node.value, ast.Call) and self._site(
            f"drop call {_callee(node.value)}", node
        ):
            return ast.copy_location(ast.Pass(), node)
        if isinstance(node.value, ast.Call):
            self._call_children(node.value)  # the call itself as a statement: no value to keep
            return node
        return self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        if type(node.op) in _SWAPS and self._site(_swap_desc(node.op), node):
            node.op = _SWAPS[type(node.op)]()
            return node
        return self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        if type(node.op) in _SWAPS and self._site(_swap_desc(node.op) + "=", node):
            node.op = _SWAPS[type(node.op)]()
            return node
        return self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> Any:
        if self._site(_swap_desc(node.op), node):
            node.op = _SWAPS[type(node.op)]()
            return node
        return self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> Any:
        for i, op in enumerate(node.ops):
            if type(op) in _SWAPS and self._site(_swap_desc(op), node):
                node.ops = [*node.ops[:i], _SWAPS[type(op)](), *node.ops[i + 1 :]]
                return node
        return self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Any:
        if isinstance(node.op, (ast.Not, ast.USub)) and self._site(
            f"drop {'not' if isinstance(node.op, ast.Not) else 'unary -'}", node
        ):
            return node.operand
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return node  # -1 is one number: mutated as a whole above
        return self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> Any:
        v = node.value
        if isinstance(v, bool):
            if self._site(f"{v} -> {not v}", node):
                return ast.copy_location(ast.Constant(not v), node)
        elif isinstance(v, int):
            if self._site(f"{v} -> {v + 1}", node):
                return ast.copy_location(ast.Constant(v + 1), node)
        elif isinstance(v, float):
            if self._site(f"{v} -> {v + 1.0}", node):
                return ast.copy_location(ast.Constant(v + 1.0), node)
        elif (
            isinstance(v, str) and len(v) <= 200 and self._site(f"string {v[:20]!r} changed", node)
        ):
            return ast.copy_location(ast.Constant(f"XX{v}XX"), node)
        return node

    def visit_FormattedValue(self, node: ast.FormattedValue) -> Any:
        node.value = self.visit(node.value)  # the format spec (".2f") is left as it is
        return node

    def visit_Call(self, node: ast.Call) -> Any:
        name = _callee(node)[:-2].lstrip(".")
        if name in _I18N:  # the message ids stay mutable: without a catalog they are the output
            skip = 1 if name in _I18N_CONTEXT_FIRST else 0
            node.args = node.args[:skip] + [self.visit(a) for a in node.args[skip:]]
            return node
        kept = _dropped_value(node)
        if kept is not None and self._site(f"drop call {_callee(node)}", node):
            return kept
        self._call_children(node)
        return node

    def _call_children(self, node: ast.Call) -> None:
        node.func = self.visit(node.func)
        node.args = [self.visit(a) for a in node.args]
        for kw in node.keywords:
            kw.value = self.visit(kw.value)

    def visit_Return(self, node: ast.Return) -> Any:
        if (
            node.value is not None
            and not (isinstance(node.value, ast.Constant) and node.value.value is None)
            and self._site("return None", node)
        ):
            node.value = ast.copy_location(ast.Constant(None), node.value)
            return node
        return self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Any:
        if node.value is not None:
            node.value = self.visit(node.value)
        return node  # annotations are not behaviour

    def visit_Lambda(self, node: ast.Lambda) -> Any:
        node.body = self.visit(node.body)
        return node


# Calls that look text up in a translation catalog (gettext and its usual aliases). Without
# a catalog, which is how specs run, a message id comes back as it went in: dropping the call,
# or changing a pgettext's context, is a mutant no spec can tell from the original. So is a
# log statement's call. Such equivalent mutants would only be noise in the surviving-mutant
# list and the score; PIT leaves calls to logging frameworks unmutated for the same reason
# ("avoidCallsTo"). The message ids themselves are still mutated: they are the output.
_I18N = frozenset(
    [
        "_",
        "gettext",
        "ngettext",
        "pgettext",
        "npgettext",
        "dgettext",
        "dngettext",
        "ugettext",
        "ungettext",
        "gettext_lazy",
        "ugettext_lazy",
        "pgettext_lazy",
        "ngettext_lazy",
        "gettext_noop",
        "N_",
        "P_",
        "NS_",
        "_gettext",
        "_ngettext",
        "_pgettext",
    ]
)
_I18N_CONTEXT_FIRST = frozenset(["pgettext", "npgettext", "pgettext_lazy", "P_", "_pgettext"])
_LOG_METHODS = frozenset(
    ["debug", "info", "warning", "warn", "error", "exception", "critical", "log"]
)
_LOGGERS = frozenset(["log", "logger", "logging", "_log", "_logger", "LOG", "LOGGER"])


def _is_logging(call: ast.Call) -> bool:
    f = call.func
    return (
        isinstance(f, ast.Attribute)
        and f.attr in _LOG_METHODS
        and isinstance(f.value, ast.Name)
        and f.value.id in _LOGGERS
    )


def _swap_desc(op: ast.AST) -> str:
    return f"{type(op).__name__} -> {_SWAPS[type(op)].__name__}"


def _callee(call: ast.Call) -> str:
    f = call.func
    if isinstance(f, ast.Attribute):
        return f".{f.attr}()"
    if isinstance(f, ast.Name):
        return f"{f.id}()"
    return "()"


def _dropped_value(call: ast.Call) -> ast.expr | None:
    """What a call is replaced by when dropped: the receiver of a method, the one argument
    of a plain function (``str(x)`` -> ``x``); None when there is no such value."""
    f = call.func
    if isinstance(f, ast.Attribute) and not isinstance(f.value, ast.Name | ast.Attribute):
        return f.value  # "a-b".lower().strip(): each method of a chain
    if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
        # text.lower() -> text; re.sub(...), os.path.join(...) are module functions: their
        # receiver is a module, not a value, so nothing sensible is left to return
        return f.value if f.value.id[:1].islower() and not _looks_like_module(f.value.id) else None
    if (
        isinstance(f, ast.Name)
        and len(call.args) == 1
        and not call.keywords
        and not isinstance(call.args[0], ast.Starred)
    ):
        return call.args[0]
    return None


_MODULE_NAMES = frozenset(
    [
        "re",
        "os",
        "sys",
        "math",
        "json",
        "string",
        "unicodedata",
        "datetime",
        "dt",
        "time",
        "itertools",
        "functools",
        "collections",
        "operator",
        "random",
        "decimal",
        "fractions",
        "html",
        "urllib",
        "typing",
        "warnings",
        "logging",
        "textwrap",
    ]
)


def _looks_like_module(name: str) -> bool:
    return name in _MODULE_NAMES


def count(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[str, int]]:
    """The mutation sites of ``fn``: (description, line), in the order ``mutate`` numbers them."""
    m = _Mutator()
    m.visit(copy.deepcopy(fn))
    return m.sites[:MAX_MUTANTS]


def mutate(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, k: int
) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """A copy of ``fn`` with site ``k`` changed."""
    out = _Mutator(k).visit(copy.deepcopy(fn))
    assert isinstance(out, (ast.FunctionDef, ast.AsyncFunctionDef))
    return out


def find_function(
    tree: ast.Module, name: str, first_line: int
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[str]] | None:
    """The ``def`` of ``name`` whose first line (decorators included) is ``first_line``, with
    the names of the classes around it."""
    stack: list[tuple[ast.AST, list[str]]] = [(tree, [])]
    while stack:
        node, owners = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                if child.name == name and first_line in (start, child.lineno):
                    return child, owners
                stack.append((child, owners))
            elif isinstance(child, ast.ClassDef):
                stack.append((child, [*owners, child.name]))
            elif isinstance(child, ast.stmt):
                stack.append((child, owners))
    return None


def compile_mutant(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, owners: list[str], filename: str, k: int
) -> Any:
    """The code object of mutant ``k`` of ``fn``, compiled as if in place (same file, lines,
    class for name mangling and ``super()``); None when it does not compile."""
    node: ast.stmt = mutate(fn, k)
    node.decorator_list = []  # type: ignore[attr-defined]
    for owner in reversed(owners):
        node = ast.ClassDef(name=owner, bases=[], keywords=[], body=[node], decorator_list=[])
        setattr(node, "type_params", [])  # noqa: B010 - a field of Python 3.12+ only
    module = ast.Module(body=[node], type_ignores=[])
    ast.fix_missing_locations(module)
    try:
        code = compile(module, filename, "exec")
    except (SyntaxError, ValueError, TypeError):
        return None
    return _find_code(code, fn.name)


def _find_code(code: Any, name: str) -> Any:
    for const in code.co_consts:
        if hasattr(const, "co_name"):
            if const.co_name == name:
                return const
            found = _find_code(const, name)
            if found is not None:
                return found
    return None
