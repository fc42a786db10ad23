"""Which unchanged functions may behave differently because something they use changed.

A static reverse-call graph, built only as far as it is needed. A function can reach a changed
callee, base-class method or module-level constant only by writing its name, so each round
first keeps the modules whose identifiers hold a changed name (for a method: its name and the
name of its class or a subclass), a set lookup per module and no parsing; then finds the uses
of those names in the chunk outlines (strings and comments blanked); and resolves each through
the module's imports (``import x``, ``from x import y as z``, relative and star imports,
re-exports from packages), ``self.``/``cls.``/``super()`` through the class's in-repo bases,
and a class name to its constructor and special methods. Rounds repeat until ``impact_depth``
public callers are on the way (a private helper is a free step: ``impacted``).

A method called on an instance the function builds or is handed (``Cls(...).m()``, ``x =
Cls(...); x.m()``, ``x: Cls``, ``x = make()`` where ``make`` returns a ``Cls``, ``self.x.m()``
where the class assigns ``self.x = Cls(...)``), and a class (or a subclass) whose methods are
picked at run time by ``getattr`` or a table, are followed too (``reach.py``, #32); so are a
module-level instance and its bound methods (``_default = Decoder()``, ``dumps =
_encoder.encode``), a classmethod constructor (``return cls(...)``), an instance's ``__call__``
and special methods, class attributes (``Cls.NAME`` is a constant: ``self.ESCAPE``, a
class-level table, a dataclass field), a function an attribute holds (``self.parse =
_parse``), a base's template method calling a changed override, ``x.m()`` where the
function or its class names ``m``'s class, the tables a class is filed in at import or at
its creation (``registries.py``: a base's ``__init_subclass__``, a metaclass), a descriptor
class attribute, an enum's members read through the class, a ``singledispatch`` function's
implementations, ``type(self).m``, and a module's functions that pick one by name from
``globals()``; a method on a value of no known class, by its name (``by_name.py``); a special
method run on ``self`` (``self_uses.py``); a method reading what its instance's construction
(or another method) set from changed code (``construction.py``); an operator or builtin on a
value of no known class (``len(x)``, ``operators.py``). Limits, by design: a local variable
shadowing a changed name can make its function look impacted (costing diff time only).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from codemode.change import git
from codemode.change.by_name import by_name, note_way
from codemode.change.cache import AnalysisCache
from codemode.change.chunks import Def, SourceError
from codemode.change.construction import Instances, instance_users
from codemode.change.dynamic_imports import importers
from codemode.change.enums import enum_member
from codemode.change.functions import SourceFile
from codemode.change.operators import operator_users
from codemode.change.reach import (
    attribute_binding,
    class_entries,
    def_text,
    factories,
    instance_targets,
    is_special,
    module_bindings,
)
from codemode.change.registries import registrations
from codemode.change.self_uses import triggered
from codemode.change.target_names import Names, target_names
from codemode.change.words import Words, WordsHelper, identifiers

# modules without cached identifiers from which a helper process reads them (fewer: the
# fork and the answers cost more than it saves)
_HELPER_MIN_MODULES = 256
# rounds of the impact search beyond impact_depth, for chains of private helpers (uncounted)
_PRIVATE_ROUNDS = 24
_CLASS_HEAD = re.compile(rb"^[ \t]*class[ \t]+(\w+)[ \t]*\(([^)]*)\)", re.M)


@dataclass
class ModuleFile:
    """One module at the head side: read only when someone needs its content."""

    entry: git.Entry
    module: str
    data: bytes | None = None
    words: Words | None = None  # its identifiers, the impact prefilter
    source: SourceFile | None = None
    problem: str | None = None

    @property
    def path(self) -> str:
        return self.entry.path


@dataclass
class Project:
    """The modules at the head side, keyed by dotted module name."""

    repo: Path
    modules: dict[str, ModuleFile]
    cache: AnalysisCache | None = None
    removed: frozenset[str] = frozenset()  # ids gone at head; references to them still count
    problems: list[str] = field(default_factory=list)
    _families: dict[str, set[bytes]] = field(default_factory=dict)
    _factories: dict[str, set[bytes]] = field(default_factory=dict)
    bindings: set[str] = field(default_factory=set)  # module-level names impact went through
    named: dict[tuple[str, str], str] = field(default_factory=dict)  # by_name: (caller, callee)
    triggered: set[tuple[str, str]] = field(default_factory=set)  # self_uses.triggered
    entries: dict[str, tuple[str, ...]] = field(default_factory=dict)  # reach.class_entries
    instances: Instances = field(default_factory=Instances)  # construction.py
    body_words: dict[str, frozenset[str]] = field(default_factory=dict)  # a class body's names
    # function -> the module names it imports by a computed name (dynamic_imports.py)
    dynamic_imports: dict[str, list[tuple[str, str]]] | None = None
    _helper: WordsHelper | None = None  # holds the identifiers of the modules in _remote
    _remote: dict[str, int] = field(default_factory=dict)  # module -> its index there

    def load(self, files: Iterable[ModuleFile], words: bool = False) -> None:
        """Read the content of ``files`` in one batch (and their identifiers, if ``words``)."""
        need = {mf.entry: mf for mf in files if mf.data is None and mf.problem is None}
        fresh: list[tuple[str, bytes]] = []
        keep = self.cache is not None and self.cache.enabled
        for entry, data in git.read_entries(self.repo, list(need)):
            mf = need.pop(entry)
            mf.data = data
            if words and mf.words is None:
                mf.words = Words(identifiers(data))  # while git decompresses the next blob
                if entry.sha and keep:
                    fresh.append((entry.sha, mf.words.text()))
        for mf in need.values():
            mf.problem = "unreadable"  # e.g. deleted from the work tree
        if fresh and self.cache:
            self.cache.put_words(fresh)

    def _cached_words(self) -> list[ModuleFile]:
        """Fill in identifiers from the cache; the modules still without them."""
        missing = [
            mf
            for mf in self.modules.values()
            if mf.words is None and not mf.problem and mf.module not in self._remote
        ]
        if self.cache and missing:
            cached = self.cache.words(mf.entry.sha for mf in missing if mf.entry.sha)
            for mf in missing:
                text = cached.get(mf.entry.sha or "")
                mf.words = Words(text=text) if text is not None else None
        return [mf for mf in missing if mf.words is None]

    def load_words(self) -> None:
        """Every module's identifiers: from the cache by blob id, else from the content
        (unless a helper holds them)."""
        missing = self._cached_words()
        self.load(missing, words=True)
        for mf in missing:
            if mf.words is None and mf.data is not None:
                mf.words = Words(identifiers(mf.data))

    def start_words_helper(self) -> bool:
        """Have a forked child read the modules whose identifiers are not cached and keep
        their identifiers, while this process goes on (it parses the changed files): on
        two cores the ~0.1 ms per module of reading and tokenizing costs no wall time.
        Call it before this process starts any thread or pipe (the child inherits them).
        False, and nothing started, where it would not pay or cannot run."""
        if self._helper is not None:
            return True
        missing = self._cached_words()
        if len(missing) < _HELPER_MIN_MODULES:
            return False
        git_dir = self.cache.git_dir if self.cache and self.cache.enabled else None
        helper = WordsHelper.start(self.repo, [mf.entry for mf in missing], git_dir)
        if helper is None:
            return False
        self._helper = helper
        self._remote = {mf.module: i for i, mf in enumerate(missing)}
        return True

    def helper_fds(self) -> tuple[int, ...]:
        """The identifiers helper's pipes (another forked child must not hold them)."""
        h = self._helper
        return (h.to_child, h.from_child) if h is not None else ()

    def close(self) -> None:
        """Stop the helper, if there is one (its identifiers are forgotten)."""
        helper, self._helper, self._remote = self._helper, None, {}
        if helper is not None:
            helper.close()

    def mentions(self, names: set[bytes]) -> dict[str, set[bytes]]:
        """Module -> which of ``names`` it writes, for the modules that write any, in
        module order (a set lookup per module: no parsing)."""
        remote: dict[int, set[bytes]] = {}
        if self._helper is not None:
            try:
                remote = self._helper.query(names)
            except (OSError, EOFError, ValueError, TypeError):
                self.close()  # the child failed: do its work here
        if self._helper is None:
            self.load_words()
        out: dict[str, set[bytes]] = {}
        for module, mf in self.modules.items():
            index = self._remote.get(module)
            if index is not None:
                here = remote.get(index)
            else:
                here = mf.words.present(names) if mf.words is not None else None
            if here:
                out[module] = here
        return out

    def candidates(self, names: Names) -> list[tuple[ModuleFile, set[bytes]]]:
        """The modules that write a plain name, or a method's name and its class's (or a
        subclass's) name: the only ways static resolution can reach a target. A common
        method name (``run``, ``save``) alone would make nearly every module a candidate.
        With each, the names of ``names`` it writes."""
        every = names.words() | {o for owners in names.methods.values() for o in owners}
        out = []
        for module, here in self.mentions(every).items():
            if not here.isdisjoint(names.plain | names.loose) or any(
                m in here and not here.isdisjoint(owners) for m, owners in names.methods.items()
            ):
                out.append((self.modules[module], here))
        return out

    def family(self, cls: str) -> set[bytes]:
        """A class's name and its subclasses' names, from the class statements of the modules
        that name it (a few levels, by text: this only narrows the search)."""
        found: set[bytes] = self._families.get(cls, set())
        if found:
            return found
        found = {cls.encode()}
        frontier = set(found)
        for _ in range(4):
            new: set[bytes] = set()
            naming = [self.modules[m] for m in self.mentions(frontier)]
            self.load(naming)
            for mf in naming:
                for name, bases in _CLASS_HEAD.findall(mf.data or b""):
                    if not frontier.isdisjoint(identifiers(bases)) and name not in found:
                        new.add(name)
            if not new:
                break
            found |= new
            frontier = new
        self._families[cls] = found
        return found

    def family_names(self) -> set[bytes]:
        """The names of every class family looked up so far (``family``)."""
        return set().union(*self._families.values())

    def factories(self, cls: str, family: set[bytes]) -> set[bytes]:
        """The functions returning an instance of ``cls``'s family (``reach.factories``)."""
        if cls not in self._factories:
            self._factories[cls] = factories(self, family)
        return self._factories[cls]

    def source(self, module: str) -> SourceFile | None:
        mf = self.modules.get(module)
        if mf is None or mf.problem is not None:
            return None
        try:
            if mf.source is None:
                if mf.data is None:
                    self.load([mf])
                if mf.data is None:
                    return None
                mf.source = SourceFile.from_bytes(mf.path, module, mf.data)
            mf.source.scan_statements()  # imports and constants, needed to resolve anything
        except SourceError as exc:
            mf.problem = f"{mf.path}:{exc} (skipped)"
            self.problems.append(mf.problem)
            return None
        return mf.source

    # -- resolution ---------------------------------------------------------------------------
    def resolve(self, dotted: str, hops: int = 0) -> str | None:
        """An absolute dotted name -> the id of the function, class or constant it names."""
        if dotted in self.removed:
            return dotted
        if hops > 8:  # an import cycle of re-exports
            return None
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                return self._in_module(module, parts[cut:], hops)
        return None

    def _in_module(self, module: str, rest: list[str], hops: int) -> str | None:
        src = self.source(module)
        if src is None:
            return None
        qual = ".".join(rest)
        if src.defines(qual):
            return f"{module}.{qual}"
        if src.is_class(rest[0]):
            cls = f"{module}.{rest[0]}"
            return cls if len(rest) == 1 else self.method(cls, rest[1])
        if f"{module}.{rest[0]}" in self.bindings:  # ``_default.decode`` too
            return f"{module}.{rest[0]}"
        if len(rest) == 1 and rest[0] in src.constants():
            return f"{module}.{rest[0]}"
        return self._through_imports(src, rest, hops)

    def _through_imports(self, src: SourceFile, rest: list[str], hops: int) -> str | None:
        tail = "." + ".".join(rest[1:]) if len(rest) > 1 else ""
        for local, target in src.imports():
            if local == rest[0]:
                found = self.resolve(target + tail, hops + 1)
                if found:
                    return found
        for star in src.stars():
            found = self.resolve(f"{star}.{'.'.join(rest)}", hops + 1)
            if found:
                return found
        return None

    def resolve_in(self, module: str, cls: str | None, ref: str) -> str | None:
        """A reference as written in ``module`` (inside a method of ``cls``) -> an id, or None."""
        src = self.source(module)
        if src is None:
            return None
        head, _, tail = ref.partition(".")
        if head in ("type(self)", "type(cls)"):  # the instance's class: as ``self.`` (#32)
            head = "self"
        if head in ("self", "cls") and tail.startswith("__class__."):
            tail = tail[len("__class__.") :]
        if head in ("self", "cls", "super()") and tail:
            if not cls:
                return None
            return self.method(f"{module}.{cls}", tail.split(".")[0], skip_self=head == "super()")
        local = f"{module}.{ref}"
        if local in self.removed:
            return local
        if src.is_top_level(head):
            return self._in_module(module, ref.split("."), 0)
        return self._through_imports(src, ref.split("."), 0)

    def method(self, cls_id: str, name: str, skip_self: bool = False, depth: int = 0) -> str | None:
        """``name`` looked up on a class and its in-repo bases (depth-first, like a simple MRO)."""
        if depth > 10:
            return None
        module, qual = self.split(cls_id)
        src = self.source(module) if module else None
        if src is None:
            return None
        if not skip_self:
            method_id = f"{cls_id}.{name}"
            if method_id in self.removed or method_id in self.bindings:
                return method_id
            if src.defines(f"{qual}.{name}"):
                return method_id
        try:
            src.ensure([qual])  # the bases are in the class statement
        except SourceError:
            return None
        if not skip_self and f"{qual}.{name}" in src.constants():  # a class attribute (#32)
            return f"{cls_id}.{name}"
        for base in src.classes().get(qual, ()):
            base_head = base.split(".")[0]
            if src.is_class(base_head):
                base_id: str | None = f"{module}.{base}"
            else:
                base_id = self._through_imports(src, base.split("."), 0)
            if base_id:
                found = self.method(base_id, name, depth=depth + 1)
                if found:
                    return found
        return None

    def lineage(self, cls_id: str, depth: int = 0) -> Iterator[str]:
        """A class and its in-repo bases, depth first (each may repeat in a diamond)."""
        yield cls_id
        module, qual = self.split(cls_id)
        src = self.source(module) if module and depth < 10 else None
        if src is None:
            return
        try:
            src.ensure([qual])  # the bases are in the class statement
        except SourceError:
            return
        for base in src.classes().get(qual, ()):
            if src.is_class(base.split(".")[0]):
                yield from self.lineage(f"{module}.{base}", depth + 1)
            else:
                base_id = self._through_imports(src, base.split("."), 0)
                if base_id:
                    yield from self.lineage(base_id, depth + 1)

    def split(self, id_: str) -> tuple[str, str]:
        """``pkg.mod.Class.meth`` -> (``pkg.mod``, ``Class.meth``): the longest module prefix."""
        parts = id_.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                return module, ".".join(parts[cut:])
        return "", id_

    def is_class(self, id_: str) -> bool:
        module, qual = self.split(id_)
        src = self.source(module) if module else None
        return src is not None and src.is_class(qual)


