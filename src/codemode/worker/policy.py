"""Importing what a spec names: targets, fixtures and serializers, under the policy of
which callables a spec may name (#11). Stdlib only; runs inside the worker."""

from __future__ import annotations

import importlib
import os
import sys
import types

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~4 ms of every start
if TYPE_CHECKING:
    from typing import Any


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


# path -> whether it is the project's: asked for every module at each leak snapshot and for
# each function's import; realpath's lstat calls were ~0.4 ms of each function block (#20).
_IN_PROJECT: dict[str, bool] = {}


def in_project(path: str | None) -> bool:
    if not path or not _Policy.root:
        return False
    known = _IN_PROJECT.get(path)
    if known is not None:
        return known
    real = os.path.realpath(path)
    parts = real.split(os.sep)
    mine = (
        _under(real, _Policy.root)
        and not any(_under(real, o) for o in _Policy.outside)
        and "site-packages" not in parts
        and "dist-packages" not in parts
    )
    _IN_PROJECT[path] = mine
    return mine


def _allowlisted(name: str) -> bool:
    known = _ALLOWLISTED.get(name)
    if known is None:
        known = _ALLOWLISTED[name] = any(
            name == a or name.startswith(a + ".") for a in _Policy.allowed
        )
    return known


_ALLOWLISTED: dict[str, bool] = {}


def module_allowed(name: str) -> bool | None:
    """True: a project or allowlisted module; False: anything else; None: not found at all."""
    if _allowlisted(name):
        return True
    module = sys.modules.get(name)
    if module is not None:
        where = getattr(module, "__file__", None) or next(
            iter(getattr(module, "__path__", [])), None
        )
        return in_project(where)
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
    return in_project(where)


def refused(path: str, what: str) -> TargetError:
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
            raise refused(path, f"the builtin {name}()")
        return
    if not isinstance(home, str) or not module_allowed(home):
        raise refused(path, f"module {home!r}")


def import_path(path: str) -> tuple[Any, Any, Any]:
    """Resolve ``pkg.mod.Class.method`` to (object, owner, module) by the longest importable prefix."""
    parts = path.split(".")
    last_error: BaseException | None = None
    for i in range(len(parts) - 1, 0, -1):
        mod_name = ".".join(parts[:i])
        if (no_package := _no_package(mod_name)) is not None:  # `pkg.mod.func` is no module
            last_error = no_package
            continue
        if module_allowed(mod_name) is False:
            if i == 1 or module_allowed(parts[0]) is False:
                raise refused(path, f"module {parts[0]!r}")
            continue  # a prefix that is no module (Class.method): try a shorter one
        failed = _failed_before(mod_name)
        if failed is not None:
            raise TargetError("import", failed)
        if mod_name not in sys.modules:
            # Code that reads sys.argv at import time sees what `python -m mod_name` gives,
            # never the worker's own --root/--path flags.
            sys.argv = [_module_file(mod_name)]
        try:
            module = importlib.import_module(mod_name)
        except ModuleNotFoundError as exc:
            # exactly "no such module": PackageNotFoundError (a subclass) names a distribution
            if type(exc) is ModuleNotFoundError and _names_prefix(exc, mod_name):
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
            if isinstance(obj, types.ModuleType) and not module_allowed(obj.__name__):
                raise refused(path, f"module {obj.__name__!r}")
        _check_resolved(path, obj, owner)
        return obj, owner, module
    builtin = _builtin(parts)
    if builtin is not None:
        _check_resolved(path, builtin[0], builtin[1])
        return builtin
    msg = exc_line(last_error) if last_error else f"cannot import {path!r}"
    raise TargetError("import", msg)


def _no_package(mod_name: str) -> ModuleNotFoundError | None:
    """The error importing ``mod_name`` must raise, when its parent is imported and is a
    plain module (no ``__path__``): a plain module has no submodules. Said without asking the
    import system, whose search for ``pkg.mod.func`` (the top package's spec, the argv file,
    the failed import) was most of the worker's and each child's time per block (#20)."""
    parent, dot, _ = mod_name.rpartition(".")
    if not dot or mod_name in sys.modules:
        return None
    module = sys.modules.get(parent)
    if module is None or hasattr(module, "__path__"):
        return None
    return ModuleNotFoundError(
        f"No module named {mod_name!r}; {parent!r} is not a package", name=mod_name
    )


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


