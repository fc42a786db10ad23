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

import datetime as dt
import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from codemode.explore.offline.text_forms import literal_forms, regex_example


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
NUMERIC_TEXTS = (
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
DATES = (
    (dt.date(2024, 5, 15), "mid_month"),
    (dt.date(2024, 1, 1), "new_year"),
    (dt.date(2024, 12, 31), "year_end"),
    (dt.date(2024, 2, 29), "leap_day"),
    (dt.date(2024, 6, 1), "saturday"),
    (dt.date(2024, 6, 2), "sunday"),
    (dt.date(2023, 3, 31), "month_end"),
)
SEQUENCES: tuple[str, ...] = ("list", "List", "Sequence", "Iterable", "Collection", "set", "Set")
SEQUENCES += ("frozenset", "tuple", "Tuple", "MutableSequence", "Iterator", "AbstractSet")
MAPPINGS = ("dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict")
STR_METHODS = frozenset(
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
LIST_METHODS = frozenset(["append", "extend", "pop", "insert", "sort", "reverse", "remove"])
DICT_METHODS = frozenset(["items", "keys", "values", "get", "setdefault", "update"])
NAME_HINTS = {
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
        import sre_parse  # type: ignore[no-redef,unused-ignore]
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


def values_in(texts: Sequence[str]) -> list[Value]:
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


def interleave(groups: Sequence[Sequence[Value]]) -> list[Value]:
    """The values of several types taken in turn (a ``str | int`` parameter gets its typical
    text, its typical number, then the next of each): the first values are the ones a spec
    keeps, and each type is a class of input of its own."""
    out: list[Value] = []
    for i in range(max((len(g) for g in groups), default=0)):
        out += [g[i] for g in groups if i < len(g)]
    return out
