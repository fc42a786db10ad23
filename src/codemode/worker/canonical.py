"""Canonical data: YAML-safe values that compare by meaning, never by memory address.

Stdlib only (runs in the user's interpreter, Python 3.10+, inside the worker); the parent
imports it too, so expected values from YAML and observed values from the worker go
through one canonical form. Also the transport: JSON lines that keep non-string dict keys
and NaN (``dumps``/``loads``).
"""

from __future__ import annotations

import enum
import importlib
import json
import re
import sys
import types
from collections.abc import Callable

from .tags import BYTES_TAG, OBJECT_TAG, REPR_TAG, UNREPRESENTABLE_TAG

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


# One case's reply: an output far past what a spec could hold is the case's error, not a
# 40 MB line for the parent to decode and the report to carry (#11). The parent drops a
# longer line unread (reply_lines.MAX_REPLY_BYTES). Here, not in runner.py: the parent reads
# it without importing the worker's runner and all it imports (~15 ms of every check, #36).
MAX_REPLY_CHARS = 2_000_000
_MAP_TAG = "\u0000map"  # transport only: a dict whose keys are not all strings
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")
_MAX_DEPTH = 60


_MAX_INT_BITS = 13_000  # about 3,900 decimal digits, under the 4,300 that str(int) allows


# Exact types whose canonical form is the value itself (an int's needs its size checked).
_SAME = frozenset({str, bool, float, type(None)})


def canonical(value: object, _depth: int = 0, _path: set[int] | None = None) -> Any:
    """The canonical data form of ``value`` (docs/architecture.md, "canonical data")."""
    if type(value) in _SAME:  # most values, and most lists, without the checks below (#36)
        return value
    if type(value) is list and _depth <= _MAX_DEPTH and _flat(value):
        return list(value)
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
        _path = _Walk()
    vid = id(value)
    if vid in _path:
        return {UNREPRESENTABLE_TAG: "cycle"}
    if type(value) is list or type(value) is dict:  # the common containers: no type below
        _path.add(vid)
        try:
            return _canonical_container(value, _depth, _path)
        finally:
            _path.discard(vid)
    if type(value) not in _NO_VALUE_TYPE:
        form = _value_form(value, _depth, _path)
        if form is not _NONE:
            return form
    _path.add(vid)
    try:
        return _canonical_container(value, _depth, _path)
    finally:
        _path.discard(vid)


_NONE = object()
# Classes none of ``_value_form``'s types is a base of, as seen so far: a tree of many nodes of
# a few classes asks once per class, not once per node. Sound: a class can only be a subclass
# of datetime (say) once datetime is imported, and it is looked up whenever it is.
_NO_VALUE_TYPE: set[type] = set()


def _value_form(value: Any, depth: int, path: set[int]) -> Any:
    """The form of a value of one of the value types (an enum, bytes, dates, numbers of the
    standard library, paths, complex), or ``_NONE``."""
    if isinstance(value, enum.Enum):
        return canonical(value.value, depth + 1, path)
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
    if len(_NO_VALUE_TYPE) < 10_000:
        _NO_VALUE_TYPE.add(type(value))
    return _NONE


def _flat(items: list[Any]) -> bool:
    """Whether every item of ``items`` is its own canonical form: a list of plain scalars
    (ints of a size JSON can write), which ``canonical`` copies without a call per item."""
    for v in items:
        t = type(v)
        if t is int:
            if v.bit_length() > _MAX_INT_BITS:
                return False
        elif t not in _SAME:
            return False
    return True


def _canonical_container(value: Any, depth: int, path: set[int]) -> Any:
    d = depth + 1
    # NamedTuple: its data. The class is asked, not the value: a tuple subclass whose
    # __getattr__ makes up any attribute (a token type that grows a child per name) is none.
    fields = getattr(type(value), "_fields", None)
    if isinstance(value, tuple) and isinstance(fields, tuple):
        return {k: canonical(v, d, path) for k, v in zip(fields, value)}
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
    called = _callable_data(value, d, path)
    if called is not None:
        return called
    cls = type(value)
    plain = not isinstance(value, (type, types.ModuleType)) and not callable(value)
    default_repr = cls.__repr__ is object.__repr__  # type: ignore[comparison-overlap]
    data = _attribute_data(value, d, path) if plain and default_repr else None
    if data is not None:
        return data
    text = _safe_repr(value)
    generator = isinstance(value, types.GeneratorType)
    if text is not None and not _ADDRESS.search(text) and not generator:
        return {REPR_TAG: text}
    # a repr that says only where the object lives: its attributes, where it has some
    data = _attribute_data(value, d, path) if plain and not default_repr and not generator else None
    return data if data is not None else {UNREPRESENTABLE_TAG: qualname(cls)}


# Objects given their attributes' form in one value, past which the rest has no form: a graph
# of objects that share parts (a node reachable along many paths) would else be written once
# per path, without end. About 1 MB of JSON for a parser's nodes (~150 characters each), half
# of what a reply may hold (MAX_REPLY_CHARS), ~0.1 s to write: the diff runs a function's
# pool in 2 s, and the first nodes of two trees are compared where the rest has no form.
_MAX_OBJECTS = 5_000


class _Walk(set):  # type: ignore[type-arg]
    """The ids of the containers and objects the walk is inside, and the objects it may still
    write by their attributes (``_MAX_OBJECTS``)."""

    __slots__ = ("objects",)  # unset until the first object: no __init__ on every value
    objects: int


