"""What a function reaches beyond the names it writes (#32): methods of the instances it builds,
and the methods a class dispatches to by table or ``getattr``.

The impact analysis resolves a written name (``helper``, ``mod.helper``, ``self.helper``). A
public function often reaches a change otherwise: ``Converter(**options).convert(text)``, or
``c = Converter(); c.convert(text)``, or a parameter annotated ``c: Converter``; and a class
whose methods are picked at run time (``getattr(self, "convert_" + tag)``,
``self.handlers[type(node)](node)``) reaches every method it holds. Both are read from the
outline (strings and comments blanked), without a parse. Over-approximation costs only diff
time: a witness still needs a real difference.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from codemode.change.chunks import Chunk, Def

if TYPE_CHECKING:
    from codemode.change.functions import SourceFile
    from codemode.change.impact import Project

# ``name = Cls(`` / ``name: Cls`` (a parameter or an annotated assignment) / ``as name`` of a
# ``with Cls(...)``: what a local name holds, by the class it was built from or annotated with.
_BOUND = (
    r"\b{0}\s*(?::\s*([\w.]+)[^=\n,)]*)?=\s*([A-Za-z_][\w.]*)\s*\(|\b{0}\s*:\s*([A-Za-z_][\w.]*)"
)
_WITH_AS = r"\bwith\s+([A-Za-z_][\w.]*)\s*\([^\n]*\bas\s+{0}\b"
# A dynamic dispatch site inside a method: ``getattr(self, <not a plain string>)``, or a call
# of an item of an attribute (``self.handlers[key](...)``, ``self.table.get(key)(...)``).
_GETATTR = re.compile(
    r"\bgetattr\(\s*(?:self|cls|type\(\s*self\s*\)|self\.__class__)\s*,\s*(?!\"\"\s*[,)])"
)
_TABLE = re.compile(r"\b(?:self|cls|type\(\s*self\s*\))\.[\w.]+?(\[|\.get\()")


def def_text(src: SourceFile, d: Def) -> str:
    """The blanked text of one def (its decorators included), from its chunk's outline."""
    chunk = src.chunk_at(d.start)
    if chunk is None:
        return ""
    blanked, _ = src.local(chunk)
    lines = blanked.split("\n")
    return "\n".join(lines[d.start - chunk.start : d.end - chunk.start + 1])


def instance_targets(
    project: Project,
    module: str,
    cls: str | None,
    ref: str,
    text: str,
    owners: set[bytes],
    targets: set[str],
) -> Iterator[str]:
    """Methods named by ``ref`` called on an instance the function ``text`` builds or is
    handed: ``var.method`` where ``var`` was built from or annotated with a project class,
    or is a module-level instance (``_default = Decoder()``, here or imported), or
    ``method`` written as ``Cls(...).method`` somewhere in ``text``. Failing those, any
    ``x.method`` where the function (or, in a method, its class) names a class of
    ``owners`` (the target's class family) or a function returning one: an instance kept in
    a list, built by ``a or Cls()``, by ``Parser(text).parse()``, or handed from a method to
    another is seldom spelt so that a regex sees it; then each of ``targets`` named
    ``method`` is reached."""
    head, _, name = ref.rpartition(".")
    if not name or head in ("self", "cls", "super()"):
        return
    if head.startswith("self.") and head.count(".") == 1 and cls:
        # ``self.conv.convert(...)``: what the class (or a base) assigns to ``self.conv``
        refs = list(attribute_receivers(project, module, cls, head[5:]))
    elif "." not in head:
        refs = [(module, cls, r) for r in receivers(text, head, name)]
        if head and not refs:
            refs = list(_module_instances(project, module, head))
    else:
        refs = []
    seen: set[str] = set()
    # ``x.name`` or ``f(...).name``, not a bare ``name``
    dotted = head or re.search(r"[)\]]\s*\.\s*" + re.escape(name) + r"\b", text)
    if dotted and any(_named_owners(project, module, cls, text, owners)):
        seen.update(t for t in targets if t.rpartition(".")[2] == name)
        yield from sorted(seen)
    for where, owner, cls_ref in refs:
        for found in _built_classes(project, where, owner, cls_ref):
            method = project.method(found, name)
            if method and method not in seen:
                seen.add(method)
                yield method


