"""Type-directed values, each with a name that says what it shows (``digit_then_letter``).

Values respect the parameter's annotation: a ``str`` parameter gets only text, built to
reach where text functions keep their behaviour (case, digits next to letters,
separators, surrounding whitespace, accents, Unicode compatibility forms, emoji, HTML
entities) and around the characters the code itself treats specially (its string
literals and the characters of its regular expressions). Numbers come with the
boundaries around the literals of the body: ``< 5`` is told from ``<= 5`` only by 4, 5, 6.
What cannot be built from YAML (a connection, a project class) has no values: the caller
reports "needs a fixture".
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from codemode.explore.target import MISSING, Param
from codemode.explore.text_forms import BYTES_FORMS, literal_forms, regex_example


class Value(NamedTuple):
    value: Any
    label: str  # what the value shows, a case id in the making


TEXTS: tuple[Value, ...] = (
    Value("Hello World", "mixed_case"),  # the typical value: case is where text code differs
    Value("", "empty_string"),
    Value("hello world", "plain_words"),
    Value("  padded text  ", "surrounding_whitespace"),
    Value("abc123def 4th", "digit_then_letter"),
    Value("one-two_three.four/five six", "separators"),
    Value("Crème Brûlée à la carte", "accented"),
    Value("ﬁne Ｆｕｌｌ ① ²", "compatibility_forms"),
    Value("I ❤️ 🐍 code", "emoji"),
    Value("Tom &amp; Jerry &lt;b&gt;", "html_entity"),
    Value("camelCaseWord", "camel_case"),
    Value("snake_case_word", "snake_case"),
    Value("HELLO", "upper_case"),
    Value("a", "single_char"),
    Value("   ", "whitespace_only"),
    Value('it\'s "quoted"', "quotes"),
    Value("tab\there  two  spaces\nnewline", "inner_whitespace"),
    Value("Привет мир 中文", "non_latin"),
    Value("Hello, World! (ok?)", "punctuation"),
    Value("12.5", "numeric_text"),
    Value("42", "digits_only"),
    Value(" ".join(["word"] * 30), "long_text"),
    Value("First line\n  wrapped here.\n\nNew paragraph\nends.\n", "paragraphs"),
    Value('C:\\dir\\a b\\ \\"q\\"', "backslashes"),
)
_INTS = (
    (3, "three"),  # the typical value: 0 and 1 hide arithmetic (0 * x, 1 * x)
    (0, "zero"),
    (1, "one"),
    (-1, "negative"),
    (2, "two"),
    (10, "ten"),
    (100, "hundred"),
)
_INTS_MORE = ((1000, "thousand"), (-100, "large_negative"))
_FLOATS = (
    (2.5, "fraction"),
    (0.0, "zero"),
    (1.0, "one"),
    (-1.0, "negative"),
    (0.5, "half"),
    (0.1, "tenth"),
    (100.0, "hundred"),
    (1e6, "large"),
    (-3.75, "negative_fraction"),
)
_NON_FINITE = (
    (math.inf, "infinity"),  # `if not math.isfinite(x)` is a branch no finite value takes
    (-math.inf, "negative_infinity"),
    (math.nan, "not_a_number"),
)
# No huge int of its own: `range(n)` or a loop counting n down would hang (a table's may).
# Floats where their text changes form: repr() writes an exponent from 1e16 up and below
# 1e-4 (Python's float repr, the 'r' format: "exponent < -4 or >= 16"), and past 1e100 the
# exponent has three digits; near the ends of the double range (sys.float_info).
_FLOAT_MAGNITUDES = (
    (1.5e-5, "tiny"),
    (1.5e16, "huge"),
    (1.5e-200, "minuscule"),
    (1.5e200, "enormous"),
)
# A parameter that takes a number or its text (``float | str``) gets numbers written as text.
_NUMERIC_TEXTS = (
    ("1000", "text_thousand"),
    ("-3", "text_negative"),
    ("7", "text_digit"),
    ("1,234.5", "text_grouped"),
    ("12,34,567", "text_irregular_grouping"),  # CLDR's Indian grouping (#,##,##0)
    ("1234567", "text_millions"),
    ("0.25", "text_fraction"),
    ("1e3", "text_exponent"),
    ("inf", "text_infinity"),
    ("-inf", "text_negative_infinity"),
    ("nan", "text_nan"),
    (" 42 ", "text_padded"),
)
# Spans for a timedelta parameter, from the units a span is written in: timedelta's own
# constructor units (microseconds, milliseconds, seconds, minutes, hours, days, weeks: the
# datetime documentation) and the calendar's month and year (30 and 365 days, as ISO 8601
# durations are read by most code). First one of each unit with a remainder (code that
# picks a unit sees each one), then the edges of each unit: one step of the smaller unit
# below it, the unit itself, and twice it (where "1 minute" turns into "2 minutes").
_UNITS: tuple[tuple[dt.timedelta, str], ...] = (
    (dt.timedelta(microseconds=1), "microsecond"),
    (dt.timedelta(milliseconds=1), "millisecond"),
    (dt.timedelta(seconds=1), "second"),
    (dt.timedelta(minutes=1), "minute"),
    (dt.timedelta(hours=1), "hour"),
    (dt.timedelta(days=1), "day"),
    (dt.timedelta(weeks=1), "week"),
    (dt.timedelta(days=30), "month"),
    (dt.timedelta(days=365), "year"),
)


def _unit_spans() -> tuple[list[tuple[dt.timedelta, str]], list[tuple[dt.timedelta, str]]]:
    """(one of each unit with a remainder, the edges of each unit)."""
    each = [(dt.timedelta(0), "no_time"), (dt.timedelta(days=-1, hours=1), "negative")]
    edges: list[tuple[dt.timedelta, str]] = []
    for (unit, name), (smaller, _) in zip(_UNITS[1:], _UNITS):
        each.append((unit * 2 + smaller * 3, f"{name}s_and_more"))
        edges += [(unit - smaller, f"under_a_{name}"), (unit, f"one_{name}")]
        edges.append((unit * 2, f"two_{name}s"))
    each.append((_UNITS[-1][0] * 1000, "thousand_years"))  # past the largest unit
    return each, edges


_TIMEDELTA_EACH, _TIMEDELTA_EDGES = _unit_spans()
_DATES = (
    (dt.date(2024, 5, 15), "mid_month"),
    (dt.date(2024, 1, 1), "new_year"),
    (dt.date(2024, 12, 31), "year_end"),
    (dt.date(2024, 2, 29), "leap_day"),
    (dt.date(2024, 6, 1), "saturday"),
    (dt.date(2024, 6, 2), "sunday"),
    (dt.date(2023, 3, 31), "month_end"),
)
_SEQUENCES: tuple[str, ...] = ("list", "List", "Sequence", "Iterable", "Collection", "set", "Set")
_SEQUENCES += ("frozenset", "tuple", "Tuple", "MutableSequence", "Iterator", "AbstractSet")
_MAPPINGS = ("dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict")
_STR_METHODS = frozenset(
    [
        "lower",
        "upper",
        "strip",
        "lstrip",
        "rstrip",
        "split",
        "rsplit",
        "replace",
        "startswith",
        "endswith",
        "encode",
        "casefold",
        "title",
        "capitalize",
        "isdigit",
        "isalpha",
        "isalnum",
        "isspace",
        "isupper",
        "islower",
        "partition",
        "rpartition",
        "splitlines",
        "zfill",
        "center",
        "ljust",
        "rjust",
        "find",
        "rfind",
        "index",
        "count",
        "translate",
        "format",
        "removeprefix",
        "removesuffix",
        "expandtabs",
        "swapcase",
        "isnumeric",
        "isdecimal",
        "isidentifier",
    ]
)
_LIST_METHODS = frozenset(["append", "extend", "pop", "insert", "sort", "reverse", "remove"])
_DICT_METHODS = frozenset(["items", "keys", "values", "get", "setdefault", "update"])
_NAME_HINTS = {
    "int": [
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
        "num",
        "number",
        "width",
        "length",
        "max_length",
        "depth",
        "level",
        "year",
        "month",
        "day",
        "hours",
        "minutes",
        "seconds",
        "port",
    ],
    "float": [
        "price",
        "rate",
        "amount",
        "weight",
        "ratio",
        "total",
        "factor",
        "value",
        "percent",
        "score",
        "x",
        "y",
    ],
    "str": [
        "name",
        "text",
        "title",
        "s",
        "string",
        "line",
        "word",
        "code",
        "sku",
        "label",
        "email",
        "path",
        "slug",
        "sentence",
        "separator",
        "sep",
        "word_separator",
        "char",
        "prefix",
        "suffix",
        "url",
        "value_str",
        "message",
        "key",
        "fmt",
    ],
    "bool": ["flag", "strict", "lowercase", "uppercase", "enabled", "verbose"],
}


def _char_name(c: str) -> str:
    try:
        name = unicodedata.name(c)
    except ValueError:
        name = f"u{ord(c):04x}"
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def literal_label(text: str) -> str:
    if len(text) == 1 and not text.isalnum():
        return _char_name(text)
    cleaned = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return cleaned[:24] or "_".join(_char_name(c) for c in text[:2])


def regex_chars(pattern: str) -> list[str]:
    """The characters a regular expression treats specially: its literals, the ends of its
    ranges and the first character just outside each range, an example of each category."""
    try:
        import re._parser as sre_parse  # type: ignore[import-not-found]
    except ImportError:  # Python 3.10
        import sre_parse  # type: ignore[no-redef]
    try:
        parsed = sre_parse.parse(pattern)
    except Exception:
        return []
    out: dict[str, None] = {}
    cats = {"CATEGORY_DIGIT": "7", "CATEGORY_SPACE": " ", "CATEGORY_WORD": "_"}

    def walk(obj: Any, depth: int) -> None:
        if depth > 30:
            return
        obj = getattr(obj, "data", obj)  # a SubPattern
        if not isinstance(obj, (list, tuple)):
            return
        if len(obj) == 2 and hasattr(obj[0], "name"):  # (opcode, argument)
            op, av = obj[0].name, obj[1]
            if op == "LITERAL":
                out.setdefault(chr(av), None)
            elif op == "RANGE":
                for c in (av[0], av[1], av[1] + 1):
                    out.setdefault(chr(min(c, 0x10FFFF)), None)
            elif op == "CATEGORY":
                out.setdefault(cats.get(getattr(av, "name", ""), "-"), None)
            else:
                walk(av, depth + 1)
            return
        for item in obj:
            walk(item, depth + 1)

    walk(parsed, 0)
    return [c for c in out if c.isprintable() or c in "\t\n"][:24]


def _is_word(s: str) -> bool:
    """A literal worth building text around: short, or a whitespace separator (``"\t"``)."""
    return 0 < len(s) <= 40 if s.strip() else 0 < len(s) <= 2


class TextValues:
    """Text for one function: the general set plus what its own literals and patterns imply."""

    def __init__(self, literals: Sequence[str], patterns: Sequence[str]) -> None:
        specials: dict[str, None] = {}
        forms: list[list[tuple[str, str]]] = []
        alphabet = "".join(s for s in literals if len(s) == 1 and not s.isalnum())
        for k, p in enumerate(patterns[:10]):
            for c in regex_chars(p):
                if not c.isalnum():
                    specials.setdefault(c, None)
            example = regex_example(p)
            if example is not None:
                tag = "pattern" if k == 0 else f"pattern_{k + 1}"
                forms.append(
                    [
                        (example, f"matches_{tag}"),
                        (f"Ab {example} cd", f"has_{tag}"),
                        (f" {example} ", f"padded_{tag}"),  # an anchored match after .strip()
                    ]
                )
                rich = regex_example(p, alphabet) if alphabet else None
                if rich is not None and rich != example:  # 'a@a:a' where the body splits on @
                    forms[-1].insert(1, (rich, f"matches_{tag}_with_specials"))
                other = regex_example(p, last=True)
                if other is not None and other != example:  # the other side of an `|`
                    forms[-1].insert(1, (other, f"matches_{tag}_last_branch"))
        bare = {re.sub(r"^\(\?[aiLmsux]+\)", "", p) for p in patterns}
        words = [s for s in literals if _is_word(s) and s not in bare]
        forms += [literal_forms(s, literal_label(s)) for s in words[:10]]
        values = list(TEXTS)
        for rank in range(6):  # each pattern's match and each literal alone first: a cap cuts
            values += [Value(*f[rank]) for f in forms if len(f) > rank]
        for c in list(specials)[:10]:
            name = _char_name(c)
            values.append(Value(f"Ab{c}cd{c}{c}9 {c}", f"with_{name}"))
        self.values = dedupe(values)


def _values(texts: Sequence[str]) -> list[Value]:
    return [Value(t, "") for t in texts]


def dedupe(values: Iterable[Value]) -> list[Value]:
    seen: set[tuple[str, str]] = set()
    out: list[Value] = []
    for v in values:
        key = (type(v.value).__name__, repr(v.value))
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def _tag(n: float) -> str:
    text = f"{n:.3g}" if abs(n) >= 10**6 else str(n)
    return text.replace("+", "").replace("-", "minus_").replace(".", "_")


def _near(n: float, kind: type) -> list[Value]:
    tag = _tag(n)
    step: float = 1 if kind is int else 0.01
    # rounded, so a spec reads 0.21 rather than 0.21000000000000002 (0.2 + 0.01)
    return [
        Value(kind(round(n - step, 9)), f"below_{tag}"),
        Value(kind(n), f"at_{tag}"),
        Value(kind(round(n + step, 9)), f"above_{tag}"),
    ]


def _past(table: list[Any]) -> Any:
    """One step past a table's last threshold, by the table's own ratio (its last two
    thresholds'), or ten times the one when that ratio says nothing."""
    last = table[-1]
    before = table[-2] if len(table) > 1 else 0
    if before and last / before > 1:
        step = last / before
        return last * round(step) if isinstance(last, int) else last * step
    return last * 10 if last else 10


class NumberValues:
    """Ints and floats: typical values, then each index of a literal sequence the body
    subscripts, infinities and NaN, the boundaries around the body's literals and around
    the numbers of the module tables it reads (``powers = [10**x for x in (3, 6, 9)]``)."""

    def __init__(
        self, literals: Sequence[Any], indices: Sequence[int] = (), table: Sequence[Any] = ()
    ) -> None:
        nums = [v for v in literals if isinstance(v, (int, float)) and not isinstance(v, bool)]
        ints = [Value(v, label) for v, label in _INTS]
        floats = [Value(v, label) for v, label in _FLOATS[:5]]
        at = [Value(i, f"index_{i}") for i in indices]
        ints += at
        floats += [*(Value(v, label) for v, label in _NON_FINITE), *at]
        for n in nums:
            if isinstance(n, int) and abs(n) < 10**6:
                ints += _near(n, int)
                floats += [Value(float(n), f"at_{_tag(n)}")]
            elif isinstance(n, float) and abs(n) < 1e12:
                floats += _near(n, float)
        for n in table:  # ints stay ints: 10**33 - 1 has no exact float
            near = _near(n, int) if isinstance(n, int) else _near(n, float)
            ints += near if isinstance(n, int) else []
            floats += near
        if table:  # past the table's last threshold, where a loop over it falls through
            past = Value(_past(sorted(table)), "past_table")
            ints += [past] if isinstance(past.value, int) else []
            floats.append(past)
        self.ints = dedupe([*ints, *(Value(v, label) for v, label in _INTS_MORE)])
        rest = [Value(v, label) for v, label in (*_FLOATS[5:], *_FLOAT_MAGNITUDES)]
        self.floats = dedupe([*floats, *rest])


def timedeltas(literals: Sequence[Any]) -> list[Value]:
    """One span of each unit, then the units' edges interleaved with each whole-number
    literal of the body read as microseconds, seconds and days (``if seconds < 60``)."""
    each = [Value(d, label) for d, label in _TIMEDELTA_EACH]
    edges = [Value(d, label) for d, label in _TIMEDELTA_EDGES]
    read: list[Value] = []
    for n in literals:
        if type(n) is int and 1 < n <= 10**6:
            read.append(Value(dt.timedelta(microseconds=n), f"microseconds_{n}"))
            if n <= 10**5:
                read.append(Value(dt.timedelta(seconds=n), f"seconds_{n}"))
            if n <= 3650:
                read.append(Value(dt.timedelta(days=n), f"days_{n}"))
    return dedupe([*each, *interleave([read, edges])])


def index_bounds(fn: ast.AST | None) -> list[int]:
    """Every index of a short literal tuple or list the body subscripts (``(...)[value]``,
    ``t[n % 10]`` with ``t = (...)``), and the first one past its end."""
    if fn is None:
        return []
    sizes: dict[str, int] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.List)):
            sizes.update(
                {t.id: len(node.value.elts) for t in node.targets if isinstance(t, ast.Name)}
            )
    out: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
            seq = node.value
            n = len(seq.elts) if isinstance(seq, (ast.Tuple, ast.List)) else 0
            n = sizes.get(seq.id, 0) if isinstance(seq, ast.Name) else n
            if 2 <= n <= 16:
                out.update(range(n + 1))
    return sorted(out)


