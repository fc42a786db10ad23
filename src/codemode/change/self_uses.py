"""The methods that run a changed special method on their own instance (#32).

A special method runs without its name being written: ``str(self)``, ``f"{self}"``, ``self ==
other``, ``for x in self``, ``len(self)``, ``self[i]``, ``self(x)``. A caller elsewhere
that builds or names the class reaches it through the class name (``reach.class_entries``);
a method of the class itself writes neither, so a change to ``Bag.__iter__`` left
``Bag.total`` (``sum(x for x in self)``) out of scope. Here every method of the class, of
its in-repo bases (a base's ``describe`` calling ``str(self)`` runs the override) and of its
subclasses that inherit the special method, which uses ``self`` as a whole value (anything
but ``self.attr``) is a user of it. Over-approximation (``return self`` runs nothing) costs
only diff time. The report names the way: ``impacted: via Bag.__iter__``; where several
special methods of a class changed, the one the user's code runs (``triggered``: ``for x in
self`` runs ``__iter__``, ``str(Money(3))`` runs ``__str__``), for users of the class's name
too, not the first by name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from codemode.change.reach import def_text, is_special, methods_of, subclasses

if TYPE_CHECKING:
    from codemode.change.impact import Project

# Special methods that using an instance as a value does not run: construction (a class name
# reaches those), attribute access and descriptors.
_NOT_BY_VALUE = frozenset(
    [
        "__init__",
        "__new__",
        "__post_init__",
        "__getattr__",
        "__getattribute__",
        "__setattr__",
        "__delattr__",
        "__get__",
        "__set__",
        "__delete__",
    ]
)
# ``self`` as a whole value in a def's outline (strings blanked): not ``self.attr``, not the
# parameter itself, not a keyword argument's name.
_BARE_SELF = re.compile(r"\bself\b(?!\s*\.)(?!\s*=[^=])")
# ``{self}``, ``{self!r}``, ``{self:>10}`` in an f-string (read from the source: the outline
# blanks strings).
_FORMATTED = re.compile(r"\{\s*self\s*[}!:]")


# What runs a special method, by Python's data model: the syntax or builtin that calls it. Used
# only to say which of a class's changed special methods a user's way goes through (a user of
# the class reaches them all); a special method not listed is said by its name alone.
_TRIGGERS = {
    "__str__": r"\bstr\(|\bformat\(|\bprint\(|%|\{",
    "__format__": r"\bformat\(|\{",
    "__iter__": r"\bfor\b|\bin\b|\blist\(|\btuple\(|\bset\(|\bsorted\(|\biter\(",
    "__len__": r"\blen\(|\bif\b|\bnot\b|\bbool\(",
    "__bool__": r"\bif\b|\bnot\b|\bbool\(|\band\b|\bor\b",
    "__eq__": r"==|!=|\bin\b",
    "__ne__": r"!=",
    "__lt__": r"<|\bsorted\(|\bmin\(|\bmax\(|\.sort\(",
    "__le__": r"<=",
    "__gt__": r">",
    "__ge__": r">=",
    "__getitem__": r"\[",
    "__contains__": r"\bin\b",
    "__hash__": r"\bhash\(|\bset\(|\{",
    "__call__": r"\)\s*\(|\bself\s*\(",  # ``F()(x)``, ``self(x)``
}


def triggered(target: str, text: str) -> bool:
    """Whether ``text`` (a user's outline) writes what runs special method ``target``."""
    pattern = _TRIGGERS.get(target.rpartition(".")[2])
    return pattern is not None and re.search(pattern, text) is not None


def self_users(project: Project, target: str) -> Iterator[str]:
    """The methods that may run special method ``target`` on their own instance."""
    module, qual = project.split(target)
    owner, _, name = qual.rpartition(".")
    if not module or not owner or not is_special(name) or name in _NOT_BY_VALUE:
        return
    owner_id = f"{module}.{owner}"
    if not project.is_class(owner_id):
        return
    heirs = subclasses(project, owner_id, target, dispatching=False)
    for cls_id in dict.fromkeys([*project.lineage(owner_id), *heirs]):
        cls_module, cls_qual = project.split(cls_id)
        src = project.source(cls_module)
        lines = src.text.split("\n") if src is not None else []
        for d in methods_of(src, cls_qual) if src is not None else ():
            fid = f"{cls_module}.{d.qual}"
            text = def_text(src, d)
            head = re.search(r"\)\s*(?:->[^:]*)?:", text)  # past the parameters
            body = text[head.end() :] if head else ""
            raw = lines[d.start - 1 : d.end]
            if fid != target and (
                _BARE_SELF.search(body) or any(_FORMATTED.search(line) for line in raw)
            ):
                if triggered(target, body + "\n".join(raw)):
                    project.triggered.add((fid, target))
                yield fid