def _named_owners(
    project: Project, module: str, cls: str | None, text: str, owners: set[bytes]
) -> Iterator[str]:
    """The names of ``owners`` that the function's text writes, or its class's body (its
    ``class`` statement aside: a class names itself there; and only class names: a factory
    named in another method hands its instance to that method)."""
    words: frozenset[str] | None = None
    if cls:
        owners = owners & project.family_names()
        key = f"{module}.{cls.split('.')[0]}"
        words = project.body_words.get(key)
        src = project.source(module) if words is None else None
        chunk = next((c for c in src.chunks if c.name == cls.split(".")[0]), None) if src else None
        if src is not None and chunk is not None:
            body = src.local(chunk)[0].partition("\n")[2]
            words = project.body_words[key] = frozenset(_WORD.findall(body))
    if words is None:
        words = frozenset(_WORD.findall(text))
    for owner in sorted(o.decode() for o in owners):
        if owner in words:
            yield owner


_WORD = re.compile(r"[A-Za-z_]\w*")


# ``NAME = Cls(`` or ``NAME: Cls`` at column 0: a module-level instance.
_MODULE_INSTANCE = (
    r"^{0}[ \t]*(?::[ \t]*([A-Za-z_][\w.]*)[^=\n]*)?(?:=[ \t]*([A-Za-z_][\w.]*)[ \t]*\()?"
)


def _module_instances(project: Project, module: str, name: str) -> Iterator[tuple[str, None, str]]:
    """(module, None, class name) for a module-level ``name`` bound to an instance, in
    ``module`` or in the module it is imported from (``from .core import _default``)."""
    src = project.source(module)
    if src is None:
        return
    places = [(module, name)]
    places += [
        project.split(target) for local, target in src.imports() if local == name and "." in target
    ]
    for where, qual in places:
        there = project.source(where) if where else None
        if there is None or "." in qual:
            continue
        pattern = re.compile(_MODULE_INSTANCE.format(re.escape(qual)), re.M)
        for chunk in there.chunks:
            if chunk.is_def or qual not in there.text[chunk.offset : chunk.end_offset]:
                continue
            for m in pattern.finditer(there.local(chunk)[0]):
                yield from ((where, None, g) for g in m.groups() if g)


def _built_classes(
    project: Project, module: str, cls: str | None, ref: str, depth: int = 0
) -> Iterator[str]:
    """The project classes an instance built by ``ref(...)`` may be: the class itself, or
    the classes a function of the project returns (``c = make(); c.convert()``): those its
    return annotation names, or that a ``return Cls(...)`` of its body builds, or a local
    name it returns was built from, or a function whose call it returns (``return
    _bound(text)``, a few calls deep). For ``self.make(...)``, what a subclass's override of
    ``make`` returns as well: ``self.bound = self._compile(text)`` in a base holds what each
    subclass compiles (#32)."""
    found = project.resolve_in(module, cls, ref)
    if found and project.is_class(found):
        yield found
        return
    head, _, name = ref.partition(".")
    ids = [found]
    if found and cls and head in ("self", "cls") and "." not in name:
        ids += [project.method(sub, name) for sub in descendants(project, f"{module}.{cls}")]
    for fid in dict.fromkeys(ids):
        resolved = function_def(project, fid)
        if resolved is not None:
            yield from _returned_classes(project, *resolved, depth)


def _returned_classes(
    project: Project, f_module: str, src: SourceFile, d: Def, text: str, depth: int
) -> Iterator[str]:
    """The project classes function ``d`` (its ``text``) returns an instance of."""
    head = text[: (m.end() if (m := re.search(r"\)\s*(?:->[^:]*)?:", text)) else 0)]
    names = re.findall(r"->\s*[\"']?([A-Za-z_][\w.]*)", head)
    names += re.findall(r"\breturn\s+([A-Za-z_][\w.]*)\s*\(", text)
    for var in re.findall(r"\breturn\s+([A-Za-z_]\w*)[ \t]*$", text, re.M):
        names += receivers(text, var, "")  # ``t = Tally(); t.ready = True; return t``
    for name in dict.fromkeys(names):
        if name in ("cls", "Self") and d.cls:  # a classmethod constructor: ``return cls(...)``
            yield f"{f_module}.{d.cls}"
            continue
        built = project.resolve_in(f_module, d.cls, name) or _nested(project, f_module, d, name)
        last = name.rpartition(".")[2]
        if built and project.is_class(built) and built.rpartition(".")[2] != last:
            built = project.method(built, last)  # ``self.Parser.parse(...)``: its method
        if built and project.is_class(built):
            yield built
        elif built and depth < 3 and re.fullmatch(r"(?:self|cls)\.\w+", name):
            yield from _built_classes(project, f_module, d.cls, name, depth + 1)  # overrides
        elif built and depth < 3 and (resolved := function_def(project, built)) is not None:
            yield from _returned_classes(project, *resolved, depth + 1)


