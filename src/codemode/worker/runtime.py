"""The worker: runs the user's functions in the project's own interpreter.

Stdlib only, and valid on Python 3.10 to 3.13: it runs under whatever interpreter the
project uses, where codemode itself is usually not installed. It is started as a script
(``python runtime.py --root ...``) and speaks JSON lines: requests on stdin, replies on a
private duplicate of the original stdout, while fd 1 is pointed at /dev/null and
``sys.stdout`` at a sink, so the function's own prints never reach the protocol.

The parent also imports this module for ``canonical``/``decode``, so that expected
values from YAML and observed values from the worker go through one canonical form.
"""

from __future__ import annotations

import enum
import importlib
import io
import json
import os
import re
import sys
import time
import types
from collections.abc import Awaitable, Callable

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~4 ms of every start
if TYPE_CHECKING:
    from typing import Any

# Startup is on the pre-commit hook's path (the parent waits for the worker's hello), so
# only what every run needs is imported here. Value types (datetime, Decimal, UUID, paths,
# dataclasses...) are looked up in sys.modules: a value of such a type can only exist once
# its module has been imported, by the user's code or by YAML, so an absent module means
# "not this type" and importing it just to say so would cost ~30 ms of every start.


def _loaded(module: str, *names: str) -> tuple[type[Any], ...]:
    """The classes ``names`` of ``module`` if it is imported, else () (isinstance: False)."""
    mod = sys.modules.get(module)
    # A module another thread is still importing may lack a class yet; no value of a class
    # that does not exist yet can be passed here, so a missing name is "not this type".
    found = (getattr(mod, n, None) for n in names) if mod is not None else ()
    return tuple(c for c in found if c is not None)


