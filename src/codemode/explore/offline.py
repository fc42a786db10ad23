"""The offline explorer: plans calls from the signature, runs them, keeps the telling ones.

Candidates per parameter come from the type hint (or the default, or the name), the
boundary values around every number literal in the body (``< 5`` is told from ``<= 5``
only by 4, 5 and 6), string literals of the body, docstring examples, and values drawn
from a ``random.Random`` seeded by the function id, so two runs plan the same calls.
All planned calls go to the worker in one batch; a call is kept when it reaches new lines
or a new outcome, then calls with new outputs fill up to a small number of cases.
"""

from __future__ import annotations

import ast
import datetime as dt
import itertools
import json
import random
import zlib
from collections.abc import Sequence
from typing import Any

from codemode.explore.cases import auto_id, build_cases, usable
from codemode.explore.record import CallRecord, Recorder
from codemode.explore.target import MISSING, Param, TargetInfo

MAX_PLANNED = 600
MAX_CASES = 12

_INTS = [3, 0, 1, -1, 2, 5, 10, 100, -7, 1000]
_FLOATS = [2.5, 0.0, 1.0, -1.0, 0.5, 0.1, 19.99, 100.0, 1e6, -3.75]
_STRS = [
    "hello world",
    "",
    " ",
    "a",
    "Hello World",
    "ab-cd_12",
    "  padded  ",
    "3 x Tea",
    "Crème brûlée",
    "ABC",
    "12.5",
    "x" * 40,
]
_DATES = [
    dt.date(2024, 5, 15),
    dt.date(2024, 1, 1),
    dt.date(2024, 12, 31),
    dt.date(2024, 2, 29),
    dt.date(2024, 6, 1),
    dt.date(2024, 6, 2),
    dt.date(2023, 3, 31),
]
_NAME_HINTS = {
    "int": (
        "n",
        "count",
        "qty",
        "quantity",
        "size",
        "limit",
        "days",
        "index",
        "cents",
        "people",
        "k",
    ),
    "float": ("price", "rate", "amount", "weight", "ratio", "total", "factor", "value"),
    "str": ("name", "text", "title", "s", "line", "word", "code", "sku", "label", "email", "path"),
}


def _numbers_near(literals: Sequence[Any]) -> tuple[list[int], list[float]]:
    ints: list[int] = []
    floats: list[float] = []
    for v in literals:
        if isinstance(v, bool):
            continue
        if isinstance(v, int) and abs(v) < 10**5:
            ints += [v - 1, v, v + 1]
        elif isinstance(v, float):
            floats += [v - 0.01, v, v + 0.01, v * 2]
    return ints, floats