def _nested(project: Project, module: str, d: Def, name: str) -> str | None:
    """The class nested in ``d``'s class (or a base) that ``self.Parser.parse`` names."""
    parts = name.split(".")
    if not d.cls or len(parts) != 3 or parts[0] not in ("self", "cls"):
        return None
    nested = (f"{c}.{parts[1]}" for c in project.lineage(f"{module}.{d.cls}"))
    return next((n for n in nested if project.is_class(n)), None)


def function_def(project: Project, found: str | None) -> tuple[str, SourceFile, Def, str] | None:
    """The function ``found`` names (not a class): its module, source, outline def and text."""
    if not found or project.is_class(found):
        return None
    where, qual = project.split(found)
    src = project.source(where) if where else None
    d = find_def(src, qual) if src is not None else None
    if src is None or d is None:
        return None
    return where, src, d, def_text(src, d)


def find_def(src: SourceFile, qual: str) -> Def | None:
    """The outline's def of ``qual`` (in its top-level chunk)."""
    chunk = next((c for c in src.chunks if c.name == qual.split(".")[0]), None)
    if chunk is None:
        return None
    return next((d for d in src.local(chunk)[1] if d.qual == qual), None)


def attribute_receivers(
    project: Project, module: str, cls: str, attr: str
) -> Iterator[tuple[str, str, str]]:
    """(module, class, name) of what builds ``self.<attr>`` in class ``cls`` or its in-repo
    bases: ``self.attr = Cls(...)``, ``self.attr: Cls``, a class-level ``attr: Cls``."""
    own = re.compile(r"^[ \t]*" + re.escape(attr) + r"[ \t]*:[ \t]*([A-Za-z_][\w.]*)", re.M)
    for cls_id in project.lineage(f"{module}.{cls}"):
        where, qual = project.split(cls_id)
        src = project.source(where) if where else None
        chunk = next((c for c in src.chunks if c.name == qual.split(".")[0]), None) if src else None
        if src is None or chunk is None:
            continue
        text = src.local(chunk)[0]
        for cls_ref in [*receivers(text, "self." + attr, attr), *own.findall(text)]:
            yield where, qual, cls_ref


def receivers(text: str, var: str, name: str) -> Iterator[str]:
    """The class names an instance holding ``name`` may have been built from."""
    if var:
        v = re.escape(var)
        for m in re.finditer(_BOUND.format(v), text):
            yield from (g for g in m.groups() if g)
        for m in re.finditer(_WITH_AS.format(v), text):
            yield m.group(1)
        return
    for m in re.finditer(r"\)\s*\.\s*" + re.escape(name) + r"\b", text):
        start = _partner(text, m.start(), -1)
        if start is not None:
            before = re.search(r"([A-Za-z_][\w.]*)\s*$", text[:start])
            if before:
                yield before.group(1)


def _partner(text: str, at: int, step: int) -> int | None:
    """The offset of the bracket that the one at ``at`` pairs with: forward from an opening
    one (``step`` 1), backward from a closing one (-1)."""
    depth, i = 0, at
    while 0 <= i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += step
        elif ch in ")]}":
            depth -= step
        if depth == 0:
            return i
        i += step
    return None


def dispatches(text: str) -> bool:
    """Whether a method's text picks a method at run time: ``getattr(self, <expression>)``,
    or calls an item of a table it holds (``self.handlers[key](node)``)."""
    if _GETATTR.search(text):
        return True
    for m in _TABLE.finditer(text):
        end = _partner(text, m.end() - 1, 1)
        if end is not None and text[end + 1 :].lstrip(" \t").startswith("("):
            return True
    return False


