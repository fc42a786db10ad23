"""Budgets for spec files, which anyone who opens a pull request can write (#11).

A spec is small: a few hundred cases of plain data. What is not (a 500-byte alias bomb that
expands to gigabytes, flow nesting deep enough to overflow the C parser's stack, an integer
Python refuses to parse, an expression the sandbox chokes on) is refused here with the file
and line, before anything is built from it, so it is one problem of its file or case and never
a hang, a crash or an exit 3 for the whole run.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import yaml

from codemode.specs.types import SpecProblem

MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 100  # nesting of YAML collections; a spec needs about ten
MAX_NODES = 500_000  # YAML nodes once every alias is expanded
MAX_INT_DIGITS = 4_000  # below Python's int/str limit (4,300 digits since 3.11)
MAX_ASSERTION_CHARS = 4_000
MAX_TYPE_CHARS = 1_000
# libyaml composes recursively in C: some 25,000 levels overflow an 8 MB stack (a segfault,
# not an exception). A file holding fewer openers than this cannot nest that deep and is
# composed at once; one holding more is first walked as events (iterative in libyaml).
_SAFE_OPENERS = 5_000

_INT_TAG = "tag:yaml.org,2002:int"


def size_problem(size: int) -> SpecProblem | None:
    if size <= MAX_BYTES:
        return None
    return SpecProblem(
        None,
        f"the file is {size / 1e6:.1f} MB, over the {MAX_BYTES // (1024 * 1024)} MB a spec file "
        "may hold; split it into several spec files",
    )


def read_bounded(path: Path) -> tuple[bytes, SpecProblem | None]:
    """The file's bytes, or a problem when it is no regular file (a symlink to /dev/zero, a
    FIFO would block) or holds more than MAX_BYTES; OSError when it cannot be read."""
    if not stat.S_ISREG(path.stat().st_mode):
        return b"", SpecProblem(
            None, "not a regular file (a device, FIFO or socket?); a spec is a YAML file"
        )
    with path.open("rb") as f:
        raw = f.read(MAX_BYTES + 1)
    return raw, size_problem(len(raw) if len(raw) <= MAX_BYTES else path.stat().st_size)


def _too_deep(line: int | None) -> SpecProblem:
    return SpecProblem(
        line,
        f"values nest more than {MAX_DEPTH} levels deep; a spec's data nests a few levels, "
        "flatten it or move it into a fixture",
    )


def depth_problem(text: str, loader_cls: Any) -> SpecProblem | None:
    """Nesting past MAX_DEPTH found from the event stream, before the composer recurses."""
    openers = text.count("[") + text.count("{") + text.count("-") + text.count("?")
    if openers < _SAFE_OPENERS:
        return None
    loader = loader_cls(text)
    depth = 0
    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    return _too_deep(mark.line + 1 if mark is not None else None)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return None  # the composer reports it, with its line
    finally:
        loader.dispose()
    return None


def node_problem(root: yaml.Node) -> SpecProblem | None:
    """Aliases that expand past MAX_NODES, nesting past MAX_DEPTH, integers past MAX_INT_DIGITS.

    The composed graph shares an aliased node wherever it is used, so its expanded size is
    counted once per distinct node (a memo), in time linear in the file.
    """
    size: dict[int, tuple[int, int]] = {}  # node -> (expanded values, expanded height)
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        if depth > MAX_DEPTH:
            return _too_deep(node.start_mark.line + 1)
        if isinstance(node, yaml.ScalarNode):
            if node.tag == _INT_TAG and len(node.value) > MAX_INT_DIGITS:
                return SpecProblem(
                    node.start_mark.line + 1,
                    f"an integer of {len(node.value):,} digits; integers in a spec are limited to "
                    f"{MAX_INT_DIGITS:,} digits (quote it to compare a string)",
                )
            size[id(node)] = (1, 1)
            continue
        children = _children(node)
        if done:
            if any(size[id(c)] == (0, 0) for c in children):
                return SpecProblem(
                    node.start_mark.line + 1,
                    "a value contains itself through an alias; write the data out",
                )
            total = 1 + sum(size[id(c)][0] for c in children)
            height = 1 + max((size[id(c)][1] for c in children), default=0)
            if total > MAX_NODES:
                return SpecProblem(
                    node.start_mark.line + 1,
                    f"aliases expand to more than {MAX_NODES:,} values (an alias bomb?); "
                    "write the data out or use fewer nested aliases",
                )
            if height > MAX_DEPTH:  # aliases inside aliases nest deeper than the text shows
                return _too_deep(node.start_mark.line + 1)
            size[id(node)] = (total, height)
            continue
        if id(node) in size:
            continue
        size[id(node)] = (0, 0)  # a cycle through an alias counts once, never loops
        stack.append((node, depth, True))
        stack.extend((c, depth + 1, False) for c in children if id(c) not in size)
    return None


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def expression_problem(key: str, text: str | None) -> str | None:
    """An ``assertion:`` or ``type:`` too long to parse safely (ast recursion, the sandbox)."""
    limit = MAX_ASSERTION_CHARS if key == "assertion" else MAX_TYPE_CHARS
    if text is None or len(text) <= limit:
        return None
    return f"the {key} is {len(text):,} characters, over the {limit:,} allowed; " + (
        "split it into several evaluators" if key == "assertion" else "name a simpler type"
    )
