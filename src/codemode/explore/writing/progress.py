"""The lines a regen run shows while it works: one per function, an estimate of the time left,
and a summary as each module is done (#35).

A bootstrap of a few hundred functions takes minutes (about 25 on a 247-function library and
two busy cores), so each line says how long is left, estimated from the functions done so far:

    [6/247] pkg.mod.func: 4 case(s) by offline; ... · ~4 min left

The estimate is the time per function explored so far times the functions left, counted as
they finish (``arrived``), not as they are shown: under ``--jobs`` a lane's functions are shown
in a burst once the functions before them are, and the estimate would swing with the bursts.
A function whose spec is up to date costs nothing and does not count: a resumed run, which
first passes over the ones it did before, would otherwise promise to end in seconds. A long message that repeats one shown
before (the same import error for every function of a module) is not printed again in full:
the line names its cause and the line that showed it whole, ``same as [5/247]: cannot import
pkg.mod (ModuleNotFoundError)``. When the last function of a
module is shown, a line sums the module up: functions, cases, and the ones left without cases
by cause. Lines come in the targets' order, whichever function finishes first (regen.py).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from codemode.explore.writing.plan import Done
from codemode.explore.writing.summary import cause_of
from codemode.report.call import short_name

Clock = Callable[[], float]
SHORT = 80  # a message this long or shorter is printed again as it is: it says enough


def time_left(seconds: float) -> str:
    """``~40 s left``, ``~4 min left``, ``~1 h 20 min left``: rounded as a person would say it."""
    if seconds < 60:
        return f"~{max(1, round(seconds))} s left"
    minutes = round(seconds / 60)
    if minutes < 120:
        return f"~{minutes} min left"
    return f"~{minutes // 60} h {minutes % 60} min left"


def module_of(function_id: str) -> str:
    """``pkg.mod.Class.method`` -> ``pkg.mod`` (class names, capitalized by convention, go
    with the method: ``report.call.short_name``)."""
    shown = short_name(function_id)
    return function_id[: -len(shown) - 1] if len(shown) < len(function_id) else function_id


class Tracker:
    """What to print for each function done, in order: its line and, at a module's end, the
    module's summary. ``modules`` maps a function id to its module where a bootstrap's scan
    knows it; without it (``--function``, a change) no module summary is shown."""

    def __init__(
        self,
        order: Sequence[str],
        modules: Mapping[str, str] | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        self.total = len(order)
        self.clock = clock
        self.started = clock()
        self.shown: dict[str, str] = {}  # a message -> the "[n/total]" that showed it whole
        known = modules or {}
        self.module = {fid: known.get(fid) or module_of(fid) for fid in order}
        self.last_of: dict[str, int] = {}  # a module -> the position of its last function
        for i, fid in enumerate(order, start=1):
            self.last_of[self.module[fid]] = i
        # A bootstrap's (the scan names the modules); one module's summary is the run's.
        self.per_module = modules is not None and len(self.last_of) > 1
        self.results: dict[str, list[Done]] = {}
        self.finished = 0  # functions done, shown or not yet
        self.explored = 0  # of those, the ones that cost time: not up to date, not hand-written

    def lines(self, n: int, done: Done) -> list[str]:
        """The lines for ``done``, the ``n``-th function shown (from 1)."""
        mark = f"[{n}/{self.total}]"
        first = self.shown.setdefault(done.message, mark)
        said = done.message
        if first != mark and len(said) > SHORT:
            said = f"same as {first}: {cause_of(said)}"
        out = [f"{mark} {done.id}: {said}{self._when(n)}"]
        module = self.module.get(done.id, module_of(done.id))
        self.results.setdefault(module, []).append(done)
        if self.per_module and self.last_of.get(module) == n:
            out.append(module_summary(module, self.results[module]))
        return out

    def arrived(self, done: Done) -> None:
        """``done`` finished (it is shown once the functions before it are)."""
        self.finished += 1
        if not (done.status == "ok" and done.update is None):
            self.explored += 1

    def _when(self, n: int) -> str:
        spent = self.clock() - self.started
        if n >= self.total:
            return f" · done in {_duration(spent)}"
        if not self.explored:  # only up-to-date functions so far: nothing to go by yet
            return ""
        left = max(self.total - max(self.finished, n), 1)
        return f" · {time_left(spent / self.explored * left)}"


def _duration(seconds: float) -> str:
    return time_left(seconds).removeprefix("~").removesuffix(" left")


def module_summary(module: str, done: Sequence[Done]) -> str:
    """``  pkg.mod: 12 function(s), 10 got 34 case(s), 2 without cases (2 reads the clock)``."""
    fresh = [d for d in done if d.update is not None]
    cases = sum(len(d.update.cases) for d in fresh if d.update is not None)
    parts = [f"{len(done)} function(s)"] + ([f"{len(fresh)} got {cases} case(s)"] if fresh else [])
    without = Counter(cause_of(d.message) for d in done if d.status in ("missing", "error"))
    if without:
        why = "; ".join(f"{k} {cause}" for cause, k in without.most_common())
        parts.append(f"{sum(without.values())} without cases ({why})")
    same = len(done) - len(fresh) - sum(without.values())
    if same:
        parts.append(f"{same} up to date, hand-written or skipped")
    return f"  {module} done: " + ", ".join(parts)