def dispatchers(project: Project, target: str) -> Iterator[str]:
    """The methods that may reach method ``target`` by dynamic dispatch: those of its class
    and of the class's in-repo bases that pick a method at run time, and the bases' methods
    that call ``self.<name>`` (a template method: on an instance of ``target``'s class,
    ``Base.run``'s ``self.step(x)`` runs the override); and a function a decorator of
    ``target`` files it in (``@parse.register(int)``); and, for a module-level function, the
    functions of its module that pick one by name (``globals()["_do_" + kind]``)."""
    yield from _filed_by_decorator(project, target)
    yield from _module_pickers(project, target)
    module, qual = project.split(target)
    owner, _, name = qual.rpartition(".")
    if not module or not owner or not project.is_class(f"{module}.{owner}"):
        return
    owner_id = f"{module}.{owner}"
    calls = re.compile(r"\b(?:self|cls)\s*\.\s*" + re.escape(name) + r"\b")
    bases = set(project.lineage(owner_id)) - {owner_id}
    src = project.source(module)
    attribute = src is not None and qual in src.constants()  # a class attribute: no dispatch
    heirs = () if attribute else subclasses(project, owner_id, target)
    for cls_id in [*project.lineage(owner_id), *heirs]:
        cls_module, cls_qual = project.split(cls_id)
        src = project.source(cls_module)
        if src is None:
            continue
        base = cls_id in bases
        for d in methods_of(src, cls_qual):
            fid = f"{cls_module}.{d.qual}"
            if fid == target or d.qual.rpartition(".")[2] == name:
                continue
            text = def_text(src, d)
            if (base and calls.search(text)) or (not attribute and dispatches(text)):
                yield fid


_FILED_BY = re.compile(r"^[ \t]*@[ \t]*([A-Za-z_][\w.]*)\.\w+", re.M)


def _filed_by_decorator(project: Project, target: str) -> Iterator[str]:
    """The project functions a decorator ``@F.attr`` on ``target`` files it in: a
    ``functools.singledispatch`` function's ``@parse.register(int)`` (or a method's, under
    ``singledispatchmethod``), a plugin hook's ``@hook.register``: calling ``F`` may run it."""
    module, qual = project.split(target)
    src = project.source(module) if module else None
    d = find_def(src, qual) if src is not None else None
    if src is None or d is None:
        return
    for ref in dict.fromkeys(_FILED_BY.findall(def_text(src, d))):
        found = project.method(f"{module}.{d.cls}", ref) if d.cls and "." not in ref else None
        found = found or project.resolve_in(module, d.cls, ref)
        if found and found != target and function_def(project, found) is not None:
            yield found


# A module-level name picked at run time: ``globals()[name]``, ``getattr(sys.modules[__name__],
# name)``, ``vars()[name]``.
_MODULE_PICK = re.compile(r"\b(?:globals|vars)\(\s*\)|\bsys\.modules\[\s*__name__\s*\]")


def _module_pickers(project: Project, target: str) -> Iterator[str]:
    """The functions of module-level function ``target``'s module that pick a module-level
    name at run time: any function of the module may be the one they call."""
    module, qual = project.split(target)
    src = project.source(module) if module else None
    if src is None or "." in qual or not _MODULE_PICK.search(src.text):
        return
    for chunk in src.chunks:
        for d in src.local(chunk)[1] if chunk.is_def else ():
            fid = f"{module}.{d.qual}"
            if not d.is_class and fid != target and _MODULE_PICK.search(def_text(src, d)):
                yield fid


def subclasses(
    project: Project, cls_id: str, target: str, dispatching: bool = True
) -> Iterator[str]:
    """The project's subclasses of ``cls_id`` that inherit method ``target`` (do not define
    their own): a dispatcher of theirs reaches it (``dispatching``: only those that have one)."""
    name = target.rpartition(".")[2]
    for sub_id in descendants(project, cls_id, dispatching):
        if project.method(sub_id, name) == target:
            yield sub_id


def descendants(project: Project, cls_id: str, dispatching: bool = False) -> Iterator[str]:
    """The project's subclasses of ``cls_id``, found by the class statements of the modules
    that name its family (``dispatching``: only those with a dispatcher of their own)."""
    if dispatching:
        yield from _descendants(project, cls_id, True)
        return
    found = project.instances.heirs.get(cls_id)
    if found is None:
        found = project.instances.heirs[cls_id] = tuple(_descendants(project, cls_id, False))
    yield from found


