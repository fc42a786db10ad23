"""What a user of some changed targets must write, for the impact search's prefilter (#32).

A function can reach a target only by writing its name: a function's or a constant's, a
class's (its constructor and special methods), or a method's together with one of its class
family's names (or a factory's that returns one); a method the change itself touched reaches
a call on a value of no known class by its name alone (``by_name.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from codemode.change.by_name import loose_names
from codemode.change.enums import enum_member
from codemode.change.reach import is_special

if TYPE_CHECKING:
    from codemode.change.impact import Project


@dataclass
class Names:
    """What a user of some targets must write: a plain name (a function, a constant, a class
    for its constructor), or a method's name together with one of its class family's names."""

    plain: set[bytes] = field(default_factory=set)
    methods: dict[bytes, set[bytes]] = field(default_factory=dict)
    loose: set[bytes] = field(default_factory=set)  # reached by name alone (by_name.py)

    def words(self) -> set[bytes]:
        return self.plain | set(self.methods)

    @property
    def methods_str(self) -> set[str]:
        return {m.decode() for m in self.methods}


def target_names(project: Project, ids: Iterable[str], touched: set[str]) -> Names:
    """What a user of ``ids`` must write. ``touched``: the ids the change itself touched (the
    methods among them reach a call on a value of no known class by name alone)."""
    names, ids = Names(), list(ids)
    for i in ids:
        module, qual = project.split(i)
        parts = qual.split(".")
        owner = ".".join(parts[:-1])
        if module and owner and project.is_class(f"{module}.{owner}"):
            family = project.family(parts[-2])
            owners = names.methods.setdefault(parts[-1].encode(), set())
            owners |= family | project.factories(parts[-2], family)  # c = make(); c.m() (#32)
            if is_special(parts[-1]) or enum_member(project, i):
                # ``Cls(...)`` runs its constructor, ``a < b`` ``__lt__``, ``Level[name]`` reads
                # a member
                names.plain |= family
        else:
            names.plain.add(parts[-1].encode())
    names.loose = loose_names(project, touched.intersection(ids))
    return names