@dataclass(frozen=True)
class Impact:
    roots: tuple[str, ...]  # the changed ids at the start of the chains
    via: tuple[str, ...]  # changed id, ..., this function


def impacted(
    project: Project,
    changed: Iterable[str],
    depth: int,
    readers: dict[str, set[str]] | None = None,
) -> dict[str, Impact]:
    """Function id -> how a change reaches it, for functions not themselves in ``changed``.

    ``depth`` counts the public callers on the way where the scope widens: a private helper
    (``_do_links``, ``Markdown._run_span_gamut``), a module-level binding, or the only public
    caller of its callee is a step that costs nothing, as a library's public function often
    reaches its change through a long chain of them, and such a step adds one function to the
    scope, not many (#32). Free steps are still bounded (``_PRIVATE_ROUNDS`` rounds beyond
    ``depth``).
    ``readers``: reader id -> the changed data files it reads (``data_files.py``), reached in
    the first round."""
    files = {f for fs in (readers or {}).values() for f in fs}
    changed = set(changed) | files
    chains: dict[str, tuple[str, ...]] = {c: (c,) for c in changed}
    roots: dict[str, set[str]] = {c: {c} for c in changed}
    spent: dict[str, int] = dict.fromkeys(changed, 0)  # the public callers on the way
    frontier = set(changed) if depth > 0 else set()
    result: dict[str, Impact] = {}
    deferred: dict[str, set[str]] = {}  # reached by name alone (by_name.py): taken last
    for _ in range(depth + _PRIVATE_ROUNDS):
        if frontier:
            hits = _round(project, frontier, files, changed, readers)
            for caller in [c for c, t in hits.items() if all((c, x) in project.named for x in t)]:
                deferred.setdefault(caller, set()).update(hits.pop(caller))
        elif deferred:  # where nothing else reached them, their way is the name
            hits, deferred = deferred, {}
        else:
            break
        frontier = set()
        public = _public_callers(project, hits, chains)
        for caller, callees in sorted(hits.items()):
            if caller in chains:
                continue
            callee = min(
                callees,
                key=lambda c: (spent[c], (caller, c) not in project.triggered, len(chains[c]), c),
            )
            # the only public caller of its callee widens nothing: a free step, as a private
            # helper is (a chain of public wrappers, ``l1 -> l2 -> ... -> l5``, #32)
            free = _free_step(project, caller) or public.get(callee) == 1
            spent[caller] = spent[callee] + (not free)
            if spent[caller] > depth:
                continue
            # by name alone, or through the state an instance was built with: said on the way
            way = project.named.get((caller, callee)) or project.instances.way(caller, callee)
            chains[caller] = (*chains[callee][:-1], chains[callee][-1] + way, caller)
            roots[caller] = set().union(*(roots[c] for c in callees))
            if caller not in project.bindings:
                result[caller] = Impact(tuple(sorted(roots[caller])), chains[caller])
            frontier.add(caller)  # at the depth, a sole caller above it is still a free step
    return result