def _attribute_data(value: Any, d: int, path: set[int]) -> dict[str, Any] | None:
    """An object with no faithful repr (the default one, or one that holds a memory address:
    a parsed tree's node, ``<Identifier 'a' at 0x7f...>``) by its class and its public
    attributes, its ``__dict__``'s and its slots': two trees of another shape or with nodes
    of another class differ, where their reprs said only "no faithful form" (#32). An
    attribute that refers to an object the walk is inside (a node's ``parent``) is left out:
    the value read from the top holds it already, and the cycle would make the whole value
    formless. None: the object keeps no data an attribute reads (``__slots__ = ()``, a C
    object), or the walk has written ``_MAX_OBJECTS`` objects already."""
    own = getattr(value, "__dict__", None)
    names = _attribute_names(value, own if isinstance(own, dict) else None)
    if names is None:
        return None
    if isinstance(path, _Walk):
        left = getattr(path, "objects", _MAX_OBJECTS)
        if left <= 0:
            return None
        path.objects = left - 1
    out: dict[str, Any] = {OBJECT_TAG: qualname(type(value))}
    for name in names:
        try:
            v = own[name] if isinstance(own, dict) and name in own else getattr(value, name)
        except Exception:  # a slot never assigned, a descriptor that raises
            continue
        if id(v) in path:
            continue
        out[name] = canonical(v, d, path)
    return out


def _attribute_names(value: Any, own: dict[str, Any] | None) -> list[str] | None:
    """The public attributes that hold ``value``'s data: its ``__dict__``'s (``own``), then
    its classes' slots; None when it has neither."""
    names = [k for k in own if not str(k).startswith("_")] if own is not None else []
    slots = _slot_names(type(value))
    names += [n for n in slots if n not in names] if names else slots
    return names if own is not None or names else None


_SLOTS: dict[type, list[str]] = {}


def _slot_names(cls: type) -> list[str]:
    """The public slots of ``cls`` and its bases (base classes first), once per class."""
    found = _SLOTS.get(cls)
    if found is None:
        found = []
        for klass in reversed(cls.__mro__):
            slots = klass.__dict__.get("__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                if isinstance(name, str) and not name.startswith("_") and name not in found:
                    found.append(name)
        if len(_SLOTS) < 10_000:
            _SLOTS[cls] = found
    return found


def _callable_data(value: Any, d: int, path: set[int]) -> Any:
    """A returned callable's data, where it has some: a function by its importable name, a
    functools.partial by its function, arguments and keywords (a factory that returns
    ``partial(try_int, map=True)`` instead of ``partial(fast_int)`` changed what it returns,
    and their reprs differ only past a memory address, #18). None: no data form (a lambda,
    a closure), which the caller reports as such."""
    if isinstance(value, _loaded("functools", "partial")):
        return {
            OBJECT_TAG: "functools.partial",
            "func": canonical(value.func, d, path),
            "args": [canonical(a, d, path) for a in value.args],
            "keywords": _canonical_dict(dict(value.keywords), d, path),
        }
    if isinstance(value, types.FunctionType):  # a builtin's repr has no address: kept
        name = getattr(value, "__qualname__", "") or ""
        module = getattr(value, "__module__", "") or ""
        if name and "<" not in name:  # not a lambda, not a function made inside another
            return {OBJECT_TAG: "function", "name": f"{module}.{name}" if module else name}
    return None


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


def qualname(cls: type) -> str:
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
    if t is dict:  # one pass: the keys are checked as the values are encoded
        out = {}
        for k, v in value.items():
            if type(k) is not str or k[:1] == "\u0000":
                break
            out[k] = v if type(v) in _PLAIN else _encode(v)
        else:
            return out
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
    from .policy import import_object  # only explorer calls: the parent never realizes

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


# One encoder and one decoder for the process: json.dumps and json.loads given options build
# a new one on every call, a third of the cost of a small reply (two lines per case).
_ENCODER = json.JSONEncoder(separators=(",", ":"), default=str)
_DECODER = json.JSONDecoder(object_hook=_decode_hook)


def _one_shot() -> Callable[[Any, int], Any] | None:
    """The C encoder that ``_ENCODER.encode`` builds anew on every call, built once: a third of
    a small reply's encoding (~3 us of ~9). Without a table of the containers being encoded
    (which a shared encoder would share between threads): ``_encode`` has rebuilt every
    container of what it is given, so a cycle failed there already."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # an interpreter without the C accelerator
        return None
    ascii_ = json.encoder.encode_basestring_ascii
    return make(None, str, ascii_, None, ":", ",", False, False, True)  # type: ignore[no-any-return]


_C_ENCODE = _one_shot()


def dumps(msg: Any) -> str:
    value = _encode(msg)
    if _C_ENCODE is None:
        return _ENCODER.encode(value)
    return "".join(_C_ENCODE(value, 0))


_PLAIN_DECODER = json.JSONDecoder()
# What decode() calls, without its two matches of whitespace around the value.
_SCAN = _PLAIN_DECODER.scan_once  # type: ignore[attr-defined]


def loads(line: str) -> Any:
    if type(line) is not str:  # bytes: json.loads detects their encoding
        return json.loads(line, object_hook=_decode_hook)
    if "\\u0000" not in line:
        # Every tag starts with NUL, which JSON text can only write as \u0000: without it no
        # mapping is tagged, and the decoder's call back per mapping would return each as it
        # is (two lines per case cross the transport: #20).
        try:
            value, end = _SCAN(line, 0)
        except StopIteration:  # not a value where it starts: decode() words why
            return _PLAIN_DECODER.decode(line)
        # A reply line: one value and its newline (#36: ~0.7 us of each case). Anything else
        # after the value (or whitespace before it) is decode()'s to accept or refuse.
        if end == len(line) or (end == len(line) - 1 and line[end] == "\n"):
            return value
        return _PLAIN_DECODER.decode(line)
    return _DECODER.decode(line)


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
