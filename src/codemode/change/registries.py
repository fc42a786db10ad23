"""The tables a module files a class or function in at import (#32): a reader of the table
reaches what it holds, although it never writes the holder's name.

Three shapes, read from the outline of the module that defines the holder (strings and
comments blanked, no parse): a module-level table whose value names it (``KINDS = {"a":
A}``), a module-level call that passes it (``register("a", A)``), and a decorator on it
(``@register("a")``). For a call or a decorator, the table is the module-level name the
called function writes into (``_registry[name] = cls``, ``_registry.append(cls)``). A class
is also filed when it is created, by a base's ``__init_subclass__`` or by its metaclass's
``__new__`` or ``__init__``: the tables those write into (a module-level name, or a class
attribute: ``Node.kinds[cls.tag] = cls``, ``cls.registry.append(cls)``). The table becomes a
binding (``module.NAME``, ``module.Cls.NAME``), and its readers (``lookup(name)``,
``KINDS[k]()``) are impacted through it. A class is held as a whole: a change to any of its
methods reaches the table's readers. So is an instance in a module-level container, in any
module (``CONVERTERS = {"en": lang_en.English()}``): its reader may call any method
(``getattr(CONVERTERS[lang], "to_" + kind)(n)``). Registration from another module is not
followed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from codemode.change.reach import function_def, top_assign

if TYPE_CHECKING:
    from codemode.change.impact import Project

# A write into a name: ``NAME[key] = value``, ``NAME.append(value)`` and the like.
_WRITES = re.compile(
    r"\b([A-Za-z_]\w*)[ \t]*(?:\[[^\]\n]*\][ \t]*=(?!=)|\.(?:append|add|update|setdefault|"
    r"insert|extend|register)[ \t]*\()"
)
_DECORATOR = re.compile(r"^@[ \t]*([A-Za-z_][\w.]*)", re.M)
_CALL = re.compile(r"([A-Za-z_][\w.]*)[ \t]*\(")
_COLUMN_0 = re.compile(r"^\S", re.M)


def registrations(project: Project, target: str) -> Iterator[str]:
    """The ids (``module.NAME``) of the module-level tables that hold ``target``'s top-level
    class (or ``target`` itself, a module-level function), filled when its module is imported."""
    yield from _instance_tables(project, target)
    module, qual = project.split(target)
    src = project.source(module) if module else None
    top = qual.split(".")[0]
    chunk = next((c for c in src.chunks if c.name == top), None) if src is not None else None
    if src is None or chunk is None:
        return
    callees = _DECORATOR.findall(src.local(chunk)[0])
    uses = re.compile(r"(?<![\w.])" + re.escape(top) + r"\b(?![ \t]*\()")
    for plain in src.chunks:
        if plain.is_def or top not in src.text[plain.offset : plain.end_offset]:
            continue
        text = src.local(plain)[0]
        for m in uses.finditer(text):
            starts = [s.start() for s in _COLUMN_0.finditer(text, 0, m.start() + 1)]
            if not starts:
                continue
            bound = top_assign(text, starts[-1])
            if bound is not None and bound.end() <= m.start():
                yield f"{module}.{bound.group(1)}"  # ``KINDS = {"a": A}``
            elif bound is None and (call := _CALL.match(text, starts[-1])):
                callees.append(call.group(1))  # ``register("a", A)``
    for ref in dict.fromkeys(callees):
        yield from _tables_written(project, module, ref)
    yield from _class_hooks(project, f"{module}.{top}")


def _tables_written(project: Project, module: str, ref: str) -> Iterator[str]:
    """The module-level names the function ``ref`` (as written in ``module``) writes into."""
    resolved = function_def(project, project.resolve_in(module, None, ref))
    if resolved is None:
        return
    where, src, _, text = resolved
    for name in dict.fromkeys(_WRITES.findall(text)):
        if name not in ("self", "cls") and src.is_top_level(name) and not src.defines(name):
            yield f"{where}.{name}"


# A write into a dotted name: ``Node.kinds[key] = cls``, ``cls.registry.append(cls)``.
_DOTTED_WRITES = re.compile(
    r"(?<![\w.])([A-Za-z_][\w.]*?)[ \t]*(?:\[[^\]\n]*\][ \t]*=(?!=)|\.(?:append|add|update|"
    r"setdefault|insert|extend|register)[ \t]*\()"
)
_METACLASS = re.compile(r"\bmetaclass[ \t]*=[ \t]*([A-Za-z_][\w.]*)")
_FIRST_PARAM = re.compile(r"\bdef[ \t]+\w+[ \t]*\([ \t\n]*(\w+)")


def _class_hooks(project: Project, cls_id: str) -> Iterator[str]:
    """The tables class ``cls_id`` is filed in when it is created: those a base's
    ``__init_subclass__`` or a metaclass's ``__new__``/``__init__`` (of it or a base) writes."""
    if not project.is_class(cls_id):
        return
    lineage = list(dict.fromkeys(project.lineage(cls_id)))
    hooks = [project.method(base, "__init_subclass__") for base in lineage[1:]]
    for klass in lineage:
        for meta in _metaclasses(project, klass):
            hooks += [project.method(meta, name) for name in ("__new__", "__init__")]
    for hook in dict.fromkeys(h for h in hooks if h):
        resolved = function_def(project, hook)
        if resolved is None:
            continue
        where, src, d, text = resolved
        first = _FIRST_PARAM.search(text)
        own = {first.group(1)} if first else set()  # the class being created
        for dotted in dict.fromkeys(_DOTTED_WRITES.findall(text)):
            head, _, attr = dotted.partition(".")
            if not attr:
                if src.is_top_level(head) and not src.defines(head):
                    yield f"{where}.{head}"  # ``_SHAPES[name] = cls``
                continue
            if "." in attr:
                continue
            owner = cls_id if head in own else project.resolve_in(where, d.cls, head)
            table = project.method(owner, attr) if owner and project.is_class(owner) else None
            if table and function_def(project, table) is None:
                yield table  # ``Node.kinds[cls.tag] = cls``: a class attribute


