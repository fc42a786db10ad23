"""pydantic_monty's compiled module, without the rest of the package an assertion never uses.

``import pydantic_monty`` runs the package's ``__init__``, which also imports its OS-access
layer (which imports asyncio), its class bridge and typing_extensions: on pydantic-monty 1.4
and Python 3.11 it took 111 ms of CPU, against 16 ms for the compiled module alone, in every
process that checks an assertion (each lane of ``check --jobs``). An assertion gets no OS and
no classes: ``Monty`` and its errors are all it needs, and they are the compiled module's.

The compiled module's init imports the package (for its stdlib-only ``_binary``). So the
package goes into ``sys.modules`` first as what Python's lazy imports make (PEP 562): the
package object itself, with its path and spec, whose ``__init__`` runs the first time a name
it defines is asked for (``pydantic_monty.Monty``, ``from pydantic_monty import OSPolicy``,
its ``__all__``). It is the same object before and after: a thread that imported it meanwhile
holds the package it would have had. While the compiled module loads, the package is marked
as initializing under its import lock, as the import system marks a package whose
``__init__`` runs: another thread's import waits for it. Anything unexpected (a layout
another release changed, no such lock) falls back to the usual import.
"""

from __future__ import annotations

import sys
import types
from typing import Any

PACKAGE = "pydantic_monty"


def monty_native() -> Any:
    """The compiled module ``pydantic_monty._monty`` (loaded once per process)."""
    native = sys.modules.get(f"{PACKAGE}._monty")
    if native is not None:
        return native
    try:
        return _load()
    except Exception:  # the usual import below says what is wrong, if anything
        import pydantic_monty._monty as native

        return native


def _lock(name: str) -> Any:
    from importlib import _bootstrap

    return _bootstrap._ModuleLockManager(name)  # type: ignore[attr-defined]


def _load() -> Any:
    import importlib
    from importlib import util

    spec: Any = util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations or spec.loader is None:
        raise ImportError(f"{PACKAGE} is not a package")
    with _lock(PACKAGE):
        if PACKAGE in sys.modules:  # imported meanwhile, whole or as here
            return importlib.import_module(f"{PACKAGE}._monty")
        package = util.module_from_spec(spec)  # its __init__ is not run
        package.__class__ = _Deferred
        spec._initializing = True  # set before it is in sys.modules, as the import system does
        sys.modules[PACKAGE] = package
        try:
            return importlib.import_module(f"{PACKAGE}._monty")
        except BaseException:
            if sys.modules.get(PACKAGE) is package:
                del sys.modules[PACKAGE]
            raise
        finally:
            spec._initializing = False


class _Deferred(types.ModuleType):
    """The package before its ``__init__`` ran: a name it lacks runs it, once, then is read."""

    def __getattr__(self, name: str) -> Any:
        with _lock(PACKAGE):
            if type(self) is _Deferred and not self.__dict__.get("_codemode_completing"):
                self._codemode_completing = True  # its own __init__ reading a name it lacks
                try:
                    spec: Any = self.__spec__
                    spec.loader.exec_module(self)
                    module: Any = self
                    module.__class__ = types.ModuleType  # whole: no lookup comes here again
                finally:
                    del self._codemode_completing
        try:
            return self.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}") from None
