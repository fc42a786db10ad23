"""Did a function block leave state behind? (#20) Stdlib only: runs in the worker.

A forked child runs function blocks one after another for as long as none of them changes
what the next could see; the first block that does ends the child, and the next block gets a
fresh fork of the worker. So a verdict still never depends on what ran before it, and a
project whose functions leave everything as they found it pays one fork, not one per function
(5,000 forks cost ~35 s of a 25,000-case run) or per module (a child imports the next module
as the worker did, and its snapshot is brought up to date: ``refresh``).

What is compared before and after each block, cheaply (identities, not values: a value that
changed in place shows in the container that holds it, which is watched too):

- every module's globals: in the project's modules which object each name is bound to, and
  the mutable objects they reach (dicts, lists, sets, instances' attributes, class
  attributes, closure cells and mutable defaults of functions); in the others the names and
  their values, compared as lists are (an identical object is equal at once, C speed: a
  name rebound to an equal value there is no change, a patched function is);
- the process: environment, working directory, ``sys.path`` and ``sys.modules``, the
  ``decimal`` context, the locale, ``random``'s state, warnings filters, loggers' levels and
  handlers, signal handlers, recursion limit, trace and profile functions, threads and child
  processes.

The snapshot is taken in the worker before it forks a child, and brought up to date there
(and in a child that goes on to a new module) after each import (the new modules, and what
the watched containers hold now), so every
child inherits it instead of walking every module again; the comparison after a block runs
over one chain of every watched mapping's keys and values (identity, at C speed), not a
Python call per object.

An object of a type whose state cannot be read this way (a C extension's object, an
``lru_cache``'s cache) makes the snapshot *opaque*: such a child runs one block only, as every
child did before. What is not seen: state held only inside C code or by a third-party
library's objects deeper than its module's globals. ``CODEMODE_WORKER_ISOLATION=strict``
forks afresh for every block.
"""

from __future__ import annotations

import itertools
import operator
import os
import sys
import types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_WATCHED = 20_000  # mutable objects per snapshot; past this a child runs one block only

_IMMUTABLE = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    range,
    type(Ellipsis),
    type(NotImplemented),
    types.CodeType,
    types.BuiltinFunctionType,
    types.ModuleType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
)
# Value types of the stdlib that never change in place (matched by name: importing their
# modules here would cost every worker start).
_IMMUTABLE_NAMES = {
    ("datetime", "date"),
    ("datetime", "datetime"),
    ("datetime", "time"),
    ("datetime", "timedelta"),
    ("datetime", "timezone"),
    ("decimal", "Decimal"),
    ("fractions", "Fraction"),
    ("uuid", "UUID"),
    ("re", "Pattern"),
    ("pathlib", "PosixPath"),
    ("pathlib", "WindowsPath"),
    ("pathlib", "PurePosixPath"),
    ("pathlib", "PureWindowsPath"),
    ("typing", "TypeVar"),
    # state of its own that no verdict reads: locks and streams
    ("_thread", "lock"),
    ("_thread", "RLock"),
    ("_io", "TextIOWrapper"),
    ("_io", "BufferedWriter"),
    ("_io", "BufferedReader"),
}


# The worker's own modules: their caches fill as blocks run, which no function can see.
# ``sys`` itself: the runner sets sys.argv for each block; what of it counts is in _process.
_OWN = ("__main__", "_codemode_worker", "codemode.worker", "sys")


# A module's records of its own import, set by the import system: the names stay watched (a
# block that rebinds them changes the module), the attributes of the objects they hold are not
# (a third of the watched values of a project of small modules, compared after every block).
_IMPORT_RECORDS = ("__spec__", "__loader__")


class Opaque(Exception):
    """A watched object whose state this module cannot read."""


def _immutable(obj: Any) -> bool:
    t = type(obj)
    return t in _IMMUTABLE or (t.__module__, t.__qualname__) in _IMMUTABLE_NAMES