def _b64encode(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode("ascii")


def _b64decode(text: str) -> bytes:
    import base64

    return base64.b64decode(text)


def _last_frame(exc: BaseException) -> types.TracebackType | None:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


# --------------------------------------------------------------------------------------
# Canonical data: YAML-safe values that compare by meaning, never by memory address.
# --------------------------------------------------------------------------------------

BYTES_TAG = "$bytes"
OBJECT_TAG = "$class"  # custom objects: {"$class": "mod.Class", attr: value, ...}
REPR_TAG = "$repr"  # values whose repr is faithful (no memory address): re.Pattern, complex...
UNREPRESENTABLE_TAG = "$unrepresentable"
_MAP_TAG = "\u0000map"  # transport only: a dict whose keys are not all strings
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")
_MAX_DEPTH = 60


_MAX_INT_BITS = 13_000  # about 3,900 decimal digits, under the 4,300 that str(int) allows


def canonical(value: object, _depth: int = 0, _path: set[int] | None = None) -> Any:
    """The canonical data form of ``value`` (docs/architecture.md, "canonical data")."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if isinstance(value, enum.Enum):
            return canonical(value.value, _depth + 1, _path)
        if value.bit_length() > _MAX_INT_BITS:  # past Python's int/str limit: no JSON for it
            return {UNREPRESENTABLE_TAG: f"an int of {value.bit_length():,} bits"}
        return int(value)
    if isinstance(value, float):
        return float(value)
    if _depth > _MAX_DEPTH:
        return {UNREPRESENTABLE_TAG: "nested too deep"}
    if _path is None:
        _path = set()
    vid = id(value)
    if vid in _path:
        return {UNREPRESENTABLE_TAG: "cycle"}
    if isinstance(value, enum.Enum):
        return canonical(value.value, _depth + 1, _path)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {BYTES_TAG: _b64encode(bytes(value))}
    if isinstance(value, _loaded("datetime", "datetime", "date", "time")):
        return value.isoformat()
    if isinstance(value, _loaded("datetime", "timedelta")):
        return value.total_seconds()
    if isinstance(
        value,
        (
            *_loaded("decimal", "Decimal"),
            *_loaded("fractions", "Fraction"),
            *_loaded("uuid", "UUID"),
        ),
    ):
        return str(value)
    if isinstance(value, _loaded("pathlib", "PurePath")):
        return value.as_posix()
    if isinstance(value, complex):
        return {REPR_TAG: repr(value)}
    _path.add(vid)
    try:
        return _canonical_container(value, _depth, _path)
    finally:
        _path.discard(vid)


def _canonical_container(value: Any, depth: int, path: set[int]) -> Any:
    d = depth + 1
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # NamedTuple: its data
        return {k: canonical(v, d, path) for k, v in zip(value._fields, value)}
    if isinstance(value, (list, tuple, range)):
        return [canonical(v, d, path) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [canonical(v, d, path) for v in value]
        return sorted(items, key=_sort_key)
    if isinstance(value, dict):
        return _canonical_dict(value, d, path)
    if hasattr(type(value), "__dataclass_fields__") and not isinstance(value, type):
        import dataclasses  # imported already: the value's class was made by it

        return {
            f.name: canonical(getattr(value, f.name), d, path) for f in dataclasses.fields(value)
        }
    dump = getattr(value, "model_dump", None)
    if callable(dump) and hasattr(type(value), "model_fields"):  # pydantic v2 model
        return canonical(dump(), d, path)
    cls = type(value)
    if (
        hasattr(value, "__dict__")
        and not isinstance(value, type)
        and not callable(value)
        and not isinstance(value, types.ModuleType)
        and cls.__repr__ is object.__repr__  # type: ignore[comparison-overlap]
    ):
        out: dict[str, Any] = {OBJECT_TAG: _qualname(cls)}
        for k, v in vars(value).items():
            if not k.startswith("_"):
                out[k] = canonical(v, d, path)
        return out
    text = _safe_repr(value)
    if (
        text is not None
        and not _ADDRESS.search(text)
        and not isinstance(value, types.GeneratorType)
    ):
        return {REPR_TAG: text}
    return {UNREPRESENTABLE_TAG: _qualname(cls)}


# Dicts whose keys collided in canonical form since the worker last cleared this (``_convert``
# turns any into an error of the case); the value itself is marked as having no faithful form.
COLLISIONS: list[str] = []


def _canonical_dict(value: dict[Any, Any], d: int, path: set[int]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for k, v in value.items():
        original = k
        if isinstance(k, enum.Enum):
            k = k.value
        if not (k is None or isinstance(k, (str, int, float, bool))):
            ck = canonical(k, d, path)
            k = json.dumps(ck, sort_keys=True, default=str) if not isinstance(ck, str) else ck
        if k in out:  # (1, 2) and "[1, 2]": one would silently replace the other (#21)
            why = f"two keys of a dict have one canonical form ({_safe_repr(original)} is {k!r})"
            COLLISIONS.append(why)
            return {UNREPRESENTABLE_TAG: why}
        out[k] = canonical(v, d, path)
    return out


def _safe_repr(value: Any) -> str | None:
    try:
        text = repr(value)
    except Exception:
        return None
    return text if len(text) <= 2000 else None


def _qualname(cls: type) -> str:
    mod = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if mod == "builtins" else f"{mod}.{name}"


def _sort_key(v: Any) -> tuple[str, str]:
    return (type(v).__name__, json.dumps(v, sort_keys=True, default=str))


def has_faithful_form(value: object) -> bool:
    """False when a canonical value holds something that cannot be compared faithfully."""
    if isinstance(value, dict):
        if UNREPRESENTABLE_TAG in value:
            return False
        return all(has_faithful_form(v) for v in value.values())
    if isinstance(value, list):
        return all(has_faithful_form(v) for v in value)
    return True


# --- transport: JSON that keeps non-string dict keys and NaN ------------------------------


_TYPE_TAG = "\u0000t"  # transport only: YAML-native values JSON has no type for


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _encode(value: Any) -> Any:
    # Exact-type fast paths first: a 2,000-case request is mostly plain scalars and lists.
    t = type(value)
    if t in _PLAIN:
        return value
    if t is list:
        return [v if type(v) in _PLAIN else _encode(v) for v in value]
    if t is dict and all(type(k) is str and k[:1] != "\u0000" for k in value):
        return {k: v if type(v) in _PLAIN else _encode(v) for k, v in value.items()}
    if isinstance(value, _loaded("datetime", "datetime", "date", "time")):
        return {_TYPE_TAG: type(value).__name__, "v": value.isoformat()}
    if isinstance(value, (bytes, bytearray)):
        return {_TYPE_TAG: "bytes", "v": _b64encode(bytes(value))}
    if isinstance(value, (set, frozenset)):
        kind = "frozenset" if isinstance(value, frozenset) else "set"
        return {_TYPE_TAG: kind, "v": [_encode(v) for v in value]}
    if isinstance(value, tuple):
        return {_TYPE_TAG: "tuple", "v": [_encode(v) for v in value]}
    if isinstance(value, _loaded("decimal", "Decimal")):
        return {_TYPE_TAG: "decimal", "v": str(value)}
    if isinstance(value, _loaded("datetime", "timedelta")):
        return {_TYPE_TAG: "timedelta", "v": [value.days, value.seconds, value.microseconds]}
    wire = getattr(value, "__codemode_wire__", None)  # an explorer's recipe for a project object
    if callable(wire):
        kind, data = wire()
        return {_TYPE_TAG: kind, "v": _encode(data)}
    if isinstance(value, dict):
        # A key that starts with NUL could read as one of the transport's own tags (a
        # function may return {"\u0000t": "bytes", ...}); such a dict travels as pairs (#11).
        if all(isinstance(k, str) and k[:1] != "\u0000" for k in value):
            return {k: _encode(v) for k, v in value.items()}
        return {_MAP_TAG: [[_encode(k), _encode(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    return value


def _from_iso(kind: str) -> Callable[[str], Any]:
    def decode(text: str) -> Any:
        import datetime

        return getattr(datetime, kind).fromisoformat(text)

    return decode


_DECODERS: dict[str, Callable[[Any], Any]] = {
    "datetime": _from_iso("datetime"),
    "date": _from_iso("date"),
    "time": _from_iso("time"),
    "bytes": _b64decode,
    "set": set,
    "frozenset": frozenset,
    "tuple": tuple,
    "decimal": lambda v: importlib.import_module("decimal").Decimal(v),
    "timedelta": lambda v: importlib.import_module("datetime").timedelta(*v),
    "new": lambda v: _New(v),
    "member": lambda v: _Member(v),
}


class _New:
    """An explorer's recipe for a project object: ``cls(*args, **kwargs)``, then ``calls``."""

    def __init__(self, v: dict[str, Any]) -> None:
        self.cls = str(v["cls"])
        self.args = list(v.get("args", []))
        self.kwargs = dict(v.get("kwargs", {}))
        self.calls = [tuple(c) for c in v.get("calls", [])]


class _Member:
    """An Enum member (or any class attribute) named by an explorer: ``cls.name``."""

    def __init__(self, v: list[str]) -> None:
        self.cls, self.name = str(v[0]), str(v[1])


def realize(value: Any, depth: int = 0) -> Any:
    """Recipes in ``value`` built into the project's real objects (only explorer calls hold them)."""
    if depth > 30:
        return value
    if isinstance(value, _New):
        obj = import_object(value.cls)(
            *realize(value.args, depth + 1), **realize(value.kwargs, depth + 1)
        )
        for name, args, kwargs in value.calls:
            getattr(obj, name)(*realize(args, depth + 1), **realize(kwargs, depth + 1))
        return obj
    if isinstance(value, _Member):
        return getattr(import_object(value.cls), value.name)
    if isinstance(value, (list, tuple, set, frozenset)):
        return type(value)(realize(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return {k: realize(v, depth + 1) for k, v in value.items()}
    return value


def _decode_hook(obj: dict[str, Any]) -> Any:
    if _TYPE_TAG in obj and len(obj) == 2 and obj[_TYPE_TAG] in _DECODERS:
        return _DECODERS[obj[_TYPE_TAG]](obj["v"])
    if _MAP_TAG in obj and len(obj) == 1:
        return {(k if not isinstance(k, list) else tuple(k)): v for k, v in obj[_MAP_TAG]}
    return obj


def dumps(msg: Any) -> str:
    return json.dumps(_encode(msg), separators=(",", ":"), default=str)


def loads(line: str) -> Any:
    return json.loads(line, object_hook=_decode_hook)


# --------------------------------------------------------------------------------------
# Type expressions (``type: list[int] | None``), parsed without eval.
# --------------------------------------------------------------------------------------

_BUILTIN_TYPES = {
    name: obj
    for name, obj in __import__("builtins").__dict__.items()
    if isinstance(obj, type) and not name.startswith("_")
}


# Stdlib value types a spec names without importing them (``type: date``), whatever the
# target module's own imports (``import datetime as dt`` leaves no ``date`` in its namespace).
_STDLIB_TYPES = {  # name -> its module, imported when a type expression names it
    "date": "datetime",
    "datetime": "datetime",
    "time": "datetime",
    "timedelta": "datetime",
    "timezone": "datetime",
    "Decimal": "decimal",
    "Fraction": "fractions",
    "UUID": "uuid",
    "Path": "pathlib",
    "PurePath": "pathlib",
}


class _Any:
    pass


def _resolve_name(name: str, namespace: dict[str, Any]) -> Any:
    import typing

    if name == "Any":
        return _Any
    if name == "None":
        return type(None)
    if name in _BUILTIN_TYPES:
        return _BUILTIN_TYPES[name]
    if name in namespace:
        return namespace[name]
    if hasattr(typing, name):
        return getattr(typing, name)
    if name in _STDLIB_TYPES:
        return getattr(importlib.import_module(_STDLIB_TYPES[name]), name)
    raise ValueError(f"unknown type name {name!r}")


def _resolve_attribute(node: Any, namespace: dict[str, Any]) -> Any:
    import ast
    import typing

    parts = []
    cur: Any = node
    while isinstance(cur, ast.Attribute):
        parts.append(cur.attr)
        cur = cur.value
    if not isinstance(cur, ast.Name):
        raise ValueError("unsupported type expression")
    parts.append(cur.id)
    parts.reverse()
    # Only modules already imported are looked into: a type never imports code.
    obj = namespace.get(parts[0]) or sys.modules.get(parts[0])
    if obj is None:
        raise ValueError(f"unknown name {parts[0]!r} in type")
    for p in parts[1:]:
        obj = getattr(obj, p)
    if obj is typing.Any:
        return _Any
    return obj


def _resolve_type(node: Any, namespace: dict[str, Any]) -> Any:
    import ast
    import typing

    if isinstance(node, ast.Constant):
        if node.value is None:
            return type(None)
        if isinstance(node.value, str):
            return _resolve_type(ast.parse(node.value, mode="eval").body, namespace)
        raise ValueError(f"unsupported constant {node.value!r} in type")
    if isinstance(node, ast.Name):
        return _resolve_name(node.id, namespace)
    if isinstance(node, ast.Attribute):
        return _resolve_attribute(node, namespace)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return (
            "union",
            [_resolve_type(node.left, namespace), _resolve_type(node.right, namespace)],
        )
    if isinstance(node, ast.Subscript):
        base = _resolve_type(node.value, namespace)
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if base is typing.Literal:
            return ("literal", [e.value for e in elts if isinstance(e, ast.Constant)])
        args = [
            "..."
            if isinstance(e, ast.Constant) and e.value is Ellipsis
            else _resolve_type(e, namespace)
            for e in elts
        ]
        return ("generic", base, args)
    if isinstance(node, ast.Tuple):
        return ("union", [_resolve_type(e, namespace) for e in node.elts])
    raise ValueError("unsupported type expression")


def _origin(t: Any) -> Any:
    return getattr(t, "__origin__", None) or t


def type_matches(value: Any, t: Any, strict: bool = False) -> bool:
    import typing

    if t is _Any:
        return True
    if isinstance(t, tuple):
        kind = t[0]
        if kind == "union":
            return any(type_matches(value, x, strict) for x in t[1])
        if kind == "literal":
            return value in t[1]
        base, args = t[1], t[2]
        if base in (typing.Optional,):
            return value is None or type_matches(value, args[0], strict)
        if base in (typing.Union,):
            return any(type_matches(value, a, strict) for a in args)
        origin = _origin(base)
        if not type_matches(value, origin, strict):
            return False
        if origin in (list, set, frozenset) or (
            isinstance(origin, type) and issubclass(origin, (list, set, frozenset))
        ):
            return all(type_matches(v, args[0], strict) for v in value)
        if origin is tuple:
            if len(args) == 2 and args[1] == "...":
                return all(type_matches(v, args[0], strict) for v in value)
            return len(value) == len(args) and all(
                type_matches(v, a, strict) for v, a in zip(value, args)
            )
        if origin is dict or (isinstance(origin, type) and issubclass(origin, dict)):
            return all(
                type_matches(k, args[0], strict) and type_matches(v, args[1], strict)
                for k, v in value.items()
            )
        return True
    if t is typing.Any:
        return True
    t = _origin(t)
    if not isinstance(t, type):
        raise ValueError(f"{t!r} is not a type")
    if strict:
        return type(value) is t
    if t is float and isinstance(value, int) and not isinstance(value, bool):
        return False
    return isinstance(value, t)


_RESOLVED: dict[tuple[str, int], tuple[dict[str, Any], Any]] = {}


def check_type(value: Any, expr: str, strict: bool, namespace: dict[str, Any]) -> str | None:
    """None if ``value`` is of type ``expr``; otherwise a one-line reason."""
    answer = type_answer(value, expr, strict, namespace)
    return answer if answer is None or isinstance(answer, str) else answer["spec_error"]


def type_answer(
    value: Any, expr: str, strict: bool, namespace: dict[str, Any]
) -> str | dict[str, str] | None:
    """As the wire carries it: None when ``value`` is of type ``expr``, a one-line reason when
    it is not, ``{"spec_error": reason}`` when the spec's type expression cannot be checked."""
    import ast

    try:
        key = (expr, id(namespace))
        cached = _RESOLVED.get(key)
        if cached is None or cached[0] is not namespace:
            # parsed and resolved once per expression and module, not once per case
            cached = (
                namespace,
                _resolve_type(ast.parse(expr.strip(), mode="eval").body, namespace),
            )
            _RESOLVED[key] = cached
        ok = type_matches(value, cached[1], strict)
    except Exception as exc:  # a bad type expression is the spec's problem, said plainly
        return {"spec_error": f"cannot check type {expr!r}: {exc}"}
    if ok:
        return None
    return f"expected type {expr}{' (strict)' if strict else ''}, got {type(value).__name__}"


# --------------------------------------------------------------------------------------
# Importing targets, fixtures and serializers.
# --------------------------------------------------------------------------------------


class TargetError(Exception):
    """The target cannot be run at all (import failed, name missing)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


# --------------------------------------------------------------------------------------
# Which callables a spec may name (#11). A spec's function ids, fixtures and serializers are
# called with the spec's data; they resolve only to the project's own modules (found under the
# root, outside any virtualenv) and to these pure standard-library modules, which vowel's
# examples use (``math.sqrt``, ``len``, ``sorted``). ``allow_callables`` under [tool.codemode]
# adds modules; nothing else is imported or called, so ``os.system`` as an id never runs.
# --------------------------------------------------------------------------------------

ALLOWED_MODULES = (
    "builtins",
    "math",
    "cmath",
    "operator",
    "string",
    "re",
    "json",
    "statistics",
    "decimal",
    "fractions",
    "numbers",
    "datetime",
    "calendar",
    "itertools",
    "functools",
    "collections",
    "textwrap",
    "unicodedata",
    "heapq",
    "bisect",
    "difflib",
    "base64",
    "binascii",
    "hashlib",
    "zlib",
    "html",
    "urllib.parse",
    "ipaddress",
    "uuid",
    "colorsys",
    "keyword",
    "copy",
    "enum",
    "random",
    # path arithmetic (vowel's examples use os.path.join); os itself stays out
    "os.path",
    "posixpath",
    "ntpath",
    "genericpath",
)
# Builtins that run code, read files or stop the process: never an id, fixture or serializer.
_DENIED_BUILTINS = frozenset(
    {"eval", "exec", "compile", "open", "__import__", "breakpoint", "input", "exit", "quit", "help"}
)


class _Policy:
    allowed: tuple[str, ...] = ALLOWED_MODULES
    root = ""
    outside: tuple[str, ...] = ()  # the interpreter's own trees, even inside the root


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _in_project(path: str | None) -> bool:
    if not path or not _Policy.root:
        return False
    real = os.path.realpath(path)
    parts = real.split(os.sep)
    return (
        _under(real, _Policy.root)
        and not any(_under(real, o) for o in _Policy.outside)
        and "site-packages" not in parts
        and "dist-packages" not in parts
    )


def _module_allowed(name: str) -> bool | None:
    """True: a project or allowlisted module; False: anything else; None: not found at all."""
    if any(name == a or name.startswith(a + ".") for a in _Policy.allowed):
        return True
    module = sys.modules.get(name)
    if module is not None:
        where = getattr(module, "__file__", None) or next(
            iter(getattr(module, "__path__", [])), None
        )
        return _in_project(where)
    import importlib.util

    try:  # the top-level package only: finding it imports nothing
        spec = importlib.util.find_spec(name.partition(".")[0])
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    where = spec.origin if spec.origin not in (None, "built-in", "frozen") else None
    if where is None and spec.submodule_search_locations:
        where = next(iter(spec.submodule_search_locations), None)
    return _in_project(where)


def _refused(path: str, what: str) -> TargetError:
    return TargetError(
        "refused",
        f"{path!r} resolves to {what}, outside the project's source roots and the allowed "
        "standard-library modules; a spec may only name the project's own callables (add a "
        "module to `allow_callables` under [tool.codemode] if you trust it)",
    )


def _home(obj: Any) -> Any:
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    return getattr(obj, "__module__", None) or getattr(
        getattr(obj, "__objclass__", None), "__module__", None
    )


def _check_resolved(path: str, obj: Any, owner: Any = None) -> None:
    """The object a spec named lives in an allowed module (``random._os.system`` does not);
    a property or a plain attribute, which names no module, is its class's or module's."""
    home = _home(obj) or _home(owner)
    if isinstance(home, str) and home == "builtins":
        name = getattr(obj, "__name__", "")
        if name in _DENIED_BUILTINS:
            raise _refused(path, f"the builtin {name}()")
        return
    if not isinstance(home, str) or not _module_allowed(home):
        raise _refused(path, f"module {home!r}")


def import_path(path: str) -> tuple[Any, Any, Any]:
    """Resolve ``pkg.mod.Class.method`` to (object, owner, module) by the longest importable prefix."""
    parts = path.split(".")
    last_error: BaseException | None = None
    for i in range(len(parts) - 1, 0, -1):
        mod_name = ".".join(parts[:i])
        if _module_allowed(mod_name) is False:
            if i == 1 or _module_allowed(parts[0]) is False:
                raise _refused(path, f"module {parts[0]!r}")
            continue  # a prefix that is no module (Class.method): try a shorter one
        if mod_name not in sys.modules:
            # Code that reads sys.argv at import time sees what `python -m mod_name` gives,
            # never the worker's own --root/--path flags.
            sys.argv = [_module_file(mod_name)]
        try:
            module = importlib.import_module(mod_name)
        except ModuleNotFoundError as exc:
            if exc.name and (mod_name == exc.name or mod_name.startswith(exc.name + ".")):
                last_error = exc
                continue  # this prefix is not a module; try a shorter one
            raise TargetError("import", _import_failed(mod_name, exc)) from exc
        except BaseException as exc:  # SyntaxError, an error at import time, SystemExit...
            raise TargetError("import", _import_failed(mod_name, exc)) from exc
        obj: Any = module
        owner: Any = None
        for j, attr in enumerate(parts[i:]):
            try:
                owner, obj = (
                    obj,
                    _getattr_static(obj, attr) if isinstance(obj, type) else getattr(obj, attr),
                )
            except AttributeError:
                where = ".".join(parts[: i + j])
                what = (
                    "no module or attribute"
                    if isinstance(obj, types.ModuleType)
                    else "no attribute"
                )
                raise TargetError(
                    "missing",
                    f"{where} has {what} {attr!r}: renamed or removed? Point the spec at the "
                    "function's new name, or delete the block",
                ) from None
            if isinstance(obj, types.ModuleType) and not _module_allowed(obj.__name__):
                raise _refused(path, f"module {obj.__name__!r}")
        _check_resolved(path, obj, owner)
        return obj, owner, module
    builtin = _builtin(parts)
    if builtin is not None:
        _check_resolved(path, builtin[0], builtin[1])
        return builtin
    msg = _exc_line(last_error) if last_error else f"cannot import {path!r}"
    raise TargetError("import", msg)


def _builtin(parts: list[str]) -> tuple[Any, Any, Any] | None:
    """``len`` or ``str.upper``: a builtin, as vowel resolves a function id with no module."""
    import builtins

    obj: Any = builtins
    owner: Any = None
    for attr in parts:
        if attr.startswith("__") or not hasattr(obj, attr):
            return None
        owner, obj = obj, getattr(obj, attr)
    return obj, (owner if owner is not builtins else None), None


def _module_file(mod_name: str) -> str:
    """The file ``python -m mod_name`` would put in ``sys.argv[0]``, found without importing."""
    rel = mod_name.replace(".", os.sep)
    for base in sys.path:
        for cand in (rel + ".py", os.path.join(rel, "__init__.py")):
            full = os.path.join(base or os.getcwd(), cand)
            if os.path.isfile(full):
                return os.path.abspath(full)
    return mod_name


def _getattr_static(obj: Any, attr: str) -> Any:
    import inspect  # only for methods (Class.method): ~10 ms that plain functions never pay

    return inspect.getattr_static(obj, attr)


def _import_failed(module: str, exc: BaseException) -> str:
    import traceback  # only when an import failed

    tb = traceback.extract_tb(exc.__traceback__)
    user = [f for f in tb if not f.filename.startswith("<") and f.filename != __file__]
    where = f" at {user[-1].filename}:{user[-1].lineno}" if user else ""
    return (
        f"cannot import {module}: {_exc_line(exc)}{where}; the module fails when imported, "
        "fix it (or what it needs at import time) and run again"
    )


def _exc_line(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} ({exc.filename}, line {exc.lineno})"
    return f"{type(exc).__name__}: {exc}"


def import_object(path: str) -> Any:
    obj, owner, _ = import_path(path)
    if isinstance(obj, (staticmethod, classmethod)):
        return obj.__get__(None, owner)
    return obj


class Fixtures:
    """Fixture values by scope: case (per case), eval (per function block), file (per spec file)."""

    def __init__(self) -> None:
        self.file_values: dict[tuple[str, str], Any] = {}
        self.file_teardowns: dict[str, list[Callable[[], None]]] = {}

    def setup(self, spec: dict[str, Any]) -> tuple[Any, Callable[[], None] | None]:
        if spec.get("cls"):
            value = import_object(spec["cls"])(*spec.get("args", []), **spec.get("kwargs", {}))
        else:
            fn = import_object(spec["setup"])
            value = fn(*spec.get("args", []), **spec.get("kwargs", {}))
        teardown: Callable[[], None] | None = None
        if isinstance(value, types.GeneratorType):
            gen = value
            value = next(gen)

            def teardown() -> None:
                try:
                    next(gen)
                except StopIteration:
                    pass

        elif spec.get("teardown"):
            td = spec["teardown"]
            head, _, meth = td.rpartition(".")
            if head and type(value).__name__ == head.rsplit(".", 1)[-1] and hasattr(value, meth):
                bound = getattr(value, meth)
                teardown = bound
            else:
                fn_td = import_object(td)

                def teardown() -> None:
                    fn_td(value)

        return value, teardown

    def end_file(self, key: str) -> list[str]:
        errors = []
        for td in reversed(self.file_teardowns.pop(key, [])):
            try:
                td()
            except Exception as exc:
                errors.append(_exc_line(exc))
        for k in [k for k in self.file_values if k[0] == key]:
            del self.file_values[k]
        return errors


def apply_serializer(
    case: dict[str, Any], serializer: dict[str, Any] | None
) -> tuple[list[Any], dict[str, Any]]:
    """vowel's rules: schema (one type or per-parameter types) or a serializer function."""
    args, kwargs = list(case.get("args", [])), dict(case.get("kwargs", {}))
    if not serializer:
        return args, kwargs
    form, value = case.get("form"), case.get("input")
    if serializer.get("serializer"):
        fn = import_object(serializer["serializer"])
        res = fn({"input": value} if form == "input" else {"inputs": value})
        if isinstance(res, tuple):
            return list(res), {}
        if isinstance(res, dict):
            return [], res
        return [res], {}
    schema = serializer.get("schema")
    if isinstance(schema, str):
        build = _builder(schema)
        if form == "inputs_dict":
            return [_build(build, kwargs)], {}
        return [_build(build, a) for a in args], kwargs
    if isinstance(schema, dict):
        builders = {k: _builder(v) for k, v in schema.items()}
        forms = _sibling("forms")
        kwargs = {
            k: v
            if k not in builders
            else forms.receiver(builders[k], v)
            if k == forms.RECEIVER
            else _build(builders[k], v)
            for k, v in kwargs.items()
        }
        return args, kwargs
    return args, kwargs


def _builder(entry: str) -> Any:
    """A schema entry: an importable name (vowel), or a type expression (``list[mod.Cls]``)."""
    if "[" in entry or "|" in entry:
        return _sibling("forms").resolve(entry, import_object)
    return import_object(entry)


def _build(builder: Any, value: Any) -> Any:
    if isinstance(builder, type) or not callable(builder) or hasattr(builder, "__origin__"):
        # a class or a type expression: fields built by their annotations (worker/forms.py)
        return _sibling("forms").build(builder, value)
    if isinstance(value, dict):
        validate = getattr(builder, "model_validate", None)
        if callable(validate):
            return validate(value)
        try:
            return builder(**value)
        except TypeError:
            return builder(value)
    return builder(value)


# --------------------------------------------------------------------------------------
# Running cases.
# --------------------------------------------------------------------------------------


class _Discard(io.TextIOBase):
    """``sys.stdout`` in the worker: what the function prints goes nowhere."""

    def write(self, s: str) -> int:
        return len(s)


def _line_tracer(code_filter: Callable[[Any], bool], lines: set[int]) -> Callable[..., Any]:
    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    def global_(frame: Any, event: str, arg: Any) -> Any:
        if event == "call" and code_filter(frame.f_code):
            lines.add(frame.f_lineno)
            return local
        return None

    return global_


# One case's reply: an output far past what a spec could hold is the case's error, not a
# 40 MB line for the parent to decode and the report to carry (#11). The parent drops a
# longer line unread (pool.MAX_REPLY_BYTES).
MAX_REPLY_CHARS = 2_000_000


def _too_big(msg: dict[str, Any], size: int) -> dict[str, Any]:
    what = "output" if msg.get("outcome") == "returned" else "reply"
    return {
        "case": msg["case"],
        "outcome": "error",
        "message": f"the {what} is {size / 1e6:.1f} MB as data, over the "
        f"{MAX_REPLY_CHARS / 1e6:g} MB one case may return; check a summary of it (its "
        "length, a few items) with an assertion, or return less",
        "duration_ms": msg.get("duration_ms"),
    }


def _shares_file_state(req: dict[str, Any]) -> bool:
    """A block with a ``scope: file`` fixture shares that value with the file's other blocks
    on purpose (vowel's semantics): it runs in the worker itself, where the value lives."""
    scopes = {f.get("name"): f.get("scope") for f in req.get("fixtures", [])}
    return any(scopes.get(n) == "file" for n in req.get("fixture_names", []))


class Runner:
    def __init__(self, proto: Any, fork: bool = False) -> None:
        self.proto = proto
        self.fixtures = Fixtures()
        self.fork = fork  # function blocks run in forked children (see run)
        self.child: Any = None  # the live child (worker/children.py), if any
        self.line = ""  # the request being handled, as it came (a child gets it verbatim)

    def send(self, msg: dict[str, Any]) -> None:
        line = dumps(msg)
        if len(line) > MAX_REPLY_CHARS and "case" in msg:
            line = dumps(_too_big(msg, len(line)))
        self.proto.write(line + "\n")
        self.proto.flush()

    def handle(self, req: dict[str, Any]) -> None:
        op = req.get("op")
        if op == "hello":
            self.send({"ok": True, "fork": self.fork})
        elif op == "run":
            self.run(req)
        elif op == "end_file":
            self.retire()
            self.send({"ok": True, "errors": self.fixtures.end_file(req.get("key", ""))})
        elif op == "mutate":
            self.retire()
            _sibling("mutation").run_mutants(self, req)
        else:
            self.send({"fatal": "protocol", "message": f"unknown op {op!r}"})

    def run(self, req: dict[str, Any]) -> None:
        target = req["target"]
        try:
            obj, owner, module = import_path(target)
        except TargetError as exc:
            self.send({"fatal": exc.kind, "message": str(exc)})
            return
        # A `main()` under test parses the argv of `python -m its.module`, not the worker's.
        sys.argv = [getattr(module, "__file__", None) or target]
        if not self.fork or not req.get("isolate", True) or _shares_file_state(req):
            self.retire()
            self.run_cases(obj, owner, module, req)
            return
        # In a forked child: module state its cases change dies with the child, so no verdict
        # depends on which other functions ran before in this worker (#12, worker/children.py).
        kids = _sibling("children")
        if self.child is not None and self.child.modules != len(sys.modules):
            self.retire()  # imported since the fork: a fresh child has what this one lacks
        if self.child is None:
            self.proto.flush()
            self.child = kids.spawn(self._child_main, self.proto.fileno())
        self.proto.flush()
        child = self.child
        stay = kids.relay(child, req, self.line, self.proto.buffer)
        if stay:
            return
        self.child = None
        status = child.close(kill=False)
        if status is None:
            return
        if os.WIFSIGNALED(status):  # die the same death: the parent reports it and respawns
            os.kill(os.getpid(), os.WTERMSIG(status))
        elif os.waitstatus_to_exitcode(status) != kids.CHILD_OK:
            os._exit(os.waitstatus_to_exitcode(status))

    def retire(self) -> None:
        """End the live child, if any: the worker is about to change its own state."""
        if self.child is not None:
            self.child.close(kill=True)
            self.child = None

    def _child_main(self, requests: Any, replies: Any) -> None:
        """The forked child: blocks from ``requests`` until one leaves state behind."""
        self.proto, self.child = replies, None
        snap = _sibling("leaks").snapshot(_in_project)
        for line in requests:
            req = loads(line)
            try:
                obj, owner, module = import_path(req["target"])
                sys.argv = [getattr(module, "__file__", None) or req["target"]]
                self.run_cases(obj, owner, module, req)
            except TargetError as exc:
                self.send({"fatal": exc.kind, "message": str(exc)})
            except MemoryError:
                self.send({"fatal": "memory", "message": "the worker ran out of memory"})
                return
            stay = snap is not None and snap.unchanged()
            self.send({"stay": stay})
            if not stay:
                return

    def run_cases(self, obj: Any, owner: Any, module: Any, req: dict[str, Any]) -> None:
        file_key = req.get("file_key", "")
        fixture_specs = {f["name"]: f for f in req.get("fixtures", [])}
        eval_values: dict[str, Any] = {}
        eval_teardowns: list[Callable[[], None]] = []
        try:
            for case in req["cases"]:
                self.send(
                    self.run_case(
                        obj,
                        owner,
                        module,
                        case,
                        req,
                        fixture_specs,
                        eval_values,
                        eval_teardowns,
                        file_key,
                    )
                )
        finally:
            for td in reversed(eval_teardowns):
                try:
                    td()
                except Exception:
                    pass
        self.send({"done": True})

    def _fixture_values(
        self,
        names: list[str],
        specs: dict[str, dict[str, Any]],
        eval_values: dict[str, Any],
        eval_teardowns: list[Callable[[], None]],
        case_teardowns: list[Callable[[], None]],
        file_key: str,
    ) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name in names:
            spec = specs[name]
            scope = spec.get("scope", "case")
            if scope == "file" and (file_key, name) in self.fixtures.file_values:
                values[name] = self.fixtures.file_values[(file_key, name)]
                continue
            if scope == "eval" and name in eval_values:
                values[name] = eval_values[name]
                continue
            value, td = self.fixtures.setup(spec)
            values[name] = value
            if scope == "file":
                self.fixtures.file_values[(file_key, name)] = value
                if td:
                    self.fixtures.file_teardowns.setdefault(file_key, []).append(td)
            elif scope == "eval":
                eval_values[name] = value
                if td:
                    eval_teardowns.append(td)
            elif td:
                case_teardowns.append(td)
        return values

    def run_case(
        self,
        obj: Any,
        owner: Any,
        module: Any,
        case: dict[str, Any],
        req: dict[str, Any],
        fixture_specs: dict[str, dict[str, Any]],
        eval_values: dict[str, Any],
        eval_teardowns: list[Callable[[], None]],
        file_key: str,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"case": case.get("id")}
        case_teardowns: list[Callable[[], None]] = []
        try:
            try:
                fx = self._fixture_values(
                    list(req.get("fixture_names", [])),
                    fixture_specs,
                    eval_values,
                    eval_teardowns,
                    case_teardowns,
                    file_key,
                )
                if case.get("build"):  # an explorer's call: recipes become real objects
                    case = {
                        **case,
                        "args": realize(case.get("args", [])),
                        "kwargs": realize(case.get("kwargs", {})),
                    }
                    if case.get("self") is not None:
                        fx = {"\u0000self": realize(case["self"]), **fx}
                args, kwargs = apply_serializer(case, req.get("serializer"))
                if isinstance(owner, type) and isinstance(kwargs.get("self"), owner):
                    fx = {"\u0000self": kwargs.pop("self"), **fx}  # a receiver recipe (#22)
                func, fx = _bind(obj, owner, fx)
                if case.get("exprs"):  # docstring and test calls, built with the module's globals
                    args, kwargs = _sibling("mutation").eval_exprs(case["exprs"], module, out)
            except TargetError as exc:
                out.update(outcome="error", message=str(exc))
                return out
            except BaseException as exc:
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    raise
                out.update(
                    outcome="error", message="fixture or serializer failed: " + _exc_line(exc)
                )
                return out
            kwargs.update(fx)
            return _call(func, args, kwargs, module, case, out)
        finally:
            for td in reversed(case_teardowns):
                try:
                    td()
                except Exception:
                    pass


def _positional_only(func: Any, args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
    """Keyword inputs naming positional-only parameters, moved to their place in ``args``
    (taken out of ``kwargs``): ``inputs: {value: x, strict: true}`` is the spec's one form
    for ``f(value, /, *, strict=False)`` called with an option. Read from the code object,
    through decorators' ``__wrapped__``, without importing inspect."""
    target = func
    for _ in range(10):
        if not hasattr(target, "__wrapped__"):
            break
        target = target.__wrapped__
    skip = 1 if getattr(target, "__self__", None) is not None else 0
    code = getattr(getattr(target, "__func__", target), "__code__", None)
    if code is None or not getattr(code, "co_posonlyargcount", 0):
        return args
    out = list(args)
    for name in code.co_varnames[skip : code.co_posonlyargcount][len(args) :]:
        if name not in kwargs:
            break
        out.append(kwargs.pop(name))
    return out


def _trace_lines(func: Any, lines: set[int]) -> bool:
    """Record the lines of ``func`` (and of code defined inside it) that run; False if it has none."""
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    if code is None:
        return False
    fname = code.co_filename
    first = code.co_firstlineno
    last = (
        max((ln for _, _, ln in code.co_lines() if ln), default=first)
        if hasattr(code, "co_lines")
        else first
    )
    sys.settrace(
        _line_tracer(lambda c: c.co_filename == fname and first <= c.co_firstlineno <= last, lines)
    )
    return True


def _call(
    func: Any,
    args: list[Any],
    kwargs: dict[str, Any],
    module: Any,
    case: dict[str, Any],
    out: dict[str, Any],
) -> dict[str, Any]:
    """Call the target once: what it returned (canonical, with its type answers) or raised."""
    if kwargs:
        args = _positional_only(func, args, kwargs)
    lines: set[int] = set()
    tracing = bool(case.get("trace")) and _trace_lines(func, lines)
    clock: list[str] = []
    watching = bool(case.get("watch_clock"))
    if watching:
        sys.setprofile(_clock_watch(clock))
    shifted = _ShiftedClock(float(case["clock_shift"])) if case.get("clock_shift") else None
    old_stdout = sys.stdout  # restored, should the function replace it
    t0 = time.perf_counter()
    try:
        if shifted is not None:
            with shifted:
                result = func(*args, **kwargs)
        else:
            result = func(*args, **kwargs)
        if _is_awaitable(result):
            import asyncio

            result = asyncio.run(_await(result))
        if hasattr(result, "__next__") or hasattr(result, "__anext__"):
            result = _consumed(result)  # a generator's items are its output (#22)
    except (SystemExit, Exception) as exc:
        elapsed = time.perf_counter() - t0
        out.update(outcome="raised", exc=_exc_info(exc))
    else:
        elapsed = time.perf_counter() - t0
        _convert(result, module, case, out)
    finally:
        sys.stdout = old_stdout
        if tracing:
            sys.settrace(None)
        if watching:
            sys.setprofile(None)
    out["duration_ms"] = elapsed * 1000.0
    if tracing:
        out["lines"] = sorted(lines)
    if clock:
        out["clock"] = clock[0]
    return out


def _convert(result: Any, module: Any, case: dict[str, Any], out: dict[str, Any]) -> None:
    """The returned value's canonical form and type answers into ``out``. Apart from the call:
    a value whose conversion raises (an ``__iter__`` that raises, dict keys that cannot be
    sorted) is an error of the case, never an exception the function raised (#21)."""
    try:
        COLLISIONS.clear()
        value = canonical(result)
        if COLLISIONS:
            raise ValueError(COLLISIONS[0])
        extra: dict[str, Any] = {}
        if case.get("typed"):
            extra["typed"] = typed(result)
        types = case.get("types") or []
        if types:
            ns = vars(module) if module is not None else {}
            extra["types"] = [
                type_answer(result, t["expr"], bool(t.get("strict")), ns) for t in types
            ]
    except (SystemExit, Exception) as exc:
        try:
            text = _exc_line(exc)[:2000]
        except Exception:  # an exception whose str() raises too
            text = type(exc).__name__
        out.update(outcome="error", message="the returned value could not be converted: " + text)
        return
    out.update(outcome="returned", value=value, **extra)


_CLOCK_READS = frozenset(["now", "utcnow", "today", "time", "time_ns"])


class _ShiftedClock:
    """The clock moved by ``seconds`` for one call, to tell a call whose output depends on
    the day from one that reads the clock for nothing (``now = now or datetime.now()`` on
    a path that never uses it). ``time.time`` moves, and with it ``date.today()``; the C
    clock behind ``datetime.now()`` cannot, so the project's modules see a ``datetime``
    whose ``now``/``utcnow`` read the moved ``time.time`` and which answers isinstance for
    real datetimes (freezegun's way). Explorer-only; anything it upsets makes the outputs
    differ, and the call is then no case, as without it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.undo: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> None:
        try:
            self._move()
        except BaseException:
            self.__exit__()  # never leave the worker's clock moved
            raise

    def _move(self) -> None:
        import datetime as real

        now_s, now_ns, shift = time.time, time.time_ns, self.seconds
        self._set(time, "time", lambda: now_s() + shift)
        self._set(time, "time_ns", lambda: now_ns() + int(shift * 1e9))
        fake = _fake_datetime(real.datetime)
        proxy = types.ModuleType("datetime")
        proxy.__dict__.update(vars(real))
        proxy.datetime = fake  # type: ignore[attr-defined]
        for mod in _project_modules():
            for name, value in list(vars(mod).items()):
                if value is real:
                    self._set(mod, name, proxy)
                elif value is real.datetime:
                    self._set(mod, name, fake)

    def _set(self, obj: Any, name: str, value: Any) -> None:
        self.undo.append((obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    def __exit__(self, *exc: object) -> None:
        for obj, name, value in reversed(self.undo):
            setattr(obj, name, value)
        self.undo.clear()


_PROJECT_MODULES: tuple[int, list[Any]] = (-1, [])


def _project_modules() -> list[Any]:
    """The imported modules of the project, found again only when a module was imported
    since (each clock-moved call would otherwise resolve every module's path)."""
    global _PROJECT_MODULES
    mods = list(sys.modules.values())
    if _PROJECT_MODULES[0] != len(mods):
        found = [m for m in mods if _in_project(getattr(m, "__file__", None))]
        _PROJECT_MODULES = (len(mods), found)
    return _PROJECT_MODULES[1]


def _fake_datetime(real: Any) -> Any:
    class _Meta(type):
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, real)

        def __subclasscheck__(cls, sub: Any) -> bool:
            return issubclass(sub, real)

    class FakeDatetime(real, metaclass=_Meta):  # type: ignore[misc, valid-type]
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return real.fromtimestamp(time.time(), tz)

        @classmethod
        def utcnow(cls) -> Any:
            return real.fromtimestamp(time.time(), _utc()).replace(tzinfo=None)

    return FakeDatetime


def _utc() -> Any:
    import datetime as real

    return real.timezone.utc


def _clock_watch(seen: list[str]) -> Callable[..., Any]:
    """A profile function that notes the first time the project's own code reads the clock
    (``datetime.now()``, ``date.today()``, ``time.time()``): an output that may depend on the
    day it was recorded ("2 years ago") would drift as time passes, so it is no case. Calls a
    library makes (logging stamping a record) do not count."""

    def profile(frame: Any, event: str, arg: Any) -> None:
        if seen or event != "c_call" or getattr(arg, "__name__", "") not in _CLOCK_READS:
            return
        owner = getattr(arg, "__self__", None)
        if isinstance(owner, type):
            home = any(c.__module__ == "datetime" for c in owner.__mro__[:-1])
        else:
            home = getattr(owner, "__name__", "") == "time"
        if home and _in_project(frame.f_code.co_filename):
            seen.append(f"{getattr(owner, '__name__', '?')}.{arg.__name__}()")

    return profile


def typed(value: Any, depth: int = 0) -> Any:
    """``value`` with the Python types the explorer's sandbox has (Decimal, date, tuple, bytes...);
    anything else (a custom object, an Enum member) in its canonical data form."""
    if isinstance(value, enum.Enum) or depth > 30:
        return canonical(value)
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return value
    if isinstance(
        value,
        (*_loaded("datetime", "date", "time", "timedelta"), *_loaded("decimal", "Decimal")),
    ):
        return value
    t = type(value)
    if t in (tuple, list, set, frozenset):
        return t(typed(v, depth + 1) for v in value)
    if t is dict and all(isinstance(k, (str, int)) for k in value):
        return {k: typed(v, depth + 1) for k, v in value.items()}
    data = canonical(value)
    if isinstance(data, dict) and not isinstance(value, dict):  # an object: its fields, typed
        return {
            k: typed(getattr(value, k), depth + 1) if hasattr(value, str(k)) else v
            for k, v in data.items()
        }
    return data


def _consumed(result: Any) -> Any:
    forms = _sibling("forms")
    if forms.is_iterator(result):
        return forms.consume(result)
    if forms.is_async_iterator(result):
        import asyncio

        return asyncio.run(forms.consume_async(result))
    return result


async def _await(aw: Any) -> Any:
    return await aw


def _bind(obj: Any, owner: Any, fx: dict[str, Any]) -> tuple[Callable[..., Any], dict[str, Any]]:
    """A method id (``mod.Class.method``) runs on an instance: a fixture's, or ``Class()``."""
    if isinstance(owner, type):
        if isinstance(obj, staticmethod):
            return obj.__func__, fx
        if isinstance(obj, classmethod):
            return obj.__get__(None, owner), fx
        if isinstance(obj, (types.FunctionType, property)):
            instance = None
            rest = dict(fx)
            for name, value in fx.items():
                if isinstance(value, owner):
                    instance = value
                    del rest[name]
                    break
            if instance is None:
                try:
                    instance = owner()
                except Exception as exc:
                    raise TargetError(
                        "error",
                        f"{owner.__qualname__} needs an instance: add a fixture with "
                        f"`cls: {owner.__module__}.{owner.__qualname__}` (and its args) and list it "
                        f"under `fixture:` ({_exc_line(exc)})",
                    ) from exc
            if isinstance(obj, property):
                fget = obj.fget
                return (lambda: fget(instance)), rest  # type: ignore[misc]
            return obj.__get__(instance, owner), rest
    if not callable(obj):
        raise TargetError("error", f"{obj!r} is not callable")
    return obj, fx


def _exc_info(exc: BaseException) -> dict[str, Any]:
    cls = type(exc)
    mro = [c for c in cls.__mro__ if c not in (object,)]
    message = str(exc)
    tb = _last_frame(exc)
    where = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb else ""
    return {
        "type": cls.__name__,
        "qualname": _qualname(cls),
        "mro": [c.__name__ for c in mro] + [_qualname(c) for c in mro],
        "message": message[:2000],
        "where": where,
        "origin": _raise_origin(tb),
    }


def _raise_origin(tb: types.TracebackType | None) -> str:
    """``project``: a ``raise`` in the project's own files; ``library``: a ``raise`` elsewhere;
    ``interpreter``: raised by the interpreter or C code on an operation (``2.5.lower()``),
    whose wording differs between Python versions."""
    if tb is None:
        return "interpreter"
    code = tb.tb_frame.f_code
    import opcode

    raise_op = opcode.opmap["RAISE_VARARGS"]
    if tb.tb_lasti < 0 or tb.tb_lasti >= len(code.co_code) or code.co_code[tb.tb_lasti] != raise_op:
        return "interpreter"
    path = os.path.abspath(code.co_filename)
    root = os.getcwd() + os.sep  # the worker runs in the project's root
    vendored = ("site-packages", "dist-packages")
    inside = path.startswith(root) and not any(v in path for v in vendored)
    return "project" if inside else "library"


_SIBLINGS: dict[str, Any] = {}


def _sibling(name: str) -> Any:
    """A stdlib-only module next to this script, loaded by file: the worker runs as a script
    whose folder is taken off ``sys.path`` (user modules win), so it cannot be imported."""
    mod = _SIBLINGS.get(name)
    if mod is None:
        import importlib.util

        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
        spec = importlib.util.spec_from_file_location(f"_codemode_worker_{name}", path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        _SIBLINGS[name] = mod
    return mod


def _setup_paths(root: str, extra: list[str]) -> None:
    # sys.path[0] is this script's folder; user modules must win over anything there.
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    for p in reversed([os.path.join(root, e) for e in extra] + [root]):
        if os.path.isdir(p) and p not in sys.path:
            sys.path.insert(0, p)
    os.chdir(root)


def _limit_memory(mb: int) -> None:
    try:
        import resource

        limit = mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass  # not on this platform: the parent's timeout still bounds the damage


def _is_awaitable(value: Any) -> bool:
    """``inspect.isawaitable`` without importing inspect on every worker start."""
    if isinstance(value, types.GeneratorType):
        return bool(value.gi_code.co_flags & 0x100)  # CO_ITERABLE_COROUTINE
    return isinstance(value, (types.CoroutineType, Awaitable))


class _Args:
    """``--root DIR [--path P ...] [--allow MODULE ...] [--memory-mb N]``: written by the
    parent, never by hand, so a few lines instead of argparse (~5 ms of the hook's every run)."""

    def __init__(self, argv: list[str]) -> None:
        self.root = ""
        self.path: list[str] = []
        self.allow: list[str] = []
        self.memory_mb = 0
        it = iter(argv)
        for flag in it:
            value = next(it, None)
            if value is None or flag not in ("--root", "--path", "--allow", "--memory-mb"):
                raise SystemExit(f"codemode worker: bad arguments {argv!r}")
            if flag == "--root":
                self.root = value
            elif flag == "--path":
                self.path.append(value)
            elif flag == "--allow":
                self.allow.append(value)
            else:
                self.memory_mb = int(value)
        if not self.root:
            raise SystemExit("codemode worker: --root is required")


def _set_policy(root: str, allow: list[str]) -> None:
    _Policy.root = os.path.realpath(root)
    _Policy.allowed = ALLOWED_MODULES + tuple(allow)
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    # a virtualenv inside the repository is the interpreter's, not the project's
    _Policy.outside = tuple(p for p in prefixes if p != _Policy.root and _under(p, _Policy.root))


def main(argv: list[str] | None = None) -> int:
    a = _Args(sys.argv[1:] if argv is None else argv)
    # The protocol gets a private copy of stdout; fd 1 goes to /dev/null so that C-level
    # writes and prints from the user's code can never corrupt a reply line.
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="backslashreplace")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = _Discard()
    _setup_paths(a.root, a.path)
    _set_policy(a.root, a.allow)
    if a.memory_mb:
        _limit_memory(a.memory_mb)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 3000))
    # CODEMODE_WORKER_FORK=0: the fallback of platforms without fork (the parent respawns).
    runner = Runner(proto, hasattr(os, "fork") and os.environ.get("CODEMODE_WORKER_FORK") != "0")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = loads(line)
        except ValueError as exc:
            runner.send({"fatal": "protocol", "message": f"bad request: {exc}"})
            continue
        if req.get("op") == "exit":
            break
        runner.line = line
        try:
            runner.handle(req)
        except MemoryError:
            runner.send({"fatal": "memory", "message": "the worker ran out of memory"})
            return 3
    runner.retire()
    return 0


def _exit_now(code: int) -> None:
    """Leave without the interpreter's teardown of every module (~10 ms the parent waits for
    at the end of each hook run). The user's atexit handlers still run; with threads of the
    user's still alive, the ordinary exit joins them instead."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        raise SystemExit(code)
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code)


if __name__ == "__main__":
    _exit_now(main())
