"""The functions that import a module of the project by a name they compute (#32): a library
that keeps one table module per block of code points and loads it on demand
(``__import__('pkg.x%03x' % block, ...)``, ``importlib.import_module(f"pkg.codecs.{name}")``,
``import_module("pkg.plugins." + name)``) changes what those functions return when a table
module changes, although no name links the two: a release that edits ``pkg/x01e.py``'s
``data`` reached nothing.

A function is such an importer of module M when its text calls ``__import__`` or
``import_module`` and writes a string literal that starts M's dotted name and stops where the
name is computed: at a ``%`` or ``{`` placeholder, or at the end of a literal ending with a dot
(concatenated); a literal naming M whole counts too. The literal must name at least M's top
package and a dot, so a bare ``"x"`` reaches nothing. Over-approximation (a prefix several
modules share) costs diff time only: a witness still needs a real difference.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codemode.change.impact import Project

_CALLS = (b"__import__", b"import_module")
_IMPORT = re.compile(r"\b(?:__import__|import_module)\s*\(")
# a literal's dotted head, and what ends it: a placeholder, or the closing quote
_HEAD = re.compile(r"""[rbuf]{0,2}(["'])([A-Za-z_]\w*\.[\w.]*?)(%|\{|\1)""")


def importers(project: Project, target: str) -> Iterator[str]:
    """The project's functions that may import the module of ``target`` (a changed function
    or module-level name) by a computed name."""
    module, _ = project.split(target)
    if not module:
        return
    for fid, heads in _importing(project).items():
        if any(_names(head, ends, module) for head, ends in heads):
            yield fid


def _names(head: str, ends: str, module: str) -> bool:
    if ends in "%{":
        return module.startswith(head) and module != head
    if head.endswith("."):
        return module.startswith(head)
    return module == head


def _importing(project: Project) -> dict[str, list[tuple[str, str]]]:
    """Function id -> the dotted heads of its string literals (with what ends each), for the
    functions that call ``__import__`` or ``import_module``; read once per analysis."""
    if project.dynamic_imports is not None:
        return project.dynamic_imports
    found: dict[str, list[tuple[str, str]]] = {}
    for module in project.mentions(set(_CALLS)):
        src = project.source(module)
        if src is None or not _IMPORT.search(src.text):
            continue
        lines = src.text.split("\n")
        for chunk in src.chunks:
            for d in src.local(chunk)[1] if chunk.is_def else ():
                if d.is_class:
                    continue
                text = "\n".join(lines[d.start - 1 : d.end])
                heads = [(m.group(2), m.group(3)) for m in _HEAD.finditer(text)]
                if heads and _IMPORT.search(text):
                    found.setdefault(f"{module}.{d.qual}", []).extend(heads)
    project.dynamic_imports = found
    return found