_ARITH: dict[type, Any] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Div: lambda a, b: a / b,
}


def _evaluate(node: ast.expr, env: dict[str, Any], depth: int = 0) -> Any:
    """A number, a short text or a (nested) list of them, from literal arithmetic, the
    module's earlier tables, ``zip``/``enumerate``/``list`` and comprehensions; ValueError else."""
    if depth > 8:
        raise ValueError(node)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand, env, depth + 1)
    if isinstance(node, ast.BinOp):
        a, b = _evaluate(node.left, env, depth + 1), _evaluate(node.right, env, depth + 1)
        if isinstance(node.op, ast.Pow) and abs(a) <= 10**4 and 0 <= b <= 120:
            return a**b
        if type(node.op) in _ARITH and not isinstance(a, (list, str)):
            return _ARITH[type(node.op)](a, b)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) <= 64:
        return [_evaluate(e, env, depth + 1) for e in node.elts]
    if isinstance(node, ast.Dict) and len(node.values) <= 64:
        return [_evaluate(v, env, depth + 1) for v in node.values]
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        items = _evaluate(node.value, env, depth + 1)
        bounds = [
            _evaluate(b, env, depth + 1) if b else None
            for b in (node.slice.lower, node.slice.upper)
        ]
        if isinstance(items, list) and node.slice.step is None:
            return items[bounds[0] : bounds[1]]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        parts = [_evaluate(a, env, depth + 1) for a in node.args]
        if all(isinstance(p, list) for p in parts) and node.func.id in _BUILDERS:
            return _BUILDERS[node.func.id](*parts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
        return _comprehension(node, node.generators[0], env, depth)
    raise ValueError(node)


_BUILDERS: dict[str, Any] = {
    "zip": lambda *ls: [list(t) for t in zip(*ls)],
    "enumerate": lambda items: [[i, x] for i, x in enumerate(items)],
    "list": list,
    "tuple": list,
    "sorted": sorted,
}


def _comprehension(
    node: ast.ListComp | ast.GeneratorExp, gen: ast.comprehension, env: dict[str, Any], depth: int
) -> Any:
    items = _evaluate(gen.iter, env, depth + 1)
    if gen.ifs or not isinstance(items, list) or len(items) > 64:
        raise ValueError(node)
    out = []
    for x in items:
        if isinstance(gen.target, ast.Name):
            bound = {gen.target.id: x}
        elif (
            isinstance(gen.target, ast.Tuple)
            and isinstance(x, list)
            and len(x) == len(gen.target.elts)
        ):
            bound = {t.id: v for t, v in zip(gen.target.elts, x) if isinstance(t, ast.Name)}
        else:
            raise ValueError(node)
        out.append(_evaluate(node.elt, {**env, **bound}, depth + 1))
    return out


def _flat(value: Any, out: list[Any]) -> None:
    if isinstance(value, list):
        for v in value:
            _flat(v, out)
    elif type(value) in (int, float) and abs(value) <= 10**100 and value not in out:
        out.append(value)


def table_numbers(fn: ast.AST | None, module: ast.Module | None) -> list[Any]:
    """The numbers of the module-level tables (tuples, lists, dicts, comprehensions of
    literal arithmetic) that the body reads by name: the thresholds a loop over them meets."""
    if fn is None or module is None:
        return []
    read = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    env: dict[str, Any] = {}  # the module's tables so far: one may be built from another
    out: list[Any] = []
    for node in module.body:
        target = value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if not isinstance(target, ast.Name) or value is None:
            continue
        try:
            env[target.id] = _evaluate(value, env)
        except (ValueError, ArithmeticError, TypeError, OverflowError, IndexError):
            continue
        if target.id in read and isinstance(env[target.id], list):
            _flat(env[target.id], out)
    return out[:48]


def powers(fn: ast.AST | None, literals: Sequence[Any]) -> list[Any]:
    """For a body on a log scale (``exponent = int(math.log10(value))``, then
    ``if exponent >= 33``), ten to the power of each whole-number literal."""
    calls = {
        n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
        for n in (ast.walk(fn) if fn is not None else [])
        if isinstance(n, ast.Call)
    }
    if not calls & {"log10", "log", "log2", "frexp"}:
        return []
    return [10.0**n for n in literals if type(n) is int and -300 <= n <= 300][:12]


def _is_param(node: ast.expr, name: str) -> bool:
    """``name`` itself, or ``name.lower()`` / ``name.upper()`` / ``name.strip()``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
        node = node.func.value if node.func.attr in ("lower", "upper", "strip") else node
    return isinstance(node, ast.Name) and node.id == name


def option_texts(fn: ast.AST | None, name: str, module: ast.Module | None) -> list[Value]:
    """The values a text option is compared with (``if mode == "strict"``, ``in ("a", "b")``)
    or looked up as: an Enum's members by name (``Color[name.upper()]``, the Enum API's
    access by name), so the class's member names. Each is a behaviour, so they come first,
    where the combinations of two options take theirs."""
    if fn is None:
        return []
    found: dict[str, None] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare) and _is_param(node.left, name):
            for c in node.comparators:
                elts = c.elts if isinstance(c, (ast.Tuple, ast.List, ast.Set)) else [c]
                for e in elts:
                    if isinstance(e, ast.Constant) and isinstance(e.value, str):
                        found.setdefault(e.value, None)
        elif (
            isinstance(node, ast.Subscript)
            and _is_param(node.slice, name)
            and isinstance(node.value, ast.Name)
        ):
            for member in class_members(module, node.value.id):
                found.setdefault(member, None)
    return [Value(t, f"option_{literal_label(t)}") for t in list(found)[:12]]


def option_lists(fn: ast.AST | None, name: str, module: ast.Module | None) -> list[Value]:
    """For a list whose items the body compares or looks up (``for item in options:``),
    lists of the values it compares them with."""
    items: dict[str, None] = {}
    for node in ast.walk(fn) if fn is not None else []:
        if (
            isinstance(node, (ast.For, ast.comprehension))
            and isinstance(node.iter, ast.Name)
            and node.iter.id == name
            and isinstance(node.target, ast.Name)
        ):
            items.update((v.value, None) for v in option_texts(fn, node.target.id, module))
    options = list(items)
    if not options:
        return []
    out = [Value([o], f"only_{literal_label(o)}") for o in options[:4]]
    return [*out, Value(options[:3], "several_options")]


def member_names(fn: ast.AST | None, module: ast.Module | None = None) -> list[str]:
    """``Color.RED`` in the body, and the other upper-case members of a module class it
    names: what a text option may be looked up as (``Color[name.upper()]``)."""
    if fn is None:
        return []
    out: dict[str, None] = {}
    classes: set[str] = set()
    for node in ast.walk(fn):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id[:1].isupper()
            and node.attr.isupper()
            and len(node.attr) > 1
        ):
            out.setdefault(node.attr.lower(), None)
            classes.add(node.value.id)
    for cls in sorted(classes):
        out.update(dict.fromkeys(class_members(module, cls)))
    return list(out)[:12]


def class_members(module: ast.Module | None, name: str) -> list[str]:
    """The upper-case members of the module's class ``name`` (an Enum's), lower-cased."""
    out: list[str] = []
    for cls in module.body if module is not None else []:
        if isinstance(cls, ast.ClassDef) and cls.name == name:
            for stmt in cls.body:
                for t in stmt.targets if isinstance(stmt, ast.Assign) else []:
                    if isinstance(t, ast.Name) and t.id.isupper() and len(t.id) > 1:
                        out.append(t.id.lower())
    return out


_PRECISION = re.compile(r"\.\d+(?=[fegd%])")


def format_variants(default: Any) -> list[Value]:
    """Other precisions for a text option whose default is a number format (``"%.1f"``)."""
    if not isinstance(default, str) or not _PRECISION.search(default):
        return []
    return [
        Value(_PRECISION.sub(".0", default), "format_no_decimals"),
        Value(_PRECISION.sub(".3", default), "format_three_decimals"),
    ]


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
            str(v.value) for v in interleave([_values(member_names(fn, module)), _values(strings)])
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
        else:
            kinds = self.implied_types(p, caller_types)
            values = interleave([self.by_node(ast.Name(kind), 0) for kind in kinds])
            usage = body_usage(self.fn, p.name) if self.fn is not None else set()
            if "dispatch" in usage and values and "int" not in kinds:
                values.insert(min(len(values), 3), Value(7, "other_type"))  # turned away
            if self.fn is not None and _none_checked(self.fn, p.name):
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
        if name in ("tuple", "Tuple") and len(elts) > 1 and not _is_ellipsis(elts[-1]):
            parts = [self.by_node(e, depth + 1) for e in elts]
            if not all(parts):
                return []
            return [Value([p[i % len(p)].value for p in parts], f"tuple_{i}") for i in range(4)]
        if name in _SEQUENCES:
            return self.items(self.by_node(elts[0], depth + 1))
        if name in _MAPPINGS and len(elts) == 2:
            return mappings(self.by_node(elts[0], depth + 1), self.by_node(elts[1], depth + 1))
        return self.simple(name, depth)

    def union(self, members: Sequence[ast.expr], depth: int) -> list[Value]:
        """Each member's values in turn, so every member reaches the plan's cap; a number
        that may come as text (``float | str``) comes as text too (``"1,234.5"``, ``"inf"``)."""
        parts = [self.by_node(m, depth) for m in members]
        kinds = {type(v.value) for part in parts for v in part}
        if str in kinds and kinds & {int, float}:
            texts = [Value(t, label) for t, label in _NUMERIC_TEXTS]
            parts = [texts + p if any(type(v.value) is str for v in p) else p for p in parts]
        return dedupe(interleave(parts))

    def simple(self, name: str, depth: int) -> list[Value]:
        if name in ("str", "AnyStr", "LiteralString"):
            if self.fn is not None and _reads_templates(self.fn):  # fields where they matter
                return [*self.text[:4], *_TEMPLATES, *self.text[4:]]
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
            return [Value(d, label) for d, label in _DATES]
        if name == "datetime":
            return [
                Value(dt.datetime(d.year, d.month, d.day, 9, 30), label) for d, label in _DATES[:5]
            ] + [Value(dt.datetime(2024, 5, 15, 0, 0), "midnight")]
        if name == "timedelta":
            return list(self.timedeltas)
        if name in _SEQUENCES:
            return self.items(list(self.text))[:32] + self.items(list(self.ints))[:8]
        if name == "pairs":  # ``for old, new in items``
            return [
                Value([["Hello", "Bye"]], "one_pair"),
                Value([["-", "_"], ["o", "0"]], "two_pairs"),
                Value([], "no_pairs"),
            ]
        if name in _MAPPINGS:
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
        if "object" in usage:
            return []
        kinds: list[str] = [
            k for k in ("pairs", "str", "bytes", "int", "float", "list", "dict") if k in usage
        ]
        kinds += [k for k in caller_types if k not in kinds]  # the most used first
        if kinds:
            return kinds
        lowered = p.name.lower()
        for kind, names in _NAME_HINTS.items():
            if lowered in names or any(lowered.endswith("_" + n) for n in names):
                return [kind]
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


def type_aliases(module: ast.Module) -> dict[str, ast.expr]:
    """Module-level ``Name = <type>`` / ``Name: TypeAlias = "<type>"`` (also under
    ``if TYPE_CHECKING:``), so an annotation naming one is read as what it stands for."""
    out: dict[str, ast.expr] = {}
    body = list(module.body)
    for node in module.body:
        if isinstance(node, ast.If):
            body += node.body
    for node in body:
        target = value = None
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            target, value = node.targets[0].id, node.value
        if target is None or value is None:
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            try:
                value = ast.parse(value.value, mode="eval").body
            except SyntaxError:
                continue
        if isinstance(value, (ast.BinOp, ast.Subscript, ast.Name, ast.Attribute)):
            out[target] = value
    return out


def interleave(groups: Sequence[Sequence[Value]]) -> list[Value]:
    """The values of several types taken in turn (a ``str | int`` parameter gets its typical
    text, its typical number, then the next of each): the first values are the ones a spec
    keeps, and each type is a class of input of its own."""
    out: list[Value] = []
    for i in range(max((len(g) for g in groups), default=0)):
        out += [g[i] for g in groups if i < len(g)]
    return out


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


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


def record_keys(fn: ast.AST) -> list[str]:
    """The keys the body reads from a record: ``line["sku"]``, ``row.get("qty")``."""
    keys: dict[str, None] = {}
    for node in ast.walk(fn):
        key: ast.expr | None = None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            key = node.slice
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and isinstance(node.func.value, ast.Name)
            and node.args
        ):
            key = node.args[0]
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value:
            keys.setdefault(key.value, None)
    return list(keys)[:6]


def records(keys: Sequence[str]) -> list[Value]:
    """Records with the keys the body reads, valued by what each key's name suggests (``qty``
    a count, ``sku`` a code): three rows, two sharing a value and out of order, then one."""
    if not keys:
        return []

    def row(i: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k in keys:
            hint = next((h for h, names in _NAME_HINTS.items() if k.lower() in names), "str")
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


def body_usage(fn: ast.AST, name: str) -> set[str]:
    """Kinds the body implies for ``name``: ``str`` for ``name.lower()``, ``int`` for
    ``name + 1`` or ``range(name)``, ``object`` for a method no plain value has."""
    out: set[str] = set()
    rebound = {
        n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    for node in ast.walk(fn):
        out |= _shape_hints(fn, node, name)
        if (
            isinstance(node, (ast.For, ast.comprehension))
            and isinstance(node.iter, ast.Name)
            and node.iter.id == name
            and isinstance(node.target, ast.Tuple)
            and len(node.target.elts) == 2
        ):
            out.add("pairs")
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == name
        ):
            if node.attr == "decode":
                out.add("bytes")
            elif node.attr in _STR_METHODS:
                out.add("str")
            elif node.attr in _LIST_METHODS:
                out.add("list")
            elif node.attr in _DICT_METHODS:
                out.add("dict")
            elif not node.attr.startswith("__") and name not in rebound:
                out.add("object")  # (once rebound, ``obj = UUID(obj)``, it is another value)
        elif isinstance(node, (ast.BinOp, ast.Compare)):
            operands = (
                [node.left, node.right]
                if isinstance(node, ast.BinOp)
                else [
                    node.left,
                    *node.comparators,
                ]
            )
            if any(isinstance(o, ast.Name) and o.id == name for o in operands):
                for o in operands:
                    if isinstance(o, ast.Constant) and isinstance(o.value, (int, float)):
                        if not isinstance(o.value, bool):
                            out.add(type(o.value).__name__)
                    elif isinstance(o, ast.Constant) and isinstance(o.value, str):
                        out.add("str")
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            callee = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if any(isinstance(a, ast.Name) and a.id == name for a in node.args):
                if callee in ("range", "chr"):
                    out.add("int")
                elif callee in ("ord", "sub", "match", "search", "findall", "fullmatch", "split"):
                    out.add("str")  # ord: one character of text; re's functions: text
    return out


_BYTES_TYPES = frozenset(["bytes", "bytearray", "str", "memoryview"])


def _checks_bytes(node: ast.AST, name: str) -> bool:
    """Whether ``node`` tells bytes from text in ``name``: ``isinstance(name, bytes)`` (or
    ``str``: the other branch is for what is not text), ``str(name, 'utf-8')``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
        return False
    first = node.args[0]
    if not (isinstance(first, ast.Name) and first.id == name):
        return False
    if node.func.id == "str":
        return len(node.args) >= 2
    if node.func.id == "isinstance" and len(node.args) == 2:
        kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        return any(isinstance(k, ast.Name) and k.id in _BYTES_TYPES for k in kinds)
    return False


