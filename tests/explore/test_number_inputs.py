"""Numeric, time and option inputs that reach where number functions keep behaviour (#12).

A small real project per test, `codemode regen` through the real worker, then the spec it
wrote: every function here has mutants that only one kind of input kills, so a score of 1.0
(and `check` passing on the unchanged code, the spec read back from YAML) is the proof.
"""

from __future__ import annotations

import math
from pathlib import Path

from projectkit import cases as _cases
from projectkit import project as _project
from projectkit import regen as _regen
from projectkit import spec as _spec

from codemode.cli.main import main
from codemode.config import load_config
from codemode.explore.offline.explorer import plan
from codemode.explore.target import load_target

NUMBERS = """
import math
from datetime import timedelta
from enum import Enum

POWERS = [10**x for x in (3, 6, 9)]
NAMES = ("thousand", "million", "billion")


SIZES = ("B", "K", "M")
BOUNDS = [(1024**i, s) for i, s in enumerate(SIZES)]
RANGES = list(zip(BOUNDS, BOUNDS[1:]))


def human(n: int, digits: int = 0) -> str:
    for (size, symbol), (top, _) in RANGES:
        if n <= top:
            break
    return f"{n / size:.{digits}f}{symbol}"


def decade(x: float) -> str:
    exponent = int(math.floor(math.log10(abs(x)))) if x else 0
    return "big" if exponent >= 12 else str(exponent)


def first_marker(ns: list[int]) -> int:
    for n in ns:
        if n == "end":  # compared with text, but the list holds ints
            return -1
    return len(ns)


def finite(x: float) -> str:
    if not math.isfinite(x):
        return "not finite"
    return f"{x:.1f}"


def cents(x: float) -> int:
    return round(x * 100)


def whole(x: float) -> str:
    try:
        return str(int(x))
    except ValueError:  # NaN
        return "not a number"


def short(d: timedelta, unit: str = "seconds") -> str:
    if unit == "milliseconds" and d.seconds == 0:
        return f"{d.microseconds // 1000} ms"
    return f"{int(d.total_seconds())} s"


def grouped(value: float | str) -> str:
    if isinstance(value, str):
        value = float(value.replace(",", ""))
    return f"{value:.1f}"


def word(n: int) -> str:
    if not 0 <= n < 8:
        return str(n)
    return ("zero", "one", "two", "three", "four", "five", "six", "seven")[n]


def big(n: int) -> str:
    for name, power in zip(NAMES, POWERS):
        if n < power * 1000:
            return f"{n // power} {name}" if n >= power else str(n)
    return "huge"


def span(d: timedelta) -> str:
    s = d.total_seconds()
    if s < 60:
        return "seconds"
    if s < 3600:
        return "minutes"
    if d.days < 365:
        return "days"
    return "years"


class Unit(Enum):
    SECONDS = 1
    MINUTES = 2
    DAYS = 3


def scale(n: int, unit: str = "seconds") -> int:
    found = Unit[unit.upper()]
    if found is Unit.DAYS:
        return n * 86400
    if found is Unit.MINUTES:
        return n * 60
    return n


class Part(Enum):
    DAYS = 1
    HOURS = 2


def parts(d: timedelta, skip: tuple[str, ...] = ()) -> str:
    skipped = {Part[s.upper()] for s in skip}
    out = []
    if Part.DAYS not in skipped:
        out.append(f"{d.days}d")
    if Part.HOURS not in skipped:
        out.append(f"{d.seconds // 3600}h")
    return " ".join(out)


def floored(value: float, floor: float | None = None) -> str:
    '''Where the two are equal is the only place `<` and `<=` differ.

    >>> floored(7.25)
    '7.25'
    '''
    return f"<{floor}" if floor is not None and value < floor else str(value)


def rounded(x: float, format: str = "%.1f") -> str:
    return format % x
"""

FUNCS = (
    "finite",
    "cents",
    "whole",
    "short",
    "grouped",
    "word",
    "big",
    "span",
    "scale",
    "floored",
    "rounded",
)


