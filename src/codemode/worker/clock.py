"""The moved clock, and the watch that notes when the project's code reads the clock.
Stdlib only; runs inside the worker."""

from __future__ import annotations

import sys
import time
import types
from collections.abc import Callable

from .policy import in_project

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~4 ms of every start
if TYPE_CHECKING:
    from typing import Any

_CLOCK_READS = frozenset(["now", "utcnow", "today", "time", "time_ns"])


class ShiftedClock:
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
        found = [m for m in mods if in_project(getattr(m, "__file__", None))]
        _PROJECT_MODULES = (len(mods), found)
    return _PROJECT_MODULES[1]


def _fake_datetime(real: Any) -> Any:
    class _Meta(type):
        def __instancecheck__(cls, obj: Any) -> bool:
            return isinstance(obj, real)

        def __subclasscheck__(cls, sub: Any) -> bool:
            return issubclass(sub, real)

    class FakeDatetime(real, metaclass=_Meta):  # type: ignore[misc]
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


def clock_watch(seen: list[str]) -> Callable[..., Any]:
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
        if home and in_project(frame.f_code.co_filename):
            seen.append(f"{getattr(owner, '__name__', '?')}.{arg.__name__}()")

    return profile