def _names_prefix(exc: ModuleNotFoundError, mod_name: str) -> bool:
    return bool(exc.name) and (mod_name == exc.name or mod_name.startswith(f"{exc.name}."))


# Modules whose import failed in this worker -> the one message every function under them
# gets. Python keeps a package's submodules that imported before its __init__ failed in
# sys.modules, so without this the first function of semantic_version errored and the later
# ones passed: `check --all` and `check FILE` disagreed on unchanged code (#23).
_FAILED: dict[str, str] = {}


def _failed_before(mod_name: str) -> str | None:
    parts = mod_name.split(".")
    for k in range(1, len(parts) + 1):
        found = _FAILED.get(".".join(parts[:k]))
        if found is not None:
            return found
    return None


def _import_failed(module: str, exc: BaseException) -> str:
    """One message for a module that fails to import, named after the package whose import
    failed (the outermost one Python took back out of sys.modules), remembered for the rest."""
    import traceback  # only when an import failed

    parts = module.split(".")
    failed = next(
        (
            ".".join(parts[:k])
            for k in range(1, len(parts))
            if ".".join(parts[:k]) not in sys.modules
        ),
        module,
    )
    tb = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in tb if not f.filename.startswith("<") and f.filename != __file__]
    user = [f for f in frames if in_project(f.filename)] or frames
    where = f" at {os.path.relpath(user[-1].filename)}:{user[-1].lineno}" if user else ""
    if isinstance(exc, ModuleNotFoundError):  # a dependency, or the project's own metadata
        hint = _install_hint(sys.executable)
    else:
        hint = "the module fails when imported: fix it (or what it needs at import time)"
    message = f"cannot import {failed}: {exc_line(exc)}{where}; {hint}"
    _FAILED[failed] = message
    return message


def _install_hint(exe: str) -> str:
    """The fix for a missing module, naming the interpreter that ran the code (#35): install
    into it when it is the repository's virtualenv; point codemode at that virtualenv when one
    exists and another interpreter was chosen; else install, or make one."""
    for name in (".venv", "venv"):
        venv = os.path.join(_Policy.root, name)
        if not _Policy.root or not os.path.isdir(venv):
            continue
        if _under(os.path.realpath(sys.prefix), os.path.realpath(venv)):
            return (
                f"the project's interpreter {exe} (the repository's {name}/) lacks it: install "
                f"the project and its dependencies there (`{exe} -m pip install -e .`)"
            )
        return (
            f"codemode ran {exe}, not the repository's {name}/ (--python, `python` under "
            "[tool.codemode], CODEMODE_PYTHON or an activated virtualenv chose it): point that "
            f"at {name}/bin/python, or install the project and its dependencies into {exe}"
        )
    return (
        f"install the project and its dependencies into the interpreter that ran it, {exe} "
        f"(`{exe} -m pip install -e .`), or make a .venv/ in the repository with them "
        "(`python -m venv .venv && .venv/bin/pip install -e .`), which codemode prefers"
    )


def exc_line(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} ({exc.filename}, line {exc.lineno})"
    return f"{type(exc).__name__}: {exc}"


def import_object(path: str) -> Any:
    obj, owner, _ = import_path(path)
    if isinstance(obj, (staticmethod, classmethod)):
        return obj.__get__(None, owner)
    return obj


def configure(root: str, allow: list[str]) -> None:
    """The project's root and the extra allowed modules, set once as the worker starts."""
    _Policy.root = os.path.realpath(root)
    _Policy.allowed = ALLOWED_MODULES + tuple(allow)
    _IN_PROJECT.clear()
    _ALLOWLISTED.clear()
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    # a virtualenv inside the repository is the interpreter's, not the project's
    _Policy.outside = tuple(p for p in prefixes if p != _Policy.root and _under(p, _Policy.root))