def _shallow(obj: Any) -> Any:
    """The identities an object holds directly: what changes when it is changed in place."""
    if isinstance(obj, dict):
        return (tuple(obj), tuple(map(id, obj.values())))
    if isinstance(obj, (list, tuple)):
        return tuple(map(id, obj))
    if isinstance(obj, (set, frozenset)):
        return frozenset(map(id, obj))
    if isinstance(obj, bytearray):
        return bytes(obj)
    if isinstance(obj, types.CellType):
        try:
            return id(obj.cell_contents)
        except ValueError:
            return None
    if isinstance(obj, types.MappingProxyType):  # a class's attributes
        return (tuple(obj), tuple(map(id, obj.values())))
    raise Opaque(type(obj).__qualname__)


def _children(obj: Any, mine: Callable[[Any], bool]) -> list[Any]:
    """The objects ``obj`` holds whose state counts."""
    if isinstance(obj, dict):
        return list(obj.values())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return list(obj)
    if hasattr(type(obj), "cache_info"):  # an lru_cache: its cache is out of sight
        raise Opaque(type(obj).__qualname__)
    if isinstance(obj, (types.FunctionType, types.MethodType)):
        fn: Any = getattr(obj, "__func__", obj)
        held = (fn.__defaults__, fn.__kwdefaults__, *(fn.__closure__ or ()))
        return [h for h in held if h]
    if isinstance(obj, types.CellType):
        try:
            return [obj.cell_contents]
        except ValueError:
            return []
    if isinstance(obj, (staticmethod, classmethod)):
        return [obj.__func__]
    if isinstance(obj, property):
        return [obj.fget, obj.fset, obj.fdel]
    if isinstance(obj, type):
        return [obj.__dict__] if mine(obj) else []
    if isinstance(obj, types.MappingProxyType):
        return list(obj.values())
    d = getattr(obj, "__dict__", None)
    slots = [getattr(obj, n, None) for n in _slot_names(obj)]
    if d is None and not slots:
        raise Opaque(type(obj).__qualname__)
    return ([d] if d is not None else []) + slots


def _slot_names(obj: Any) -> list[str]:
    return [s for c in type(obj).__mro__ for s in c.__dict__.get("__slots__", ())]


class _SlotView:
    """An instance with __slots__: its slot values, watched like a container's items."""

    def __init__(self, obj: Any) -> None:
        self.obj, self.names = obj, _slot_names(obj)

    def state(self) -> Any:
        return tuple(id(getattr(self.obj, n, None)) for n in self.names)


def _environ() -> Any:
    """The environment as a dict copy: os.environ's own bytes mapping where there is one
    (decoding every item through the Mapping API cost ~0.4 ms per block)."""
    return dict(getattr(os.environ, "_data", os.environ))


def _process() -> Any:
    """The process-wide state a function can change and a later one could see."""
    mods = sys.modules
    state: list[Any] = [
        _environ(),
        os.getcwd(),
        tuple(sys.path),
        tuple(map(id, sys.meta_path)),
        id(sys.excepthook),
        id(sys.displayhook),
        sys.getrecursionlimit(),
        sys.gettrace(),
        sys.getprofile(),
        id(sys.stdout),
        id(sys.stderr),
        id(sys.stdin),
    ]
    threading = mods.get("threading")
    state.append(threading.active_count() if threading else 1)
    decimal = mods.get("decimal")
    if decimal is not None:
        c = decimal.getcontext()
        state.append((c.prec, c.rounding, c.Emin, c.Emax, c.capitals, c.clamp, repr(c.traps)))
    locale = mods.get("locale")
    if locale is not None:
        state.append(locale.setlocale(locale.LC_ALL))
    rand = mods.get("random")
    if rand is not None:
        state.append(rand.getstate())
    warnings = mods.get("warnings")
    if warnings is not None:
        state.append(tuple(map(id, warnings.filters)))
    logging = mods.get("logging")
    if logging is not None:
        loggers = [logging.root, *logging.Logger.manager.loggerDict.values()]
        state.append(
            tuple(
                (lg.level, tuple(map(id, lg.handlers)), lg.disabled)
                for lg in loggers
                if hasattr(lg, "handlers")
            )
        )
    signal = mods.get("_signal") or mods.get("signal")  # _signal's: no Enum per answer (~25 us)
    if signal is not None:
        state.append((signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)))
    return state