def _round(
    project: Project,
    frontier: set[str],
    files: set[str],
    changed: set[str],
    readers: dict[str, set[str]] | None,
) -> dict[str, set[str]]:
    """Caller id -> the targets of ``frontier`` it reaches (one round of ``impacted``)."""
    code = frontier - files
    hits = _callers(project, code, target_names(project, code, changed)) if code else {}
    for reader, read in (readers or {}).items() if frontier & files else ():
        hits.setdefault(reader, set()).update(read)
    for target in sorted(code):  # a class that picks its methods at run time (#32)
        for dispatcher in instance_users(project, target, hits, changed):  # construction.py
            hits.setdefault(dispatcher, set()).add(target)
        for table in registrations(project, target):  # a table that holds it (#32)
            project.bindings.add(table)
            hits.setdefault(table, set()).add(target)
        for importer in importers(project, target):  # __import__('pkg.x%03x' % n)
            hits.setdefault(importer, set()).add(target)
    for target in sorted(code & changed):  # len(x), x == y on a value of no known class
        for user, way in operator_users(project, target):
            if target not in hits.get(user, ()) or (user, target) in project.named:
                hits.setdefault(user, set()).add(target)
                project.named.setdefault((user, target), way)  # taken last, as by name
    return hits


def _public_callers(
    project: Project, hits: dict[str, set[str]], chains: dict[str, tuple[str, ...]]
) -> dict[str, int]:
    """Callee -> how many new public callers (neither private nor bindings) reach it."""
    out: dict[str, int] = {}
    for caller, callees in hits.items():
        if caller not in chains and not _free_step(project, caller):
            for callee in callees:
                out[callee] = out.get(callee, 0) + 1
    return out