class _Planner:
    def __init__(self, info: TargetInfo) -> None:
        self.info = info
        self.rng = random.Random(zlib.crc32(info.id.encode()))
        near_i, near_f = _numbers_near(info.literals)
        self.ints = _dedupe(_INTS + near_i)
        self.floats = _dedupe(_FLOATS + near_f + [float(i) for i in near_i])
        body_strs = [v for v in info.literals if isinstance(v, str) and v.strip()]
        self.strs = _dedupe(
            _STRS
            + body_strs
            + [s.upper() for s in body_strs[:4]]
            + [f"{s} x" for s in body_strs[:4]]
        )

    def by_annotation(
        self, ann: str | None, param: Param | None = None, depth: int = 0
    ) -> list[Any]:
        if ann is None:
            return self.untyped(param)
        try:
            node = ast.parse(ann, mode="eval").body
        except SyntaxError:
            return self.untyped(param)
        return self.by_node(node, param, depth)

    def by_node(self, node: ast.expr, param: Param | None, depth: int) -> list[Any]:
        if depth > 2:
            return [None]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):  # a string annotation
            return self.by_annotation(node.value, param, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return _dedupe(
                self.by_node(node.left, param, depth) + self.by_node(node.right, param, depth)
            )
        if isinstance(node, ast.Constant) and node.value is None:
            return [None]
        name = ast.unparse(node.value if isinstance(node, ast.Subscript) else node).split(".")[-1]
        if isinstance(node, ast.Subscript):
            inner = node.slice
            elts = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
            if name in ("Optional",):
                return [*self.by_node(elts[0], param, depth), None]
            if name == "Union":
                return _dedupe([v for e in elts for v in self.by_node(e, param, depth)])
            if name == "Literal":
                return [ast.literal_eval(e) for e in elts if isinstance(e, ast.Constant)]
            if name in (
                "list",
                "List",
                "Sequence",
                "Iterable",
                "Collection",
                "set",
                "Set",
                "frozenset",
                "tuple",
                "Tuple",
            ):
                if (
                    name in ("tuple", "Tuple")
                    and len(elts) > 1
                    and not (isinstance(elts[-1], ast.Constant) and elts[-1].value is Ellipsis)
                ):
                    parts = [self.by_node(e, None, depth + 1) for e in elts]
                    return [[p[i % len(p)] for p in parts] for i in range(4)]
                return self.sequences(self.by_node(elts[0], None, depth + 1))
            if name in ("dict", "Dict", "Mapping", "MutableMapping") and len(elts) == 2:
                return self.mappings(
                    self.by_node(elts[0], None, depth + 1), self.by_node(elts[1], None, depth + 1)
                )
        simple = {
            "int": self.ints,
            "float": self.floats,
            "str": self.strs,
            "bool": [True, False],
            "bytes": [b"abc", b"", b"\x00\xff"],
            "date": _DATES,
            "datetime": [dt.datetime(d.year, d.month, d.day, 9, 30) for d in _DATES[:5]],
            "list": self.sequences(self.ints[:6]),
            "dict": self.mappings(self.strs[:5], self.ints[:5]),
            "Any": self.untyped(None),
            "object": self.untyped(None),
        }
        return list(simple.get(name, self.untyped(param)))

    def untyped(self, param: Param | None) -> list[Any]:
        if param is not None and param.default is not MISSING and param.default is not None:
            kind = type(param.default).__name__
            if kind in ("int", "float", "str", "bool"):
                return [param.default, *self.by_annotation(kind, None)]
        if param is not None:
            for kind, names in _NAME_HINTS.items():
                if param.name.lower() in names or any(
                    param.name.lower().endswith("_" + n) for n in names
                ):
                    return self.by_annotation(kind, None)
        return [3, "abc", [1, 2], None, 0, -1, 2.5, "", {"a": 1}]

    def sequences(self, elems: list[Any]) -> list[Any]:
        e = elems or [None]
        picks = [self.rng.choice(e) for _ in range(5)]
        return [
            [e[0], e[min(1, len(e) - 1)], e[min(2, len(e) - 1)]],
            [],
            [e[0]],
            list(reversed(e[:4])),
            picks,
            [e[0], e[0]],
            e[:8],
        ]

    def mappings(self, keys: list[Any], values: list[Any]) -> list[Any]:
        ks = [k for k in keys if isinstance(k, (str, int)) and k != ""] or ["a", "b", "c"]
        vs = values or [1]
        return [
            {ks[i % len(ks)]: vs[i % len(vs)] for i in range(3)},
            {},
            {ks[0]: vs[0]},
            {ks[i % len(ks)]: vs[(i * 3 + 1) % len(vs)] for i in range(min(5, len(ks)))},
        ]


def _dedupe(values: list[Any]) -> list[Any]:
    seen: set[str] = set()
    out = []
    for v in values:
        key = json.dumps([type(v).__name__, v], default=str, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _doc_examples(info: TargetInfo) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """``>>> f(1, x=2)`` and ``'3 x tea' -> ...`` lines of the docstring, as calls."""
    out: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    required = [
        p for p in info.params if not p.has_default and p.kind in ("positional", "positional_only")
    ]
    for raw in info.docstring.splitlines():
        line = raw.strip()
        expr = None
        if line.startswith(">>>"):
            expr = line[3:].strip()
        elif "->" in line and len(required) == 1:
            left = line.split("->", 1)[0].strip()
            try:
                out.append(((ast.literal_eval(left),), {}))
            except (ValueError, SyntaxError):
                pass
            continue
        if not expr:
            continue
        try:
            node = ast.parse(expr, mode="eval").body
        except SyntaxError:
            continue
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == info.name:
            try:
                args = tuple(ast.literal_eval(a) for a in node.args)
                kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
            except (ValueError, SyntaxError):
                continue
            out.append((args, kwargs))
    return out


def plan_calls(
    info: TargetInfo, fixtures: Sequence[str] = ()
) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The calls to try, docstring examples first, deterministic for a given function."""
    planner = _Planner(info)
    # Fixture parameters are injected by the worker; variadic ones are left empty.
    params = [
        p
        for p in info.params
        if p.kind not in ("var_positional", "var_keyword") and p.name not in fixtures
    ]
    cands = {p.name: planner.by_annotation(p.annotation, p)[:24] for p in params}
    calls: list[dict[str, Any]] = []

    def add(values: dict[str, Any]) -> None:
        calls.append(values)

    base = {
        p.name: (cands[p.name][0] if cands[p.name] else None) for p in params if not p.has_default
    }
    add(dict(base))
    for p in params:  # one factor at a time, the rest at their typical value
        for v in cands[p.name]:
            add({**base, p.name: v})
    space = 1
    for p in params:
        space *= max(1, len(cands[p.name]))
    if len(params) > 1 and space <= MAX_PLANNED:
        for combo in itertools.product(*(cands[p.name] for p in params)):
            add({p.name: v for p, v in zip(params, combo)})
    else:
        for _ in range(150):
            add({p.name: planner.rng.choice(cands[p.name]) for p in params if cands[p.name]})
    out = list(_doc_examples(info))
    for values in calls[:MAX_PLANNED]:
        out.append(_to_call(params, values))
    return out


def _to_call(params: list[Param], values: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    gap = False
    for p in params:
        if p.name not in values:
            gap = True
            continue
        if p.kind in ("positional", "positional_only") and not gap:
            args.append(values[p.name])
        else:
            kwargs[p.name] = values[p.name]
    return tuple(args), kwargs


def _call_key(args: Sequence[Any], kwargs: dict[str, Any]) -> str:
    return json.dumps([list(args), kwargs], default=str, sort_keys=True)


def select(
    records: Sequence[CallRecord], info: TargetInfo, max_cases: int = MAX_CASES
) -> list[tuple[CallRecord, str]]:
    """Docstring examples, then calls that reach new lines or outcomes, then new outputs,
    smallest inputs first."""
    ok = [r for r in records if usable(r, info)]
    ok.sort(key=lambda r: (len(json.dumps([r.args, r.kwargs], default=str)), r.n))
    seen_lines: set[int] = set()
    seen_out: set[tuple[str, str]] = set()
    seen_values: set[str] = set()
    picked: list[CallRecord] = []
    ids: dict[int, str] = {}
    # The author's own examples say what the function is for: always kept, whatever they cover.
    doc_keys = {_call_key(a, k) for a, k in _doc_examples(info)}
    for r in ok:
        if len(picked) < max_cases and _call_key(r.args, r.kwargs) in doc_keys:
            picked.append(r)
            ids[r.n] = "docstring_example"
            seen_lines |= set(r.lines)
            seen_out.add(r.outcome_key)
            seen_values.add(_value_key(r))
    for r in ok:
        if r in picked:
            continue
        if len(picked) >= max_cases:
            break
        if not set(r.lines) <= seen_lines or r.outcome_key not in seen_out:
            picked.append(r)
            seen_lines |= set(r.lines)
            seen_out.add(r.outcome_key)
            seen_values.add(_value_key(r))
    # Boundaries next: an input equal to a number of the body tells `<` from `<=`.
    numbers = {v for v in info.literals if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for r in ok:
        if len(picked) >= max_cases:
            break
        if r not in picked and any(
            _is_number(a) and a in numbers for a in (*r.args, *r.kwargs.values())
        ):
            picked.append(r)
            seen_values.add(_value_key(r))
            numbers -= {a for a in (*r.args, *r.kwargs.values()) if _is_number(a)}
    for r in ok:
        if len(picked) >= max_cases:
            break
        key = _value_key(r)
        if key not in seen_values and r not in picked:
            picked.append(r)
            seen_values.add(key)
    picked.sort(key=lambda r: r.n)
    return [(r, ids.get(r.n) or auto_id(r, info)) for r in picked]


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _value_key(r: CallRecord) -> str:
    if r.kind == "raised":
        return json.dumps(["raised", (r.exc or {}).get("type"), (r.exc or {}).get("message")])
    return json.dumps(["returned", r.value], default=str, sort_keys=True)


def explore_offline(info: TargetInfo, recorder: Recorder) -> list[dict[str, Any]]:
    """Run the planned calls in one batch and return the chosen cases (not yet gated)."""
    recorder.call_many(plan_calls(info, recorder.fixture_names))
    chosen = select(recorder.records, info)
    return build_cases(chosen, info, set())
