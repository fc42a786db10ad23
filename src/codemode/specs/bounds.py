"""Budgets for spec files, which anyone who opens a pull request can write (#11).

A spec is small: a few hundred cases of plain data. What is not (a 500-byte alias bomb that
expands to gigabytes, flow nesting deep enough to overflow the C parser's stack, an integer
Python refuses to parse, an expression the sandbox chokes on) is refused here with the file
and line, before anything is built from it, so it is one problem of its file or case and never
a hang, a crash or an exit 3 for the whole run. Nesting, aliases and integers are checked
while the document is composed (specs/compose.py), in the same pass.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import TYPE_CHECKING

# The records only where a problem is built: reading a spec file's bytes (every hook run) does
# not import dataclasses (tests/core/test_light_imports.py).
if TYPE_CHECKING:
    from codemode.specs.types import SpecProblem

MAX_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 100  # nesting of YAML collections; a spec needs about ten
MAX_NODES = 500_000  # YAML nodes once every alias is expanded
MAX_INT_DIGITS = 4_000  # below Python's int/str limit (4,300 digits since 3.11)
MAX_ASSERTION_CHARS = 4_000
MAX_TYPE_CHARS = 1_000


def size_problem(size: int) -> SpecProblem | None:
    if size <= MAX_BYTES:
        return None
    from codemode.specs.types import SpecProblem

    return SpecProblem(
        None,
        f"the file is {size / 1e6:.1f} MB, over the {MAX_BYTES // (1024 * 1024)} MB a spec file "
        "may hold; split it into several spec files",
    )


def read_bounded(path: Path) -> tuple[bytes, SpecProblem | None]:
    """The file's bytes, or a problem when it is no regular file (a symlink to /dev/zero, a
    FIFO would block) or holds more than MAX_BYTES; OSError when it cannot be read."""
    if not stat.S_ISREG(path.stat().st_mode):
        from codemode.specs.types import SpecProblem

        return b"", SpecProblem(
            None, "not a regular file (a device, FIFO or socket?); a spec is a YAML file"
        )
    with path.open("rb") as f:
        raw = f.read(MAX_BYTES + 1)
    return raw, size_problem(len(raw) if len(raw) <= MAX_BYTES else path.stat().st_size)


def too_deep(line: int | None) -> SpecProblem:
    from codemode.specs.types import SpecProblem

    return SpecProblem(
        line,
        f"values nest more than {MAX_DEPTH} levels deep; a spec's data nests a few levels, "
        "flatten it or move it into a fixture",
    )


def expression_problem(key: str, text: str | None) -> str | None:
    """An ``assertion:`` or ``type:`` too long to parse safely (ast recursion, the sandbox)."""
    limit = MAX_ASSERTION_CHARS if key == "assertion" else MAX_TYPE_CHARS
    if text is None or len(text) <= limit:
        return None
    return f"the {key} is {len(text):,} characters, over the {limit:,} allowed; " + (
        "split it into several evaluators" if key == "assertion" else "name a simpler type"
    )
