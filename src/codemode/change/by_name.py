"""A method called on a receiver whose class the analysis cannot name (#32).

``reach.py`` follows ``x.m()`` where something names ``x``'s class (it was built from it,
annotated with it, assigned from it to an attribute, or the function names the class). What
is left is a value handed in unannotated, an item of a container, a loop variable: ``for o in
objs: o.render()``. Such a call may run any project class's ``render``, so when the change
itself touched a method of that name (not a method it impacts: that would spread by common
names through the whole project), its caller is impacted by the name alone, and its report
says so (``impacted: via Part.render (by name: o.render) -> ...``). A call only: a name read
(``d.is_class``) or handed on as a bound method is not followed. Over-approximation costs only
diff time (a witness still needs a real difference); ``benchmarks/impact_reach_cost.py``
measures what it adds. A name that a builtin type's value has as well (``s.split()``,
``d.get(k)``, ``m.group(1)``) is left out: on a receiver of no known class it is far likelier
that value's.
"""

from __future__ import annotations

import io
import pathlib
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from codemode.change.reach import attribute_receivers, is_special, receivers

if TYPE_CHECKING:
    from codemode.change.functions import SourceFile
    from codemode.change.impact import Project

# The attribute names of the builtin types' values, of ``re``'s pattern and match objects, of
# paths and of open files, read from ``dir()`` of each (so the table follows the running
# Python): the names a call on a value of no known class most often means.
_COMMON = frozenset(
    name
    for kind in (
        str,
        bytes,
        bytearray,
        list,
        dict,
        set,
        frozenset,
        tuple,
        int,
        float,
        complex,
        object,
        type(re.compile("")),
        type(re.match("", "")),
        pathlib.Path,
        io.TextIOWrapper,
        io.BufferedReader,
        io.BytesIO,
        io.StringIO,
    )
    for name in dir(kind)
)


def loose_names(project: Project, methods: Iterable[str]) -> set[bytes]:
    """Of the changed ids ``methods``, the methods of project classes whose names a call on a
    receiver of no known class reaches by name alone: a method's (a def, not a class
    attribute), neither a special method (an operator or a builtin runs those) nor a name
    that the builtin types' values have too."""
    out: set[bytes] = set()
    for method in methods:
        name = method.rpartition(".")[2]
        if name in _COMMON or is_special(name):
            continue
        module, qual = project.split(method)
        owner = qual.rpartition(".")[0]
        if not module or not owner or not project.is_class(f"{module}.{owner}"):
            continue  # a module-level function: its callers name it
        src = project.source(module)
        if src is not None and src.function(qual) is not None:
            out.add(name.encode())
    return out


def unknown_receiver(
    project: Project, module: str, src: SourceFile, cls: str | None, ref: str, text: str
) -> bool:
    """Whether ``ref`` (``x.name``, ``self.x.name``, or ``name`` written after a call or an
    item, ``items[0].name()``), in a function whose outline is ``text``, calls ``name`` on a
    value whose class nothing names: a local or parameter neither built from nor annotated with
    a class, an attribute its class assigns from no class, an item or a call's result. A module,
    an import, ``self``/``cls`` (resolved through the class) and a value of a named class that
    is not the project's (``s: str``) are not."""
    head, _, name = ref.rpartition(".")
    if not head:
        return re.search(r"[)\]]\s*\.\s*" + re.escape(name) + r"\s*\(", text) is not None
    if not re.search(re.escape(ref) + r"\s*\(", text):
        return False  # read, not called: an attribute (``d.is_class``) or a bound method
    first, _, rest = head.partition(".")
    if first in ("self", "cls") and rest and "." not in rest and cls:
        return not any(attribute_receivers(project, module, cls, rest))
    if "." in head or not re.fullmatch(r"[A-Za-z_]\w*", head) or head in ("self", "cls"):
        return False
    if src.is_top_level(head) or any(local == head for local, _ in src.imports()):
        return False
    if re.search(r"^[ \t]*(?:from|import)\b[^\n]*\b" + re.escape(head) + r"\b", text, re.M):
        return False  # imported inside the function: a module
    return not any(receivers(text, head, name))


def by_name(
    project: Project,
    module: str,
    src: SourceFile,
    cls: str | None,
    ref: str,
    text: str,
    targets: set[str],
) -> set[str]:
    """The targets named as ``ref``'s method, where ``ref`` calls it on a value of no known
    class (``unknown_receiver``)."""
    if not unknown_receiver(project, module, src, cls, ref, text):
        return set()
    return {t for t in targets if t.rpartition(".")[2] == ref.rpartition(".")[2]}


def note_way(
    named: dict[tuple[str, str], str],
    precise: set[tuple[str, str]],
    key: tuple[str, str],
    way: str,
) -> None:
    """Remember that caller ``key[0]`` reaches ``key[1]`` by name alone (``way``, its
    spelling), unless another use of it in the caller reaches it otherwise (``way`` empty)."""
    if not way:
        precise.add(key)
        named.pop(key, None)
    elif key not in precise:
        named.setdefault(key, way)