def _free_step(project: Project, fid: str) -> bool:
    """A step that ``impact_depth`` does not count: a binding, or a private name (a part of
    the id after the module starts with ``_``, a special method's ``__x__`` aside)."""
    if fid in project.bindings:
        return True
    _, qual = project.split(fid)
    return any(p.startswith("_") and not p.endswith("__") for p in qual.split("."))


def _callers(project: Project, targets: set[str], names: Names) -> dict[str, set[str]]:
    candidates = project.candidates(names)
    project.load(mf for mf, _ in candidates)
    return _hits(project, targets, names, candidates)


def _hits(
    project: Project,
    targets: set[str],
    names: Names,
    candidates: list[tuple[ModuleFile, set[bytes]]],
) -> dict[str, set[str]]:
    """Caller id -> the targets it reaches, among the functions of ``candidates`` (and the
    module-level names bound to a use of one: ``Project.bindings``)."""
    hits: dict[str, set[str]] = {}
    wanted = names.words()
    method_names = names.methods_str
    members = {t for t in targets if enum_member(project, t)}
    precise: set[tuple[str, str]] = set()  # (caller, target) reached otherwise than by name
    for mf, here in candidates:
        module = mf.module
        src = project.source(module)
        if src is None:
            continue
        words = {w.decode() for w in here & wanted}
        # ``from pkg.a import helper as h`` is used as ``h``
        words |= {local for local, target in src.imports() if target.rpartition(".")[2] in words}
        for line, ref, defs in src.references(words):
            cls = next((d.cls for d in reversed(defs) if d.cls), None)
            reached = list(_targets(project, module, src, cls, ref, defs[0]))
            resolved = targets.intersection(reached)
            if members and reached and not resolved:  # ``Level[name]``, ``Level(5)`` (#32)
                resolved = {t for t in members if t.rpartition(".")[0] == reached[0]}
            found, way = set(resolved), ""
            method = ref.rpartition(".")[2]
            if method in method_names and not resolved:
                # not a name it resolves (or ``Cls(...).expand`` beside a function ``expand``):
                # a method of an instance it builds or holds (#32)
                text = def_text(src, defs[0])
                owners = names.methods[method.encode()]
                found.update(instance_targets(project, module, cls, ref, text, owners, targets))
                if not found and method.encode() in names.loose:  # by_name.py
                    found.update(by_name(project, module, src, cls, ref, text, targets))
                    way = f" (by name: {ref})"
            special = any(is_special(t.rpartition(".")[2]) for t in resolved)
            outline = def_text(src, defs[0]) if special else ""
            for target in targets.intersection(found):
                for d in defs:
                    fid = f"{module}.{d.qual}"
                    if fid != target:
                        hits.setdefault(fid, set()).add(target)
                        note_way(project.named, precise, (fid, target), way)
                        if outline and triggered(target, outline):  # the special it runs
                            project.triggered.add((fid, target))
            attr = attribute_binding(src, line) if cls and resolved else None
            for target in resolved if attr else ():  # ``self.parse = _parse`` (#32)
                project.bindings.add(f"{module}.{cls}.{attr}")
                hits.setdefault(f"{module}.{cls}.{attr}", set()).add(target)
        for bound, target in module_bindings(project, module, src, words, targets, names.methods):
            project.bindings.add(bound)  # a partial, a wrapper, a table: not a function (#32)
            hits.setdefault(bound, set()).add(target)
    return hits


def _targets(
    project: Project, module: str, src: SourceFile, cls: str | None, ref: str, outer: Def
) -> Iterator[str]:
    found = project.resolve_in(module, cls, ref)
    # an import inside the function (a lazy import) is only known once its chunk is parsed
    if found is None and src.has_import_in(outer):
        try:
            src.ensure([outer.qual])
        except SourceError:
            return
        found = project.resolve_in(module, cls, ref)
    if found is not None:
        yield from class_entries(project, found)  # a class: its constructor, ``__call__``


def head_ids(project: Project) -> frozenset[str]:
    """Every function id at head: exact for parsed chunks, from the outline elsewhere."""
    out: set[str] = set()
    project.load(project.modules.values())
    for module, mf in project.modules.items():
        if mf.data is None:
            continue
        try:
            src = mf.source or SourceFile.from_bytes(mf.path, module, mf.data)
        except SourceError:
            continue
        out.update(f.id for f in src.functions().values())
    return frozenset(out)
