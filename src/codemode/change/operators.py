"""An operator, builtin or statement applied to a value whose class nothing names (#32).

A special method runs without its name being written: ``len(x)`` runs ``__len__``, ``x ==
y`` ``__eq__``, ``for a in x`` ``__iter__``, ``with x`` ``__enter__``. Where ``x`` is a
parameter with no annotation (nor a default of a builtin type), or a loop variable over one,
its class may be any of the project's, so when the change itself touched a special method
of a project class (not one it impacts: that would spread through the whole project), the
functions that apply its operator to such a value are impacted by the operator alone, taken
last as ``by_name.py``'s are, and the report says through what (``impacted: via
Table.__len__ (via len(rows)) -> size``). Over-approximation costs only diff time (a witness
still needs a real difference).

``TRIGGERS``: what runs each special method, from Python's data model (the Language
Reference, "Special method names"): the builtins that call it, and the syntax, as patterns
over a def's outline (strings blanked) with ``{v}`` for the value; f-strings are read from
the source lines (the outline blanks them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from codemode.change.reach import def_text, is_special

if TYPE_CHECKING:
    from codemode.change.functions import SourceFile
    from codemode.change.impact import Project


def _calls(*names: str) -> str:
    """``len(x)``, ``str(x, ...)``: a builtin given the value as its first argument."""
    return r"\b(?:" + "|".join(names) + r")\(\s*{v}\s*[,)]"


_ITERATE = r"\bin\s+{v}\s*(?::|\)|\]|\bif\b)"  # for a in x:, [a for a in x]
TRIGGERS: dict[str, tuple[str, ...]] = {
    "__len__": (_calls("len"),),
    "__str__": (_calls("str", "print", "format"), r"%\s*{v}\b"),
    "__repr__": (_calls("repr"),),
    "__format__": (_calls("format"),),
    "__iter__": (
        _calls("iter", "list", "tuple", "set", "frozenset", "sorted", "sum", "enumerate"),
        _ITERATE,
    ),
    "__next__": (_calls("next"),),
    "__contains__": (r"^(?!.*\bfor\b).*\bin\s+{v}\b",),
    "__eq__": (r"\b{v}\s*[!=]=", r"[!=]=\s*{v}\b"),
    "__ne__": (r"\b{v}\s*!=", r"!=\s*{v}\b"),
    "__lt__": (r"\b{v}\s*<(?![<=])", r"[^>-]>(?![>=])\s*{v}\b", _calls("sorted", "min", "max")),
    "__le__": (r"\b{v}\s*<=", r">=\s*{v}\b"),
    "__gt__": (r"\b{v}\s*>(?![>=])", r"[^<]<(?![<=])\s*{v}\b"),
    "__ge__": (r"\b{v}\s*>=", r"<=\s*{v}\b"),
    "__getitem__": (r"\b{v}\s*\[",),
    "__setitem__": (r"\b{v}\s*\[[^\]\n]*\]\s*=(?!=)",),
    "__delitem__": (r"\bdel\s+{v}\s*\[",),
    "__add__": (r"\b{v}\s*\+(?!=)",),
    "__radd__": (r"[^+]\+\s*{v}\b",),
    "__iadd__": (r"\b{v}\s*\+=",),
    "__sub__": (r"\b{v}\s*-(?![=>])",),
    "__mul__": (r"\b{v}\s*\*(?![*=])",),
    "__truediv__": (r"\b{v}\s*/(?![/=])",),
    "__mod__": (r"\b{v}\s*%",),
    "__and__": (r"\b{v}\s*&(?!=)",),
    "__or__": (r"\b{v}\s*\|(?!=)",),
    "__neg__": (r"(?:^|[=(,\[]|\breturn)\s*-{v}\b",),
    "__enter__": (r"\bwith\s+{v}\s*(?:\bas\b|:|,)",),
    "__exit__": (r"\bwith\s+{v}\s*(?:\bas\b|:|,)",),
    "__hash__": (_calls("hash"),),
    "__bool__": (
        _calls("bool"),
        r"\bnot\s+{v}\b",
        r"\b(?:if|while|and|or)\s+{v}\s*(?::|\band\b|\bor\b)",
    ),
    "__call__": (r"\b{v}\s*\(",),
    "__abs__": (_calls("abs"),),
    "__int__": (_calls("int"),),
    "__float__": (_calls("float"),),
    "__reversed__": (_calls("reversed"),),
}
# f-strings, read from the source lines: ``{x}`` runs __format__ (and so __str__), ``{x!r}``
_FORMATTED = {
    "__str__": r"\{{\s*{v}\s*(?:!s\s*)?[}}:]",
    "__format__": r"\{{\s*{v}\s*(?:![sr]\s*)?[}}:]",
    "__repr__": r"\{{\s*{v}\s*!r",
}
# the builtins and keywords a module must write for a special method's trigger to be in it;
# a special method triggered by syntax alone (``==``, ``x[k]``) is looked for in every module
_WORDS = re.compile(r"\\b\(\?:([\w|]+)\)|\\b(in|with|del|not|if|while|and|or)\\s")


def words(name: str) -> set[bytes] | None:
    """The identifiers one of which a user of special method ``name`` writes, or None: any
    module may use it (an operator written with symbols)."""
    if name in _FORMATTED:
        return None  # an f-string writes no identifier
    found: set[bytes] = set()
    for pattern in TRIGGERS.get(name, ()):
        m = _WORDS.search(pattern)
        if m is None:
            return None
        found.update(w.encode() for w in (m[1] or m[2]).split("|"))
    return found


def operator_users(project: Project, target: str) -> Iterator[tuple[str, str]]:
    """(function id, its way) for each function applying ``target``'s operator to a value of
    no known class; ``target`` a special method of a project class the change touched."""
    module, qual = project.split(target)
    owner, _, name = qual.rpartition(".")
    if not module or not owner or not is_special(name) or name not in TRIGGERS:
        return
    if not project.is_class(f"{module}.{owner}"):
        return
    need = words(name)
    modules = list(project.modules) if need is None else list(project.mentions(need))
    project.load(project.modules[m] for m in modules)
    for mod in modules:
        src = project.source(mod)
        if src is not None:
            yield from _in_module(src, mod, name, target)


def _in_module(src: SourceFile, module: str, name: str, target: str) -> Iterator[tuple[str, str]]:
    lines = src.text.split("\n")
    for chunk in src.chunks:
        for d in src.local(chunk)[1]:
            fid = f"{module}.{d.qual}"
            if d.is_class or fid == target:
                continue
            text = def_text(src, d)
            raw = "\n".join(lines[d.start - 1 : d.end])
            way = _applied(text, raw, name)
            if way:
                yield fid, way


def _applied(text: str, raw: str, name: str) -> str:
    """The way ``name``'s operator is applied to a value of no known class in a def whose
    outline is ``text`` (``raw``: its source), or ""."""
    for var in unknown_values(text):
        v = re.escape(var)
        for pattern in TRIGGERS[name]:
            m = re.search(pattern.replace("{v}", v), text, re.M)
            if m:
                return f" (via {m.group(0).strip()})"
        formatted = _FORMATTED.get(name)
        if formatted and re.search(formatted.format(v=v), raw):
            return f" (via {{{var}}})"
    return ""


_DEF = re.compile(r"\bdef\s+\w+\s*\(")
_LOOP = re.compile(r"\bfor\s+([A-Za-z_]\w*)\s+in\s+([A-Za-z_]\w*)\b")
# a default that shows a builtin type: a number, a text (blanked, its quotes kept), a display
_BUILTIN_DEFAULT = re.compile(r"""^\s*[-+]?(?:[\d.'"\[{(]|True\b|False\b|[rbuf]+['"])""")


def unknown_values(text: str) -> list[str]:
    """The names in a def's outline whose class nothing names: its parameters with no
    annotation and no default of a builtin type (``self``/``cls`` aside), and the loop
    variables over them."""
    m = _DEF.search(text)
    if m is None:
        return []
    params, depth, i = [], 0, m.end()
    start = i
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            params.append(text[start:i])
            start = i + 1
        i += 1
    params.append(text[start:i])
    out = []
    for p in params:
        head, eq, default = p.partition("=")
        pname = head.strip().lstrip("*")
        if not re.fullmatch(r"[A-Za-z_]\w*", pname) or pname in ("self", "cls"):
            continue  # annotated (``x: Table``), or ``*``, ``/``
        if eq and _BUILTIN_DEFAULT.match(default):
            continue
        out.append(pname)
    body = text[i:]
    out += [var for var, over in _LOOP.findall(body) if over in out and var not in out]
    return out
