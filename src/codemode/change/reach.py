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

from codemode.change.chunks import Def

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
    project: Project, module: str, cls: str | None, ref: str, text: str
) -> Iterator[str]:
    """Methods named by ``ref`` called on an instance the function ``text`` builds or is
    handed: ``var.method`` where ``var`` was built from or annotated with a project class,
    or ``method`` written as ``Cls(...).method`` somewhere in ``text``."""
    head, _, name = ref.rpartition(".")
    if not name or "." in head or head in ("self", "cls", "super()"):
        return
    for cls_ref in _receivers(text, head, name):
        found = project.resolve_in(module, cls, cls_ref)
        if found and project.is_class(found):
            method = project.method(found, name)
            if method:
                yield method


def _receivers(text: str, var: str, name: str) -> Iterator[str]:
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
    and of the class's in-repo bases that pick a method at run time."""
    module, qual = project.split(target)
    owner = qual.rpartition(".")[0]
    if not module or not owner or not project.is_class(f"{module}.{owner}"):
        return
    for cls_id in project.lineage(f"{module}.{owner}"):
        cls_module, cls_qual = project.split(cls_id)
        src = project.source(cls_module)
        if src is None:
            continue
        for d in _methods(src, cls_qual):
            fid = f"{cls_module}.{d.qual}"
            if fid != target and dispatches(def_text(src, d)):
                yield fid


def _methods(src: SourceFile, cls_qual: str) -> list[Def]:
    chunk = next((c for c in src.chunks if c.name == cls_qual.split(".")[0]), None)
    if chunk is None:
        return []
    return [d for d in src.local(chunk)[1] if d.cls == cls_qual and not d.is_class]


# A module-level assignment at column 0: ``parse_en = partial(parse, lang="en")``.
_TOP_ASSIGN = re.compile(r"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)", re.M)
_TOP_LINE = re.compile(r"^\S", re.M)


def module_bindings(
    project: Project, module: str, src: SourceFile, words: set[str], targets: set[str]
) -> Iterator[tuple[str, str]]:
    """(``module.NAME``, target) for each module-level name bound to an expression that uses a
    target: a ``functools.partial``, a decorator applied by hand (``fast = cached(slow)``), a
    table of functions. Its users reach the target through it."""
    from codemode.change.extract import _uses

    for chunk in src.chunks:
        if chunk.is_def or not any(w in src.text[chunk.offset : chunk.end_offset] for w in words):
            continue
        blanked, _ = src.local(chunk)
        for name in words:
            for i, dotted in _uses(blanked, name):
                starts = [m.start() for m in _TOP_LINE.finditer(blanked, 0, i + 1)]
                bound = _TOP_ASSIGN.match(blanked, starts[-1]) if starts else None
                if bound is None or bound.end() > i:
                    continue  # not on the right of a module-level assignment
                found = project.resolve_in(module, None, dotted)
                if found in targets:
                    yield f"{module}.{bound.group(1)}", found