def test_number_inputs_kill_every_mutant_and_replay_from_yaml(tmp_path: Path) -> None:
    root = _project(tmp_path, {"src/pkg/num.py": NUMBERS})
    report = _regen(root, *(f"pkg.num.{f}" for f in FUNCS))
    scores = {f["id"]: f["mutation_score"] for f in report["functions"]}  # type: ignore[attr-defined]
    # infinities and NaN; numbers as text; each index of a literal tuple; the thresholds of a
    # module table; timedeltas at the units' boundaries; enum member names as options; other
    # precisions of a format option
    assert scores == {f"pkg.num.{f}": 1.0 for f in FUNCS}, report
    spec = _spec(root, "pkg.num")
    finite = [c["inputs"][0] for c in _cases(spec, "pkg.num.finite")]  # type: ignore[index]
    assert any(isinstance(x, float) and not math.isfinite(x) for x in finite)
    # where infinity only crashes the interpreter's round(), it shows nothing: no case
    cents = [c["inputs"][0] for c in _cases(spec, "pkg.num.cents")]  # type: ignore[index]
    assert cents and all(math.isfinite(x) for x in cents)  # type: ignore[arg-type]
    grouped = [c["inputs"][0] for c in _cases(spec, "pkg.num.grouped")]  # type: ignore[index]
    assert any(isinstance(x, str) and "," in x for x in grouped)
    # the typical value (the docstring's 7.25) is also tried as the floor: only there do
    # `<` and `<=` differ, and no other list of the plan holds it
    floored = plan(load_target(load_config(root), "pkg.num.floored"), root=root).candidates
    assert any((*c.args, *c.kwargs.values()) == (7.25, 7.25) for c in floored)
    # a list whose items the body looks up (`for s in skip: Part[s.upper()]`) holds them
    parts = plan(load_target(load_config(root), "pkg.num.parts"), root=root).candidates
    assert any([*c.args, *c.kwargs.values()][1:] == [["days"]] for c in parts)
    # a table built from another (zip, enumerate) gives its thresholds to the data only
    human = plan(load_target(load_config(root), "pkg.num.human"), root=root).candidates
    assert any(c.args[:1] == (1024,) for c in human)
    assert all(abs(d) <= 1000 for c in human for d in [*c.args, *c.kwargs.values()][1:])
    # a body on a log scale gets ten to the power of its literals (exponent >= 12)
    decade = plan(load_target(load_config(root), "pkg.num.decade"), root=root).candidates
    assert any(c.args == (1e12,) for c in decade)
    # items compared with text never put text in a list[int]: inputs respect the annotation
    marker = plan(load_target(load_config(root), "pkg.num.first_marker"), root=root).candidates
    assert marker and all(type(n) is int for c in marker for n in c.args[0])
    # every generated input read back from YAML gives the recorded outcome (nan == nan)
    assert main(["check", "--root", str(root), str(root / "specs" / "pkg.num.yml")]) == 0


def test_a_generated_match_pins_the_whole_message(tmp_path: Path) -> None:
    """A changed message that still holds the old words ("XXnegative rateXX") drifts: its
    function is message_changed, which fails on request (#32)."""
    source = """
        def fee(amount: float, rate: float) -> float:
            if rate < 0:
                raise ValueError("negative rate")
            return amount * rate
        """
    root = _project(tmp_path, {"src/pkg/fees.py": source})
    _regen(root, "pkg.fees.fee")
    spec = str(root / "specs" / "pkg.fees.yml")
    assert main(["check", "--root", str(root), spec]) == 0
    path = root / "src" / "pkg" / "fees.py"
    path.write_text(path.read_text().replace('"negative rate"', '"negative rate, got a sign"'))
    assert main(["check", "--root", str(root), spec]) == 0
    assert main(["check", "--root", str(root), "--fail-on", "message_changed", spec]) == 1
