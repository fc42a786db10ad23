"""An enum's members are read through their class (#32): ``Level[name]``, ``Level(5)``, ``for m
in Level`` reach a member without writing its name, so the impact analysis treats a member of
a project enum as it treats a special method: whoever writes the class reaches it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codemode.change.impact import Project

# The standard library's enum bases: a member of such a class is read through the class
# itself (``Level[name]``, ``Level(5)``, ``for m in Level``), never by its own name.
_ENUM_BASES = frozenset(["Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"])


def enum_member(project: Project, target: str) -> bool:
    """Whether ``target`` is a class attribute of an enum class of the project."""
    owner, _, _ = target.rpartition(".")
    module, qual = project.split(target)
    src = project.source(module) if module else None
    if src is None or qual not in src.constants() or not project.is_class(owner):
        return False
    for cls_id in project.lineage(owner):
        where, cls_qual = project.split(cls_id)
        there = project.source(where) if where else None
        bases = there.classes().get(cls_qual, ()) if there is not None else ()
        if any(b.rpartition(".")[2] in _ENUM_BASES for b in bases):
            return True
    return False