def _metaclasses(project: Project, cls_id: str) -> Iterator[str]:
    """The project metaclass the class statement of ``cls_id`` names (``metaclass=M``)."""
    module, qual = project.split(cls_id)
    src = project.source(module) if module else None
    chunk = next((c for c in src.chunks if c.name == qual) if src else (), None)
    if src is None or chunk is None:
        return
    head = src.local(chunk)[0]
    m = re.search(r"^[ \t]*class[ \t]+" + re.escape(qual) + r"\b[^:]*", head, re.M)
    for name in _METACLASS.findall(m.group(0) if m else ""):
        meta = project.resolve_in(module, None, name)
        if meta and project.is_class(meta):
            yield meta


# A module-level container: ``NAME = {``, ``NAME = [``, ``NAME = (``, ``NAME = dict(``.
_CONTAINER = re.compile(r"[ \t]*(?:\{|\[|\(|dict[ \t]*\(|list[ \t]*\(|tuple[ \t]*\()")


def _instance_tables(project: Project, target: str) -> Iterator[str]:
    """The module-level containers that hold an instance of method ``target``'s class or of
    a subclass (``{"en": English()}``, where ``English`` inherits ``to_cardinal``)."""
    module, qual = project.split(target)
    owner = qual.rpartition(".")[0]
    if not module or not owner or not project.is_class(f"{module}.{owner}"):
        return
    family = sorted(f.decode() for f in project.family(owner.rpartition(".")[2]))
    built = re.compile(r"(?<![\w.])(?:[A-Za-z_]\w*\.)*(?:" + "|".join(family) + r")[ \t]*\(")
    for where in project.mentions({f.encode() for f in family}):
        src = project.source(where)
        for chunk in src.chunks if src is not None else ():
            if chunk.is_def:
                continue
            text = src.local(chunk)[0]
            for m in built.finditer(text):
                starts = [s.start() for s in _COLUMN_0.finditer(text, 0, m.start() + 1)]
                bound = top_assign(text, starts[-1]) if starts else None
                if (
                    bound is not None
                    and bound.end() <= m.start()
                    and _CONTAINER.match(text, bound.end())
                ):
                    yield f"{where}.{bound.group(1)}"