def _has_children() -> bool:
    """A process the block started is still around (or exited unreaped): it may still write."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    return True


_MAPPINGS = (dict, types.MappingProxyType)
_CONTAINERS = (dict, list, set, bytearray, types.CellType, types.MappingProxyType)
_chain = itertools.chain.from_iterable
# What ``_children`` reads other than an instance's ``__dict__`` and slots.
_HOLDERS = (
    tuple,
    frozenset,
    type,
    types.FunctionType,
    types.MethodType,
    staticmethod,
    classmethod,
    property,
)


class _Watch:
    """The mutable objects reachable from the project's module dicts (not through other
    modules); an object of a class from outside the project is watched one level deep (its
    attributes). Grown in place: ``walk`` adds what is not seen yet, so a snapshot brought up
    to date after an import walks the new module and what changed, not everything again."""

    def __init__(self, mine: Callable[[Any], bool]) -> None:
        self.mine = mine
        # id -> the object itself: held, so no id seen here is reused by a new object
        self.seen: dict[int, Any] = {}
        self.objects: list[Any] = []
        self.kids: list[tuple[Any, bool]] = []  # containers whose children were walked
        self.attrs: set[int] = set()  # the dicts watched as an object's ``__dict__``

    def walk(self, todo: list[tuple[Any, bool]]) -> None:
        seen, objects, mine, function = self.seen, self.objects, self.mine, types.FunctionType
        while todo:
            obj, deep = todo.pop()
            if obj is None or id(obj) in seen or _immutable(obj):
                continue
            seen[id(obj)] = obj
            if type(obj) is function and not (
                obj.__defaults__ or obj.__kwdefaults__ or obj.__closure__
            ):
                continue  # most of a module's values: nothing in them to watch
            if isinstance(obj, _CONTAINERS):
                objects.append(obj)
                if len(objects) > MAX_WATCHED:
                    raise Opaque(f"more than {MAX_WATCHED} mutable objects")
            elif getattr(obj, "__dict__", None) is None and _slot_names(obj):
                objects.append(_SlotView(obj))
            if not deep:
                continue
            inner = (
                isinstance(obj, (dict, list, tuple, set, frozenset, types.CellType, type))
                or callable(obj)
                or mine(type(obj))
            )
            if isinstance(obj, _CONTAINERS):
                self.kids.append((obj, inner))
            elif not isinstance(obj, _HOLDERS):  # an instance: its attributes' dict
                self.attrs.add(id(getattr(obj, "__dict__", None)))
            todo.extend((c, inner) for c in _children(obj, mine))

    def rewalk(self, still: set[int]) -> None:
        """Walk what the watched containers hold now that was not there before; ``still``: the
        ids of mappings known unchanged since the last walk (their version tags), skipped."""
        todo: list[tuple[Any, bool]] = []
        for obj, inner in list(self.kids):
            if id(obj) not in still:
                todo.extend((c, inner) for c in _children(obj, self.mine))
        self.walk(todo)


class _State:
    """The watched objects' state, compared by identity at C speed: every mapping's keys and
    values and every list's items in one chain each (a Python call per object cost ~1 ms a
    block in a 100-module project); sets, cells and slots one by one; the other modules'
    globals as lists of names and of values.

    With ``tags`` (dictversions.py, where the interpreter keeps them), the dicts are first
    compared by their version tags, one compare for all: while none moved, only what has no
    tag is compared item by item (lists, sets, cells, slots; on 3.13 the objects' attribute
    dicts). When one moved, everything is compared as above, and the tags read again if
    nothing counts as changed (a name rebound to an equal value in another module)."""

    def __init__(
        self, objects: list[Any], others: list[dict[str, Any]], attrs: set[int], tags: bool
    ) -> None:
        self.maps = [o for o in objects if isinstance(o, _MAPPINGS)]
        self.lists = [o for o in objects if type(o) is list]
        self.rest = [o for o in objects if not isinstance(o, (*_MAPPINGS, list))]
        self.others = others
        self.names = [list(d) for d in others]
        self.values_of_others = [list(d.values()) for d in others]
        self.all_maps = _Maps(self.maps)
        self.list_sizes = list(map(len, self.lists))
        self.items = list(_chain(self.lists))
        self.other = self._other()
        self.tags: Any = None
        self.loose = self.all_maps
        self.by_tag: list[Any] = []  # the maps whose tags lead ``tags``, in its order
        if tags:
            from . import dictversions

            attrs_tagged = dictversions.instances_tagged()
            dicts: list[dict[Any, Any]] = []
            loose: list[Any] = []
            for m in self.maps:
                d = _dict_of(m)
                if d is not None and (attrs_tagged or id(m) not in attrs):
                    self.by_tag.append(m)
                    dicts.append(d)
                else:
                    loose.append(m)
            self.tags = dictversions.watch([*dicts, *others])
            if self.tags is not None:
                self.loose = _Maps(loose)
        self.tagged = self.tags.read() if self.tags is not None else b""

    def still(self) -> set[int]:
        """The ids of the maps whose tags have not moved since this state was taken: what the
        next refresh need not walk again (~3,000 values in a 100-module project, at each new
        module)."""
        if self.tags is None:
            return set()
        now, then = self.tags.read(), self.tagged
        return {
            id(m)
            for i, m in enumerate(self.by_tag)
            if now[8 * i : 8 * i + 8] == then[8 * i : 8 * i + 8]
        }

    def _other(self) -> list[Any]:
        return [w.state() if isinstance(w, _SlotView) else _shallow(w) for w in self.rest]

    def same(self) -> bool:
        if self.tags is not None and self.tags.read() == self.tagged:
            maps = self.loose.same()
        else:
            maps = (
                self.all_maps.same()
                and [list(d) for d in self.others] == self.names
                and [list(d.values()) for d in self.others] == self.values_of_others
            )
            if maps and self.tags is not None:
                self.tagged = self.tags.read()
        return (
            maps
            and list(map(len, self.lists)) == self.list_sizes
            and all(map(operator.is_, self.items, _chain(self.lists)))
            and self._other() == self.other
        )


class _Maps:
    """Mappings' keys and values as they stand, compared with what they hold later: keys by
    equality (names), values by identity."""

    def __init__(self, maps: list[Any]) -> None:
        self.maps = maps
        self.sizes = list(map(len, maps))
        self.keys = list(_chain(maps))
        self.values = list(_chain(map(_values, maps)))

    def same(self) -> bool:
        maps = self.maps
        return (
            list(map(len, maps)) == self.sizes
            and list(_chain(maps)) == self.keys
            and all(map(operator.is_, self.values, _chain(map(_values, maps))))
        )


def _dict_of(mapping: Any) -> dict[Any, Any] | None:
    """The plain dict whose tag says whether ``mapping`` changed: itself, or the one a class's
    attribute proxy holds. None for a dict subclass: an ``OrderedDict``'s ``move_to_end``
    reorders it without touching the table the tag watches."""
    if type(mapping) is dict:
        return mapping
    if type(mapping) is not types.MappingProxyType:
        return None
    import gc

    held = gc.get_referents(mapping)
    return held[0] if len(held) == 1 and type(held[0]) is dict else None


def _values(mapping: Any) -> Any:
    return mapping.values()


class Snapshot:
    """What a block could leave behind, as it stood before the block.

    Taken in the worker, before it forks a child, and brought up to date there after each
    import (``refresh``): the child inherits it, so a 100-module project walks its modules
    once, not once per child (~36 ms a child at the hundredth module)."""

    def __init__(self, in_project: Callable[[str | None], bool], tags: bool = False) -> None:
        self.in_project = in_project
        self.tags = tags  # compare dicts by their version tags first (_State)

        def mine(obj: Any) -> bool:
            mod = sys.modules.get(getattr(obj, "__module__", "") or "")
            return mod is not None and in_project(getattr(mod, "__file__", None))

        self.watch = _Watch(mine)
        self.names: set[str] = set()
        self.others: list[dict[str, Any]] = []
        self._add(list(sys.modules))
        self._settle()

    def _add(self, names: list[str]) -> None:
        """Watch the modules of ``names`` (new in sys.modules)."""
        roots: list[tuple[Any, bool]] = []
        for name in names:
            m = sys.modules.get(name)
            if not isinstance(m, types.ModuleType) or name.startswith(_OWN):
                continue
            if self.in_project(getattr(m, "__file__", None)):
                roots.append((vars(m), True))
                for held in _IMPORT_RECORDS:  # the import system's records: not walked
                    value = vars(m).get(held)
                    self.watch.seen.setdefault(id(value), value)
            else:
                self.others.append(vars(m))
        self.watch.walk(roots)

    def _settle(self) -> None:
        self.names = set(sys.modules)
        self.names_in_order = list(sys.modules)
        self.loaded = list(sys.modules.values())
        self.state = _State(self.watch.objects, self.others, self.watch.attrs, self.tags)
        self.process = _process()

    def refresh(self) -> bool:
        """Up to date after imports in this process (the worker's, before a fork): the new
        modules are walked, and what the watched containers hold now (an import may have
        added to another module's table). False when a module left sys.modules: take anew."""
        if not self.names <= sys.modules.keys():
            return False
        new = [n for n in sys.modules if n not in self.names]
        if [sys.modules[n] for n in self.names_in_order] != self.loaded:
            return False  # a module object replaced under its own name
        self.watch.rewalk(self.state.still())
        self._add(new)
        self._settle()
        return True

    def forked(self) -> None:
        """In the child, before its first block: the process state as the fork left it.
        ``random`` seeds itself again in every child (``os.register_at_fork``): compared with
        the worker's, every child's first block looked like a change, and a project that imports
        ``random`` ran one block a child. The dicts keep the worker's baseline: one an at-fork
        handler changed is compared item by item, and counts as changed (its new contents were
        never walked, so they could not be watched)."""
        self.process = _process()

    def unchanged(self) -> bool:
        """True when nothing watched changed and the block left no thread or process.

        A module the block imported from outside the project (``json`` in a function's
        body, the runner's own lazy imports) is no change: it is watched from then on. One
        of the project's is: its import ran the project's code.
        """
        if _has_children():
            return False
        try:
            modules = sys.modules
            new: list[str] = []
            if len(modules) != len(self.names) or modules.keys() != self.names:
                if not self.names <= modules.keys():
                    return False
                new = [n for n in modules if n not in self.names]
                if any(self.in_project(getattr(modules[n], "__file__", None)) for n in new):
                    return False
            elif list(modules.values()) != self.loaded:
                return False  # a module object replaced under its own name
            if not self.state.same() or _process() != self.process:
                return False
            if new:
                self._add(new)
                self._settle()
            return True
        except Exception:  # a watched object broken by the block: count it as a change
            return False


def snapshot(
    in_project: Callable[[str | None], bool], last: Snapshot | None = None, tags: bool = False
) -> Snapshot | None:
    """A snapshot (``last`` brought up to date, where it can be), or None when the state
    cannot be watched (then a child runs one block). ``tags``: compare dicts by their version
    tags first (worth its ~3 ms of ctypes and self-test once a worker runs many blocks)."""
    if os.environ.get("CODEMODE_WORKER_ISOLATION") == "strict":
        return None
    try:
        if last is not None:
            last.tags = tags
            if last.refresh():
                return last
        return Snapshot(in_project, tags)
    except Exception:  # Opaque, RecursionError, or an object whose attributes raise when read
        return None