def _descendants(project: Project, cls_id: str, dispatching: bool) -> Iterator[str]:
    family = project.family(cls_id.rpartition(".")[2])
    for module in project.mentions(family):
        src = project.source(module)
        here = src.top_names() if src is not None else set()
        for sub in sorted(f.decode() for f in family if f.decode() in here):
            sub_id = f"{module}.{sub}"
            if src is None or sub_id == cls_id or not src.is_class(sub):
                continue
            chunk = next((c for c in src.chunks if c.name == sub), None)
            if dispatching and chunk is not None and not dispatches(src.local(chunk)[0]):
                continue  # no dispatcher of its own: skip its parse (a family can be large)
            if cls_id in project.lineage(sub_id):
                yield sub_id


def methods_of(src: SourceFile, cls_qual: str) -> list[Def]:
    chunk = next((c for c in src.chunks if c.name == cls_qual.split(".")[0]), None)
    if chunk is None:
        return []
    return [d for d in src.local(chunk)[1] if d.cls == cls_qual and not d.is_class]


# A module-level assignment at column 0: ``parse_en = partial(parse, lang="en")``.
_TOP_ASSIGN = re.compile(r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)", re.M)
_TOP_LINE = re.compile(r"^\S", re.M)


def top_assign(text: str, at: int) -> re.Match[str] | None:
    """The module-level assignment (``NAME =``) that starts at offset ``at``, if it is one."""
    return _TOP_ASSIGN.match(text, at)


def module_bindings(
    project: Project,
    module: str,
    src: SourceFile,
    words: set[str],
    targets: set[str],
    methods: dict[bytes, set[bytes]],
) -> Iterator[tuple[str, str]]:
    """(``module.NAME``, target) for each module-level name bound to an expression that uses a
    target: a ``functools.partial``, a decorator applied by hand (``fast = cached(slow)``), a
    table of functions, an instance (``_default = Decoder()``, whose ``__call__`` changed) or
    its bound method (``dumps = _encoder.encode``, ``parse = Parser().parse``). Its users
    reach the target through it."""
    from codemode.change.extract import uses_of

    for chunk in src.chunks:
        if not any(w in src.text[chunk.offset : chunk.end_offset] for w in words):
            continue
        if chunk.is_def:
            yield from _class_bindings(project, module, src, chunk, words, targets)
            continue
        blanked, _ = src.local(chunk)
        for name in words:
            for i, dotted in uses_of(blanked, name):
                starts = [m.start() for m in _TOP_LINE.finditer(blanked, 0, i + 1)]
                bound = _TOP_ASSIGN.match(blanked, starts[-1]) if starts else None
                if bound is None or bound.end() > i:
                    continue  # not on the right of a module-level assignment
                found = project.resolve_in(module, None, dotted)
                reached = list(class_entries(project, found)) if found else []
                if name.encode() in methods and targets.isdisjoint(reached):
                    end = _TOP_LINE.search(blanked, i)
                    text = blanked[starts[-1] : end.start() if end else len(blanked)]
                    owners = methods[name.encode()]
                    reached += instance_targets(
                        project, module, None, dotted, text, owners, targets
                    )
                for target in targets.intersection(reached):
                    yield f"{module}.{bound.group(1)}", target


_SELF_ASSIGN = re.compile(r"^[ \t]*self[ \t]*\.[ \t]*(\w+)[ \t]*(?::[^=\n]*)?=(?!=)")


def attribute_binding(src: SourceFile, line: int) -> str | None:
    """``NAME`` where ``line`` (in a method) is ``self.NAME = ...``: the instance attribute
    holds what the line uses (``self.parse_object = JSONObject``)."""
    chunk = src.chunk_at(line)
    if chunk is None:
        return None
    lines = src.local(chunk)[0].split("\n")
    m = _SELF_ASSIGN.match(lines[line - chunk.start]) if line - chunk.start < len(lines) else None
    return m.group(1) if m else None


_CLASS_ASSIGN = re.compile(r"^[ \t]+([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)")


