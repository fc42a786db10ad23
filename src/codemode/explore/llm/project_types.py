"""The project's own types inside the snippet sandbox, without importing the project on the host.

A snippet writes ``from billing.core import Item, Status, InsufficientFunds`` as in the
project. The module it imports is a Monty ``ExternalModule`` made from the source (``ast``):

- a class becomes a stand-in whose construction runs in the worker (the real constructor,
  its validation and defaults), and whose instance is a *recipe*: the class, the arguments
  and the method calls made on it since. Fields are read from the real object, methods run on
  it in the worker, in sequence; passed to the target, the worker rebuilds the real object.
- an Enum member is ``Status.PAID``, a reference the worker resolves to the real member.
- an exception class is bound to its nearest builtin base (the sandbox has no inheritance), so
  ``except InsufficientFunds`` catches what the target raised as that class.
- the target itself is a host function that asks the worker and records the call.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from codemode.explore.record import Recorder
from codemode.explore.target import AST_LOCK, TargetInfo

_ENUM_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"}


@dataclass(frozen=True)
class ClassInfo:
    name: str
    kind: str  # enum | exception | class
    members: dict[str, Any] = field(default_factory=dict)  # enum: name -> literal value
    methods: tuple[str, ...] = ()
    builtin_base: str = "Exception"  # for an exception class
    params: tuple[str, ...] = ()  # the constructor's parameters, in order (spec forms name them)


def read_classes(source: str) -> dict[str, ClassInfo]:
    """The module's top-level classes, as the sandbox needs to know them."""
    try:
        with AST_LOCK:  # explorations run in threads (target.py says why)
            tree = ast.parse(source)
    except SyntaxError:
        return {}
    nodes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    out: dict[str, ClassInfo] = {}
    for name, node in nodes.items():
        bases = [ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
        methods = tuple(
            n.name
            for n in node.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.name.startswith("_")
        )
        exc_base = _builtin_exception(name, nodes)
        if exc_base is not None:
            out[name] = ClassInfo(name, "exception", builtin_base=exc_base)
        elif set(bases) & _ENUM_BASES:
            members = {}
            for s in node.body:
                if (
                    isinstance(s, ast.Assign)
                    and len(s.targets) == 1
                    and isinstance(s.targets[0], ast.Name)
                ):
                    try:
                        members[s.targets[0].id] = ast.literal_eval(s.value)
                    except (ValueError, SyntaxError, TypeError):
                        members[s.targets[0].id] = None
            out[name] = ClassInfo(name, "enum", members=members, methods=methods)
        else:
            out[name] = ClassInfo(name, "class", methods=methods, params=_init_params(node))
    return out


def _init_params(node: ast.ClassDef) -> tuple[str, ...]:
    """``__init__``'s parameters after ``self``; without one, the annotated fields in order (a
    dataclass's constructor, a pydantic model's keywords)."""
    for n in node.body:
        if isinstance(n, ast.FunctionDef) and n.name == "__init__":
            return tuple(a.arg for a in [*n.args.posonlyargs, *n.args.args][1:])
    return tuple(
        n.target.id
        for n in node.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    )


def _builtin_exception(name: str, nodes: dict[str, ast.ClassDef], depth: int = 0) -> str | None:
    """The nearest builtin exception class ``name`` derives from, through the module's classes."""
    node = nodes.get(name)
    if node is None or depth > 20:
        return None
    for b in node.bases:
        base = ast.unparse(b).rsplit(".", 1)[-1]
        cls = getattr(builtins, base, None)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            return base
        found = _builtin_exception(base, nodes, depth + 1)
        if found is not None:
            return found
    return None


def rewrite_imports(code: str, module: str, classes: dict[str, ClassInfo]) -> str:
    """``from <module> import X`` of an exception class becomes ``X = <builtin base>``, on the
    same lines, so errors keep their line numbers."""
    excs = {n: c.builtin_base for n, c in classes.items() if c.kind == "exception"}
    if not excs or module not in code:
        return code
    try:
        with AST_LOCK:
            tree = ast.parse(code)
    except SyntaxError:
        return code  # the sandbox reports it
    lines = code.splitlines()
    for node in tree.body:
        if not (isinstance(node, ast.ImportFrom) and node.module == module and node.level == 0):
            continue
        keep = [a for a in node.names if a.name not in excs]
        bound = [f"{a.asname or a.name} = {excs[a.name]}" for a in node.names if a.name in excs]
        if not bound:
            continue
        parts = []
        if keep:
            parts.append(f"from {module} import " + ", ".join(ast.unparse(a) for a in keep))
        indent = re.match(r"\s*", lines[node.lineno - 1]).group(0)  # type: ignore[union-attr]
        first = indent + "; ".join(parts + bound)
        end = node.end_lineno or node.lineno
        lines[node.lineno - 1 : end] = [first] + [""] * (end - node.lineno)
    return "\n".join(lines)


class Recipe:
    """A project object built in a snippet: how to rebuild it, and what it looked like."""

    def __init__(self, cls: str, args: tuple[Any, ...], kwargs: dict[str, Any], state: Any) -> None:
        self._cls = cls
        self._args = list(args)
        self._kwargs = dict(kwargs)
        self._calls: list[list[Any]] = []
        self._state = state if isinstance(state, dict) else {}
        self._params: tuple[str, ...] = ()  # the constructor's parameter names, when known

    def __codemode_wire__(self) -> tuple[str, dict[str, Any]]:
        return "new", {
            "cls": self._cls,
            "args": self._args,
            "kwargs": self._kwargs,
            "calls": self._calls,
        }

    def snapshot(self) -> Recipe:
        copy = Recipe(self._cls, tuple(self._args), self._kwargs, self._state)
        copy._calls = [list(c) for c in self._calls]
        copy._params = self._params
        return copy

    def __repr__(self) -> str:
        name = self._cls.rsplit(".", 1)[-1]
        args = [repr(a) for a in self._args] + [f"{k}={v!r}" for k, v in self._kwargs.items()]
        calls = "".join(
            f".{m}({', '.join([repr(x) for x in a] + [f'{k}={v!r}' for k, v in kw.items()])})"
            for m, a, kw in self._calls
        )
        return f"{name}({', '.join(args)}){calls}"

    def __getattr__(self, name: str) -> Any:
        state = self.__dict__.get("_state", {})
        if name in state:
            return state[name]
        raise AttributeError(f"{self._cls.rsplit('.', 1)[-1]!r} object has no attribute {name!r}")


class MemberRef:
    """An Enum member named in a snippet; the worker resolves it to the real member."""

    def __init__(self, cls: str, name: str, value: Any) -> None:
        self.name = name
        self.value = value
        self._cls = cls

    def __codemode_wire__(self) -> tuple[str, list[str]]:
        return "member", [self._cls, self.name]

    def __repr__(self) -> str:
        return f"{self._cls.rsplit('.', 1)[-1]}.{self.name}"


Raise = Callable[[dict[str, Any]], BaseException]
# Every call a snippet makes into the worker passes through one guard (snippets.py): its
# arguments are checked and the time it takes counts against the snippet's cap, whichever
# name the snippet called it by (#22). ``guard(run, args, kwargs)`` returns ``run(args, kwargs)``.
Guard = Callable[
    [Callable[[tuple[Any, ...], dict[str, Any]], Any], tuple[Any, ...], dict[str, Any]], Any
]


def _unguarded(
    run: Callable[[tuple[Any, ...], dict[str, Any]], Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    return run(args, kwargs)


@dataclass
class ProjectModule:
    """Builds the ExternalModule of the target's module for one snippet run."""

    info: TargetInfo
    recorder: Recorder
    raise_from: Raise  # the sandbox-side exception for a recorded ``exc``
    calls: list[int]  # record numbers of target calls, appended as they happen
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    guard: Guard = _unguarded

    def _outcome(self, o: Any) -> Any:
        if o.kind == "returned":
            return o.typed if o.typed is not None else o.value
        if o.kind == "raised":
            raise self.raise_from(o.exc or {})
        raise RuntimeError(f"the call could not run: {o.message}")

    def call_target(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], receiver: Recipe | None
    ) -> Any:
        """The target, by any name: bare, imported, or a method of an instance the snippet
        built; each goes through the guard."""
        return self.guard(lambda a, k: self._call_target(a, k, receiver), args, kwargs)

    def _call_target(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], receiver: Recipe | None
    ) -> Any:
        rec = self.recorder.call(args, kwargs, receiver.snapshot() if receiver else None)
        self.calls.append(rec.n)
        if receiver is not None and rec.kind == "returned":
            receiver._calls.append([self.info.name, list(args), kwargs])
            self._refresh(receiver)
        return self._outcome(rec)

    def _refresh(self, recipe: Recipe) -> None:
        o = self.recorder.side_call("copy.copy", [recipe.snapshot()], {})
        if o.kind == "returned" and isinstance(o.value, dict):
            recipe._state = o.typed if isinstance(o.typed, dict) else o.value

    def construct(self, cls: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Recipe:
        return self.guard(lambda a, k: self._construct(cls, a, k), args, kwargs)  # type: ignore[no-any-return]

    def _construct(self, cls: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Recipe:
        o = self.recorder.side_call(cls, list(args), kwargs)
        state = self._outcome(o)
        recipe = Recipe(cls, args, kwargs, state)
        known = self.classes.get(cls.rsplit(".", 1)[-1])
        recipe._params = known.params if known is not None else ()
        return recipe

    def method(
        self, recipe: Recipe, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        cls_name = recipe._cls.rsplit(".", 1)[-1]
        if f"{cls_name}.{name}" == self.info.qualname:
            return self.call_target(args, kwargs, recipe)

        def run(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            o = self.recorder.side_call(
                f"{recipe._cls}.{name}", list(args), kwargs, receiver=recipe.snapshot()
            )
            value = self._outcome(o)
            recipe._calls.append([name, list(args), kwargs])
            self._refresh(recipe)
            return value

        return self.guard(run, args, kwargs)

    def external(self, target: Callable[..., Any] | None = None) -> Any:
        """The module as the sandbox imports it; ``target`` is the host function the bare name
        is bound to."""
        from pydantic_monty import ClassInstance, ExternalModule

        attrs: dict[str, Any] = {}
        for name, c in self.classes.items():
            if c.kind == "class":
                attrs[name] = self._class_type(name, c)
            elif c.kind == "enum":
                attrs[name] = self._enum_type(name, c)
        name_ = self.info.qualname.split(".")[0]
        if "." not in self.info.qualname:
            attrs[name_] = target or (lambda *a, **k: self.call_target(a, k, None))
        _ = ClassInstance
        return ExternalModule(attrs)

    def _stand_in(self, name: str, methods: tuple[str, ...], base: type) -> type:
        module = self

        def make(meth: str) -> Callable[..., Any]:
            def call(self: Any, *args: Any, **kwargs: Any) -> Any:
                return module.method(self, meth, args, kwargs)

            call.__name__ = meth
            return call

        cls = type(name, (base,), {m: make(m) for m in methods})
        cls.__module__ = self.info.module
        cls.__qualname__ = name
        return cls

    def _class_type(self, name: str, c: ClassInfo) -> Any:
        from pydantic_monty import ClassInstance, ClassType

        module, path = self, f"{self.info.module}.{name}"
        stand_in = self._stand_in(name, c.methods, Recipe)

        class Build(ClassType):
            def construct(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> ClassInstance:
                recipe = module.construct(path, args, kwargs)
                recipe.__class__ = stand_in
                return ClassInstance(
                    recipe, lazy_attrs="all", allowed_methods="all", class_type=self
                )

        return Build(stand_in, init=True)

    def _enum_type(self, name: str, c: ClassInfo) -> Any:
        from pydantic_monty import ClassInstance, ClassType

        path = f"{self.info.module}.{name}"
        members = {m: MemberRef(path, m, v) for m, v in c.members.items()}
        stand_in = type(
            name,
            (),
            {m: ClassInstance(ref, eager_attrs=["name", "value"]) for m, ref in members.items()},
        )
        stand_in.__module__ = self.info.module

        class ByValue(ClassType):
            def construct(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> ClassInstance:
                for ref in members.values():
                    if args and ref.value == args[0]:
                        return ClassInstance(ref, eager_attrs=["name", "value"])
                raise ValueError(f"{args[0] if args else None!r} is not a valid {name}")

        return ByValue(stand_in, init=True, eager_attrs=list(members))