def _isinstance_of(node: ast.AST, name: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "isinstance"
        and bool(node.args)
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == name
    )


def _none_checked(fn: ast.AST, name: str) -> bool:
    """Whether the body tells None apart in ``name`` (``ending is None``)."""
    for node in ast.walk(fn):
        if isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) for op in node.ops
        ):
            sides = [node.left, *node.comparators]
            if any(isinstance(x, ast.Name) and x.id == name for x in sides) and any(
                isinstance(x, ast.Constant) and x.value is None for x in sides
            ):
                return True
    return False


_TEMPLATES = (
    Value("{noun} is {1:d} years old{punct}", "format_fields"),
    Value("{0.name} {items[0]!r:>10} {}", "format_compound_fields"),
    Value("{{not a field}} {x}", "format_escaped_braces"),
)


def _reads_templates(fn: ast.AST) -> bool:
    """Whether the body reads format templates (``string.Formatter().parse``,
    ``.format_map``, ``.format(`` on a parameter): then text holds replacement fields."""
    params = {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id == "Formatter":
            return True
        if (
            isinstance(node, ast.Attribute)
            and node.attr in ("format", "format_map", "vformat")
            and isinstance(node.value, ast.Name)
            and node.value.id in params
        ):
            return True
    return False


def _shape_hints(fn: ast.AST, node: ast.AST, name: str) -> set[str]:
    """``bytes`` where ``node`` tells bytes from text in ``name``, ``dispatch`` where it
    checks its type, ``list`` where it loops over words (``for part in parts: part == '..'``)."""
    hints = {
        "bytes": _checks_bytes(node, name),
        "dispatch": _isinstance_of(node, name),
        "list": _items_compared_with_words(fn, node, name),
    }
    return {k for k, v in hints.items() if v}


def _items_compared_with_words(fn: ast.AST, node: ast.AST, name: str) -> bool:
    """Whether ``node`` loops over ``name`` and the body compares each item with a string of
    two characters or more: no character of a text is one, so ``name`` holds words."""
    if not (
        isinstance(node, (ast.For, ast.comprehension))
        and isinstance(node.iter, ast.Name)
        and node.iter.id == name
        and isinstance(node.target, ast.Name)
    ):
        return False
    item = node.target.id
    for cmp in ast.walk(fn):
        if isinstance(cmp, ast.Compare) and any(
            isinstance(op, (ast.Eq, ast.NotEq)) for op in cmp.ops
        ):
            sides = [cmp.left, *cmp.comparators]
            if any(isinstance(x, ast.Name) and x.id == item for x in sides) and any(
                isinstance(x, ast.Constant) and isinstance(x.value, str) and len(x.value) > 1
                for x in sides
            ):
                return True
    return False
