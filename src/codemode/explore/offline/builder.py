"""The values one parameter gets, planned from its annotation, its default and how the body uses
it: ``Builder`` puts together the type-directed values of ``values.py`` and what ``reading.py``
finds in the code.
"""

from __future__ import annotations

import ast
import datetime as dt
from collections.abc import Sequence
from typing import Any

from codemode.explore.offline.reading import (
    TEMPLATES,
    body_usage,
    format_variants,
    index_bounds,
    is_ellipsis,
    member_names,
    none_checked,
    option_lists,
    option_texts,
    powers,
    reads_templates,
    record_keys,
    table_numbers,
    type_aliases,
)
from codemode.explore.offline.text_forms import BYTES_FORMS
from codemode.explore.offline.values import (
    DATES,
    MAPPINGS,
    NAME_HINTS,
    NUMERIC_TEXTS,
    SEQUENCES,
    TEXTS,
    NumberValues,
    TextValues,
    Value,
    dedupe,
    interleave,
    literal_label,
    timedeltas,
    values_in,
)
from codemode.explore.target import MISSING, Param


class Builder:
    """Values for parameters, by annotation or by what the body does with an unannotated one."""

    def __init__(
        self,
        literals: Sequence[Any],
        patterns: Sequence[str],
        fn: ast.AST | None,
        module: ast.Module | None = None,
    ):
        strings = [v for v in literals if isinstance(v, str)]
        words = [
            str(v.value)
            for v in interleave([values_in(member_names(fn, module)), values_in(strings)])
        ]
        self.text = TextValues(words, patterns).values
        indices = index_bounds(fn)
        plain = NumberValues(literals, indices)
        # the thresholds of a table are for the data, not the options: `ndigits=1024**3`
        # would format a gigabyte
        data = NumberValues(literals, indices, table_numbers(fn, module) + powers(fn, literals))
        self.numbers = {False: (plain.ints, plain.floats), True: (data.ints, data.floats)}
        self.ints, self.floats = plain.ints, plain.floats
        self.timedeltas = timedeltas(literals)
        self.fn = fn
        self.aliases = type_aliases(module) if module is not None else {}
        self.module = module

    def for_param(self, p: Param, caller_types: Sequence[str] = ()) -> list[Value]:
        self.ints, self.floats = self.numbers[not p.has_default]
        if p.annotation is not None:
            try:
                node = ast.parse(p.annotation, mode="eval").body
            except SyntaxError:
                return []
            values = self.by_node(node, 0)
            # An annotation can lie (`width: int` where the tests pass text): the plain types
            # the tests and callers pass that the annotation's values do not hold are tried
            # too, after them, as for an unannotated parameter (#18).
            held = {type(v.value).__name__ for v in values}
            held |= {"int"} if "float" in held else set()  # an int is a float's (PEP 484)
            more = [self.by_node(ast.Name(k), 0) for k in caller_types if k not in held]
            if more:
                values = interleave([values, *more])
        else:
            kinds = self.implied_types(p, caller_types)
            values = interleave([self.by_node(ast.Name(kind), 0) for kind in kinds])
            usage = body_usage(self.fn, p.name) if self.fn is not None else set()
            if "dispatch" in usage and values and "int" not in kinds:
                values.insert(min(len(values), 3), Value(7, "other_type"))  # turned away
            if self.fn is not None and none_checked(self.fn, p.name):
                values.insert(min(len(values), 2), Value(None, "none"))  # `if ending is None:`
        if any(type(v.value) is str for v in values):
            values = [*option_texts(self.fn, p.name, self.module), *values]
        elif any(type(v.value) is list and v.value and type(v.value[0]) is str for v in values):
            # lists of text whose items the body looks up: `for item in options: Color[item]`
            values = [*option_lists(self.fn, p.name, self.module), *values]
        if p.has_default and p.default is not MISSING:
            values = [Value(p.default, "default"), *format_variants(p.default), *values]
        return dedupe(values)

    def by_node(self, node: ast.expr, depth: int) -> list[Value]:
        if depth > 2:
            return []
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                return self.by_node(ast.parse(node.value, mode="eval").body, depth)
            except SyntaxError:
                return []
        if isinstance(node, ast.Constant) and node.value is None:
            return [Value(None, "none")]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.union([node.left, node.right], depth)
        head = node.value if isinstance(node, ast.Subscript) else node
        name = ast.unparse(head).split(".")[-1]
        if isinstance(node, ast.Subscript):
            return self.generic(name, node.slice, depth)
        return self.simple(name, depth)

    def generic(self, name: str, slice_: ast.expr, depth: int) -> list[Value]:
        elts = list(slice_.elts) if isinstance(slice_, ast.Tuple) else [slice_]
        if name == "Optional":
            return [*self.by_node(elts[0], depth), Value(None, "none")]
        if name == "Union":
            return self.union(elts, depth)
        if name == "Literal":
            return [
                Value(e.value, f"literal_{literal_label(str(e.value))}")
                for e in elts
                if isinstance(e, ast.Constant)
            ]
        if name == "Annotated":
            return self.by_node(elts[0], depth)
        if name in ("tuple", "Tuple") and len(elts) > 1 and not is_ellipsis(elts[-1]):
            parts = [self.by_node(e, depth + 1) for e in elts]
            if not all(parts):
                return []
            return [Value([p[i % len(p)].value for p in parts], f"tuple_{i}") for i in range(4)]
        if name in SEQUENCES:
            return self.items(self.by_node(elts[0], depth + 1))
        if name in MAPPINGS and len(elts) == 2:
            return mappings(self.by_node(elts[0], depth + 1), self.by_node(elts[1], depth + 1))
        return self.simple(name, depth)

    def union(self, members: Sequence[ast.expr], depth: int) -> list[Value]:
        """Each member's values in turn, so every member reaches the plan's cap; a number
        that may come as text (``float | str``) comes as text too (``"1,234.5"``, ``"inf"``)."""
        parts = [self.by_node(m, depth) for m in members]
        kinds = {type(v.value) for part in parts for v in part}
        if str in kinds and kinds & {int, float}:
            texts = [Value(t, label) for t, label in NUMERIC_TEXTS]
            parts = [texts + p if any(type(v.value) is str for v in p) else p for p in parts]
        return dedupe(interleave(parts))

    def simple(self, name: str, depth: int) -> list[Value]:
        if name in ("str", "AnyStr", "LiteralString"):
            if self.fn is not None and reads_templates(self.fn):  # fields where they matter
                return [*self.text[:4], *TEMPLATES, *self.text[4:]]
            return list(self.text)
        if name == "int":
            return list(self.ints)
        if name == "float":
            return [*list(self.floats), Value(3, "whole_number")]
        if name == "bool":
            return [Value(True, "true"), Value(False, "false")]
        if name == "bytes":
            return [*(Value(v, label) for v, label in BYTES_FORMS), Value(b"\x00\xff", "binary")]
        if name == "date":
            return [Value(d, label) for d, label in DATES]
        if name == "datetime":
            return [
                Value(dt.datetime(d.year, d.month, d.day, 9, 30), label) for d, label in DATES[:5]
            ] + [Value(dt.datetime(2024, 5, 15, 0, 0), "midnight")]
        if name == "timedelta":
            return list(self.timedeltas)
        if name in SEQUENCES:
            return self.items(list(self.text))[:32] + self.items(list(self.ints))[:8]
        if name == "items":  # iterated, its items unknown: lists of text and of numbers in turn
            return interleave([self.items(list(self.text))[:16], self.items(list(self.ints))[:8]])
        if name == "pairs":  # ``for old, new in items``
            return [
                Value([["Hello", "Bye"]], "one_pair"),
                Value([["-", "_"], ["o", "0"]], "two_pairs"),
                Value([], "no_pairs"),
            ]
        if name in MAPPINGS:
            rows = records(record_keys(self.fn)) if self.fn is not None else []
            return rows or mappings(self.text[:5], self.ints[:5])  # rows: no junk records
        if name in self.aliases and depth < 2:  # NumberOrString: TypeAlias = "float | str"
            return self.by_node(self.aliases[name], depth + 1)
        if name in ("Any", "object"):
            return list(self.text[:8]) + list(self.ints[:4]) + list(self.floats[:2])
        return []  # a class of the project or a library: needs a fixture or a serializer

    def items(self, elems: list[Value]) -> list[Value]:
        """Lists of ``elems``: the usual shapes, then text items that hold what the code looks
        for (an argument with a space, a quote, a literal of the body), int items in runs
        with gaps, unsorted and repeated."""
        if elems and all(isinstance(v.value, str) for v in elems):
            general = {v.label for v in TEXTS}
            special = [v for v in elems if v.label not in general]  # the code's own first
            special += [v for v in elems if v.label in general and v.label not in _PLAIN_TEXT]
            return [*sequences(_WORDS), _EMPTY_ITEM, _CAPITALIZED] + [
                Value(["hello", v.value], f"items_{v.label}") for v in special
            ]
        if elems and all(type(v.value) is int for v in elems):
            return sequences(elems[:6]) + list(_INT_LISTS)
        return sequences(elems)

    def implied_types(self, p: Param, caller_types: Sequence[str]) -> list[str]:
        """What an unannotated parameter is, from its default, its callers, how the body uses
        it, and its name; [] when the body calls methods no plain value has (a fixture)."""
        usage = body_usage(self.fn, p.name) if self.fn is not None else set()
        if p.default is not MISSING and p.default is not None:
            kind = type(p.default).__name__
            if kind in ("list", "tuple") and "pairs" in usage:
                return ["pairs"]
            if kind in ("int", "float", "str", "bool", "bytes", "list", "dict", "tuple"):
                return [kind]
        if usage & {"object", "callable"}:  # no value YAML holds: a fixture builds it
            return []
        kinds: list[str] = [
            k for k in ("pairs", "str", "bytes", "int", "float", "list", "dict") if k in usage
        ]
        kinds += [k for k in caller_types if k not in kinds]  # the most used first
        if kinds:
            return kinds
        lowered = p.name.lower()
        for kind, names in NAME_HINTS.items():
            if lowered in names or any(lowered.endswith("_" + n) for n in names):
                return [kind]
        if "iterable" in usage:  # iterated, nothing more known: a collection, then text
            return ["items", "str"]
        return ["str", "int"]