def _class_bindings(
    project: Project, module: str, src: SourceFile, chunk: Chunk, words: set[str], targets: set[str]
) -> Iterator[tuple[str, str]]:
    """(``module.Cls.NAME``, target) for each class attribute whose value uses a target: a
    table of handlers (``handlers = {int: _int}``), a pattern (``ESCAPE = re.compile(..)``)
    read as ``self.NAME``, a descriptor whose ``__get__`` or ``__set__`` changed (``name =
    Field()``)."""
    from codemode.change.extract import uses_of

    blanked, defs = src.local(chunk)
    lines = blanked.split("\n")
    for name in words:
        for i, dotted in uses_of(blanked, name):
            line = chunk.start + blanked.count("\n", 0, i)
            inside = [d for d in defs if d.start <= line <= d.end]
            if not inside or not all(d.is_class for d in inside):
                continue  # in a function (the caller's reference search sees it), or no class
            cls = inside[-1]
            for j in range(line, cls.start, -1):  # back to the assignment the use is part of
                bound = _CLASS_ASSIGN.match(lines[j - chunk.start])
                if bound:
                    found = project.resolve_in(module, cls.qual, dotted)
                    # a descriptor (``name = Field()``): reading ``obj.name`` runs its ``__get__``
                    reached = class_entries(project, found) if found else iter(())
                    for target in sorted(targets.intersection(reached)):
                        yield f"{module}.{cls.qual}.{bound.group(1)}", target
                    break


# What writing a class's name reaches beside the class: building an instance runs its
# constructor, calling an instance (``F()(x)``, ``f = F(); f(x)``) runs ``__call__``, and an
# operator, ``str()``, ``len()``, ``in``, ``with`` or iteration runs a special method: any
# ``__name__`` method of the class or its in-repo bases (#32).
CONSTRUCTORS = ("__new__", "__init__", "__post_init__")
CLASS_ENTRIES = (*CONSTRUCTORS, "__call__", "__class__")


# Special methods that ordinary use of an instance does not run (a representation for
# debugging, pickling, copying, class creation): a change to one reaches only who names it.
_QUIET = frozenset(
    [
        "__repr__",
        "__del__",
        "__getstate__",
        "__setstate__",
        "__reduce__",
        "__reduce_ex__",
        "__copy__",
        "__deepcopy__",
        "__sizeof__",
        "__dir__",
        "__init_subclass__",
        "__class_getitem__",
        "__set_name__",
        "__subclasshook__",
        "__getnewargs__",
        "__getnewargs_ex__",
        "__rich_repr__",
    ]
)


def is_special(name: str) -> bool:
    """A special method that an operator, a builtin or a statement runs on an instance."""
    return len(name) > 4 and name.startswith("__") and name.endswith("__") and name not in _QUIET


def class_entries(project: Project, found: str) -> Iterator[str]:
    """``found``, and where it is a class, its constructors and special methods."""
    yield found
    if not project.is_class(found):
        return
    entries = project.entries.get(found)
    if entries is None:
        names = set(CLASS_ENTRIES)
        for cls_id in project.lineage(found):
            where, qual = project.split(cls_id)
            src = project.source(where) if where else None
            for d in methods_of(src, qual) if src is not None else ():
                if is_special(d.qual.rpartition(".")[2]):
                    names.add(d.qual.rpartition(".")[2])
        found_methods = (project.method(found, name) for name in sorted(names))
        entries = project.entries[found] = tuple(m for m in found_methods if m)
    yield from entries


_DEF_AT = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)", re.M)


def factories(project: Project, family: set[bytes]) -> set[bytes]:
    """The names of the project's functions that return an instance of a class named in
    ``family`` (by their return annotation, a ``return Cls(`` in their body, or ``x =
    Cls(...)`` and later ``return x``): a user of
    such an instance may write no class name (``c = make(); c.convert()``). Read from the
    modules that name the class, by text: this only widens the search."""
    alt = b"|".join(re.escape(f) for f in sorted(family))
    returns = re.compile(rb"(?:->\s*[\"']?|\breturn\s+)(?:\w+\.)*(?:" + alt + rb")\s*[(:]")
    built = re.compile(rb"\b(\w+)[ \t]*=[ \t]*(?:\w+\.)*(?:" + alt + rb")[ \t]*\(")
    out: set[bytes] = set()
    naming = [project.modules[m] for m in project.mentions(family)]
    project.load(naming)
    for mf in naming:
        data = mf.data or b""
        defs = list(_DEF_AT.finditer(data))
        for i, m in enumerate(defs):
            end = defs[i + 1].start() if i + 1 < len(defs) else len(data)
            if returns.search(data, m.end(), end) or any(
                re.search(rb"\breturn[ \t]+" + v + rb"[ \t]*$", data[m.end() : end], re.M)
                for v in built.findall(data, m.end(), end)
            ):
                out.add(m.group(1))  # ``return Cls(...)``, or a local name built so
    return out
