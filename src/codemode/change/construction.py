"""The methods that reach a change through the state their instance was built with (#32).

A method reads what its instance's construction left: ``Rule.__init__`` stores ``self.bound =
self._compile(text)`` and ``Rule.admits`` consults ``self.bound.admits(n)``, without naming
``_compile``. So a change to a method ``M`` reaches the methods that read an attribute whose
value ``M`` decides: one ``M`` sets or changes in place, one a method sets from a call that
runs ``M`` through ``self.``/``cls.``/``super()`` (each name looked up on the instance's
class: a subclass's override of a method the base's constructor calls is the one that runs),
one set from such an attribute; a method handing ``self`` on whole reads them all. This
holds for the class that defines ``M`` and its subclasses that inherit it, never for a
sibling class that overrides it (its instances hold what they held). Where the construction
runs ``M`` (the class's ``__init__``, ``__new__``, ``__post_init__`` or what they call on
``self``), whoever builds the class reaches it too (through its class statement,
``Cls.__class__``). The report says through what: ``Rule.admits: ... impacted: via
PlainRule._compile (building PlainRule)``, ``Meter.show: ... impacted: via Meter.__init__``,
``Query.run: ... impacted: via Query.compile (stored in self.tree)`` where a method sets the
attribute after construction. For an impacted (not changed) method, only the attributes it
sets from what it reaches the change through count (``self.items = [Item(v) ...]``, not
``self.cache = None`` beside it).
Over-approximation costs only diff time: a witness still needs a real difference, and
``benchmarks/impact_reach_cost.py`` measures the scope it adds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from codemode.change.reach import (
    CONSTRUCTORS,
    def_text,
    dispatchers,
    find_def,
    is_special,
    methods_of,
    subclasses,
)
from codemode.change.self_uses import self_users

if TYPE_CHECKING:
    from codemode.change.chunks import Def
    from codemode.change.functions import SourceFile
    from codemode.change.impact import Project

# A use of the instance's own attribute or method in a def's outline (strings blanked).
_SELF_REF = re.compile(r"\b(self|cls|super\(\s*\)|type\(\s*self\s*\))\s*\.\s*([A-Za-z_]\w*)")
_CALLED = re.compile(r"\s*\(")
# a property's decorator (``@property``, ``@functools.cached_property``): reading runs it
_PROPERTY = re.compile(r"^[ \t]*@[ \t]*(?:\w+\.)*(?:property|cached_property)\b", re.M)
# ``self.name``, ``cls.name``, ``super().name``: a name used on an instance.
_ON_SELF = re.compile(r"\b(?:self|cls|\))\s*\.\s*([A-Za-z_]\w*)")
# ``self.NAME`` read (not assigned), or ``self`` whole: an attribute of the instance used.
_SELF_READ = re.compile(r"\bself\b(?:\s*\.\s*(\w+)\b(?!\s*[-+*/|&]?=(?!=))|(?!\s*\.)(?!\s*=[^=]))")
# A replacement field of an f-string (or a format string): ``{self.unit}``, ``{self!r}``.
_FIELD = re.compile(r"\{([^{}\n]*\bself\b[^{}\n]*)\}")
# A method that sets attributes by name: any attribute may be its.
_BY_NAME = re.compile(r"\bsetattr\(\s*self\b|\bself\s*\.\s*__dict__\b|\bvars\(\s*self\s*\)")
# ``self.items.append(...)``, ``self.table[key] = ...``: an attribute changed in place.
_SELF_CHANGE = re.compile(
    r"\bself\s*\.\s*(\w+)\s*(?:\[[^\]\n]*\]\s*[-+*/|&]?=(?!=)|\.\s*(?:append|extend|add|update"
    r"|insert|setdefault|pop|remove|clear|discard|sort|reverse)\s*\()(.*)$",
    re.M,
)
# ``self.NAME = ...`` (an annotated or augmented one too, or ``self.a, self.b = ...``): the
# attributes and what they are set to.
_SELF_SET = re.compile(
    r"^[ \t]*((?:self[ \t]*\.[ \t]*\w+[ \t]*,[ \t]*)*self[ \t]*\.[ \t]*\w+)[ \t]*,?[ \t]*"
    r"(?::[^=\n]*)?[-+*/|&]?=(?!=)(.*)$",
    re.M,
)
_ATTR = re.compile(r"\bself\s*\.\s*(\w+)")


class Method(NamedTuple):
    """A method an instance has: its id, its outline (strings and comments blanked), the
    attributes it reads on ``self`` ("" where it hands ``self`` on whole) and what it sets."""

    id: str
    text: str
    reads: frozenset[str]
    sets: tuple[tuple[str, str], ...]  # (attribute, value) of each ``self.attr = value``


@dataclass
class Instances:
    """What the instances of each class have and run, looked up once per analysis."""

    methods: dict[str, tuple[Method, ...]] = field(default_factory=dict)  # by class
    parsed: dict[str, Method] = field(default_factory=dict)  # by method id
    # (class, method names) -> what calling them on an instance runs
    reach: dict[tuple[str, tuple[str, ...]], frozenset[str]] = field(default_factory=dict)
    ways: dict[tuple[str, str], str] = field(default_factory=dict)  # (user, target) -> way
    written: dict[str, frozenset[str]] = field(default_factory=dict)  # names used on self
    rounds: list[dict[str, set[str]]] = field(default_factory=list)  # impact's hits, in order
    changed: set[str] = field(default_factory=set)  # the ids the change touched
    heirs: dict[str, tuple[str, ...]] = field(default_factory=dict)  # reach.descendants

    def way(self, user: str, target: str) -> str:
        return self.ways.get((user, target), "")


def instance_users(
    project: Project, target: str, hits: dict[str, set[str]], changed: set[str]
) -> Iterator[str]:
    """The methods that reach ``target`` through their instance: a template method or a
    dispatcher (``reach.dispatchers``), one running a special method on ``self``
    (``self_uses.py``), one reading the state that ``target`` built (the way noted); and the
    class statement (``Cls.__class__``, a binding) of a class whose construction runs
    ``target``: whoever builds one reaches it. ``hits``: this round's callers and what they
    reach (kept: what a method reached the change through decides what it sets);
    ``changed``: the ids the change touched."""
    inst = project.instances
    if inst.changed is not changed:  # another analysis of the same project
        inst.changed, inst.rounds = changed, []
    if not inst.rounds or inst.rounds[-1] is not hits:
        inst.rounds.append(hits)
    owner = target.rpartition(".")[0]
    built = _reach(project, owner, CONSTRUCTORS) if project.is_class(owner) else frozenset()
    bases = set(project.lineage(owner)) - {owner} if built else set()
    for user in dispatchers(project, target):
        # a base's constructor calling the override runs it on this class's instances only,
        # not on a sibling's: the construction's users below stand for it
        if user not in built or user.rpartition(".")[0] not in bases:
            yield user
    yield from self_users(project, target)
    for user, way in construction_users(project, target):
        project.instances.ways.setdefault((user, target), way)
        if user.endswith(".__class__"):
            project.bindings.add(user)
        yield user


def construction_users(project: Project, target: str) -> Iterator[tuple[str, str]]:
    """(method id, the way) for each method that reads state of its instance which method
    ``target`` decides (an attribute ``target`` sets, or that is set from its result); and
    ``Cls.__class__`` for a class whose construction runs ``target``."""
    module, qual = project.split(target)
    owner, _, name = qual.rpartition(".")
    owner_id = f"{module}.{owner}"
    if not module or not owner or not project.is_class(owner_id):
        return
    if name not in CONSTRUCTORS and not _written_on_self(project, owner_id, name):
        own = _text(project, target)
        if not (_SELF_SET.search(own) or _SELF_CHANGE.search(own) or _BY_NAME.search(own)):
            return  # it sets nothing on its instance, and nothing calls it on one
    heirs = subclasses(project, owner_id, target, dispatching=False)
    for cls_id in dict.fromkeys([owner_id, *heirs]):
        methods = visible_methods(project, cls_id)
        attrs = _decided(project, cls_id, target, methods)
        built = target in _reach(project, cls_id, CONSTRUCTORS)
        if built and name not in CONSTRUCTORS:  # a constructor: whoever names the class
            yield f"{cls_id}.__class__", _building(project, cls_id)
        for method in methods if attrs else ():
            attr, fid = _reads(method, attrs), method.id
            if attr and fid != target and fid.rpartition(".")[2] not in CONSTRUCTORS:
                if not built:
                    yield fid, f" (stored in self.{attr})" if attr != "*" else " (stored in self)"
                else:  # the class's own constructor changed: its name says it
                    itself = name in CONSTRUCTORS and cls_id == owner_id
                    yield fid, "" if itself else _building(project, cls_id)


def _written_on_self(project: Project, owner_id: str, name: str) -> bool:
    """Whether ``self.name`` (or ``cls.``, ``super().``) is written in the module of the class,
    of a base or of a subclass: a cheap test before the subclasses are looked up."""
    written = project.instances.written.get(owner_id)
    if written is None:
        family = project.family(owner_id.rpartition(".")[2])
        modules = {project.split(c)[0] for c in project.lineage(owner_id)}
        modules.update(project.mentions(family))
        sources = (project.source(m) for m in sorted(modules))
        written = frozenset(n for src in sources if src for n in _ON_SELF.findall(src.text))
        project.instances.written[owner_id] = written
    return name in written


def _building(project: Project, cls_id: str) -> str:
    return f" (building {project.split(cls_id)[1]})"


def visible_methods(project: Project, cls_id: str) -> tuple[Method, ...]:
    """Each method an instance of ``cls_id`` has: its class's, then
    those it inherits from its in-repo bases that it does not override (depth first, as
    ``Project.method`` looks them up)."""
    found = project.instances.methods.get(cls_id)
    if found is not None:
        return found
    seen: set[str] = set()
    out = []
    for base in project.lineage(cls_id):
        where, qual = project.split(base)
        src = project.source(where) if where else None
        if src is None:
            continue
        for d in methods_of(src, qual):
            method = d.qual.rpartition(".")[2]
            if method not in seen:
                seen.add(method)
                out.append(_method(project, src, f"{where}.{d.qual}", d))
    project.instances.methods[cls_id] = found = tuple(out)
    return found


def _method(project: Project, src: SourceFile, fid: str, d: Def) -> Method:
    """One method, read once per analysis: what it reads on ``self`` (an f-string's
    ``{self.unit}`` too, from the source: the outline blanks strings) and what it sets."""
    found = project.instances.parsed.get(fid)
    if found is None:
        text = def_text(src, d)
        head = re.search(r"\)\s*(?:->[^:]*)?:", text)
        body = text[head.end() :] if head else text
        chunk = src.chunk_at(d.start)
        lines = src.text[chunk.offset : chunk.end_offset].split("\n") if chunk else []
        source = "\n".join(lines[d.start - chunk.start : d.end - chunk.start + 1] if chunk else [])
        body += "\n" + "\n".join(_FIELD.findall(source))  # ``f"{value} {self.unit}"``
        reads = frozenset(m.group(1) or "" for m in _SELF_READ.finditer(body))
        sets = tuple(
            (attr, value)
            for targets, value in _SELF_SET.findall(text)
            for attr in _ATTR.findall(targets)  # ``self.low, self.high = ...`` sets both
        )
        found = project.instances.parsed[fid] = Method(fid, text, reads, sets)
    return found


def _reach(project: Project, cls_id: str, starts: tuple[str, ...]) -> frozenset[str]:
    """What calling the methods ``starts`` (by name) on an instance of ``cls_id`` runs among
    its methods: they and what they reach through ``self.``, ``cls.`` and ``super()``, each
    name looked up on the instance's class (an override runs in place of the base's)."""
    key = (cls_id, starts)
    known = project.instances.reach.get(key)
    if known is not None:
        return known
    texts = {m.id: m.text for m in visible_methods(project, cls_id)}
    todo = [m for m in (project.method(cls_id, c) for c in starts) if m]
    runs: set[str] = set()
    while todo:
        fid = todo.pop()
        if fid in runs:
            continue
        runs.add(fid)
        todo.extend(_self_calls(project, cls_id, fid, texts.get(fid) or _text(project, fid)))
    project.instances.reach[key] = known = frozenset(runs)
    return known


def _text(project: Project, fid: str) -> str:
    """The outline text of function ``fid`` (a base's method a ``super()`` call reaches)."""
    where, qual = project.split(fid)
    src = project.source(where) if where else None
    d = find_def(src, qual) if src is not None else None
    return def_text(src, d) if src is not None and d is not None else ""


def _self_calls(project: Project, cls_id: str, fid: str, text: str) -> Iterator[str]:
    """The methods of an instance of ``cls_id`` that ``text``, the text of its method
    ``fid``, calls through ``self.``, ``cls.`` or ``super()`` (or reads, a property): a
    bound method stored for later (``{"b": self.bold}``) runs nothing yet."""
    for m in _SELF_REF.finditer(text):
        head, name = m.groups()
        if head.startswith("super"):
            found = project.method(fid.rpartition(".")[0], name, skip_self=True)
        else:
            found = project.method(cls_id, name)
        if found and (_CALLED.match(text, m.end()) or _is_property(project, found)):
            yield found


def _is_property(project: Project, fid: str) -> bool:
    text = _text(project, fid)
    return _PROPERTY.search(text, 0, max(text.find("def "), 0)) is not None


def _decided(
    project: Project, cls_id: str, target: str, methods: tuple[Method, ...]
) -> dict[str, str]:
    """The attributes of an instance of ``cls_id`` whose value method ``target`` decides:
    those it sets or changes in place, those a method sets from a call that runs it
    (``self.bound = self._compile(text)``), and those set from one of these (``self.size =
    len(self.bound)``); ``*`` when it sets them by name (``setattr``, ``__dict__``) or is
    ``__new__``. Attribute -> the method setting it."""
    own = next((m.text for m in methods if m.id == target), "") or _text(project, target)
    if target.endswith(".__new__") or _BY_NAME.search(own):
        return {"*": target}
    sets = [(m.id, attr, value) for m in methods for attr, value in m.sets]
    sets += [(target, a, v) for a, v in _SELF_CHANGE.findall(own)]
    # an attribute set from a name the analysis resolves is a binding of its own already
    # (``self.parse = _parse``, ``impact.attribute_binding``): its readers are reached through it
    bound = {
        b.rpartition(".")[2]
        for c in project.lineage(cls_id)
        for b in project.bindings
        if b.rpartition(".")[0] == c
    }
    sets = [s for s in sets if s[1] not in bound]
    words = _reason_words(project, target)
    out = {a: fid for fid, a, v in sets if fid == target and (words is None or words(v))}
    grew = True
    while grew:  # a few rounds: attributes set from attributes
        grew = False
        for fid, attr, value in sets:
            names = {n for _, n in _SELF_REF.findall(value)}
            if attr in out or not names:
                continue
            if not names.isdisjoint(out) or _runs(project, cls_id, target, names):
                out[attr] = fid
                grew = True
    return out


def _reason_words(project: Project, target: str) -> Callable[[str], bool] | None:
    """For a method the change did not touch, a test of whether an assignment's value uses
    what it reaches the change through (``self.items = [Item(v) ...]`` where ``Item``
    changed, not ``self.cache = None`` beside it); None for a changed method (or one whose
    way is not known): all it sets."""
    inst = project.instances
    reasons = None
    if target not in inst.changed:
        reasons = next((r[target] for r in inst.rounds if target in r), None)
    if not reasons:
        return None
    words: set[str] = set()
    for reason in reasons:
        owner, _, name = reason.partition(" ")[0].rpartition(".")
        words.add(name)
        if name in CONSTRUCTORS or is_special(name):  # ``Item(v)`` runs ``Item.__init__``
            words.add(owner.rpartition(".")[2])
    module = project.split(target)[0]
    src = project.source(module)
    words |= (
        {local for local, to in src.imports() if to.rpartition(".")[2] in words} if src else set()
    )
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(words))) + r")\b")
    return lambda value: pattern.search(value) is not None


def _runs(project: Project, cls_id: str, target: str, names: set[str]) -> bool:
    """Whether calling one of the methods ``names`` on an instance of ``cls_id`` runs
    ``target``."""
    short = target.rpartition(".")[2]
    return short in names or target in _reach(project, cls_id, tuple(sorted(names)))


def _reads(method: Method, attrs: dict[str, str]) -> str:
    """The first of ``attrs`` that ``method`` reads on ``self`` (``*``: any), or ""
    (``self`` handed on whole reads them all: ``describe(self)``, ``self == other``)."""
    if "" in method.reads:
        return next(iter(attrs))
    if "*" in attrs:
        return min(method.reads, default="")
    return next((a for a in attrs if a in method.reads), "")