_WORDS = [Value("hello", "word"), Value("world", "word"), Value("the", "word")]


_EMPTY_ITEM = Value(["hello", ""], "empty_item")


_CAPITALIZED = Value(["Hello", "World"], "capitalized_items")


_PLAIN_TEXT = frozenset(["mixed_case", "plain_words", "upper_case", "single_char", "long_text"])


_INT_LISTS = (
    Value([1, 2, 3, 5, 7, 8, 9, 12], "runs_and_gaps"),
    Value([9, 3, 3, 1, 2, 8], "unsorted_repeated"),
    Value([-2, -1, 0, 4], "negative_run"),
)


def sequences(elems: Sequence[Value]) -> list[Value]:
    if not elems:
        return []
    e = [v.value for v in elems]
    return [
        Value([e[0], e[min(1, len(e) - 1)], e[min(2, len(e) - 1)]], "several_items"),
        Value([], "empty_list"),
        Value([e[0]], "one_item"),
        Value(list(reversed(e[:4])), "reversed_items"),
        Value([e[0], e[0]], "duplicate_items"),
        Value(e[:8], "many_items"),
    ]


def records(keys: Sequence[str]) -> list[Value]:
    """Records with the keys the body reads, valued by what each key's name suggests (``qty``
    a count, ``sku`` a code): three rows, two sharing a value and out of order, then one."""
    if not keys:
        return []

    def row(i: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k in keys:
            hint = next((h for h, names in NAME_HINTS.items() if k.lower() in names), "str")
            choices: dict[str, tuple[Any, ...]] = {
                "int": (2, 1, 3),
                "float": (2.5, 1.0, 4.25),
                "bool": (True, False, True),
                "str": ("B-2", "A-1", "B-2"),
            }
            out[k] = choices[hint][i]
        return out

    return [
        Value(row(0), "record"),
        Value(row(1), "other_record"),
        Value(row(2), "record_sharing_a_value"),
    ]


def mappings(keys: Sequence[Value], values: Sequence[Value]) -> list[Value]:
    ks = [k.value for k in keys if isinstance(k.value, (str, int)) and k.value != ""]
    vs = [v.value for v in values]
    if not ks or not vs:
        return []
    return [
        Value({ks[i % len(ks)]: vs[i % len(vs)] for i in range(3)}, "several_keys"),
        Value({}, "empty_mapping"),
        Value({ks[0]: vs[0]}, "one_key"),
    ]
