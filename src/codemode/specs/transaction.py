"""The one way a spec file is changed (#34): ``regen``, ``accept`` and the recording of
behaviour changes each hand ``edit_spec`` their edit, a function from the file's text to its
new text, and nothing else.

As inline-snapshot's ``SourceFile`` owns reading a source file, applying the changes its
callers recorded and writing it back, this owns a spec's round trip, under its lock
(lock.py), so that two runs that edit one spec both land (#11):

1. read the file as it is now (another run may have written since this one looked) and decode
   it, keeping its byte order mark and CRLF line endings (textfile.py): the editors work on
   ``\\n`` text, and a Windows-made spec must diff as the lines the edit changed (#21);
2. apply the caller's edit;
3. parse the very bytes that would be written, as ``check`` will read them: an edit that
   leaves a problem the file did not have (a case that does not load, a file over the size a
   spec may have), or drops a hand-written case, is refused and nothing is written;
4. write atomically (atomic.py): a run that dies midway leaves the old file;
5. read the file back: if it is not what was parsed, the old bytes are put back.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from codemode.atomic import write_atomic
from codemode.errors import FatalError
from codemode.lock import locked
from codemode.specs import bounds, textfile
from codemode.specs.spec_files import parse_spec_bytes
from codemode.specs.types import SpecFile

Edit = Callable[[str], str]
_LINE = re.compile(r"\bline \d+")


class Refused(FatalError):
    """An edit that would leave the spec worse than it was; nothing was written."""

    def __init__(self, rel: str, why: str) -> None:
        super().__init__(
            f"{rel}: the edited spec would no longer load ({why}); nothing was written"
        )
        self.why = why


class Edited(NamedTuple):
    """A spec's text before and after the edit (``\\n`` line endings), and their diff."""

    old: str
    new: str
    diff: str


def edit_spec(path: Path, rel: str, root: Path, edit: Edit, *, dry_run: bool = False) -> Edited:
    """Apply ``edit`` to the spec at ``path`` (``rel`` in the repository at ``root``; created
    when missing) under its lock, and write the result unless ``dry_run``. Raises ``Refused``
    for an edit the spec cannot take, ``OutsideRepository`` for a spec linked out of ``root``."""
    with locked(path, root) as target:
        existed = target.exists()
        raw = _read(target, rel) if existed else b""
        try:
            old, form = textfile.decode(raw)
        except UnicodeDecodeError:  # the loader's message, with the line
            raise Refused(rel, _first(_faults(parse_spec_bytes(raw, path, rel)))) from None
        new = edit(old)
        if new == old:
            return Edited(old, new, "")
        data = textfile.encode(new, form)
        _check(parse_spec_bytes(raw, path, rel), parse_spec_bytes(data, path, rel), data, rel)
        if not dry_run:
            write_atomic(target, data)
            _read_back(target, rel, raw if existed else None, data)
    return Edited(old, new, unified_diff(old, new, rel))


def spec_text(path: Path) -> str:
    """A spec's text as the editors see it (no byte order mark, ``\\n`` line endings); ""
    for a file that does not exist."""
    return textfile.decode(path.read_bytes())[0] if path.is_file() else ""


def unified_diff(old: str, new: str, rel: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{rel}" if old else "/dev/null",
            tofile=f"b/{rel}",
        )
    )


def _read(target: Path, rel: str) -> bytes:
    raw, refused = bounds.read_bounded(target)  # never a FIFO read, nor 1 GB into memory
    if refused is not None:
        raise Refused(rel, refused.message)
    return raw


def _faults(spec: SpecFile) -> dict[str, tuple[str, int | None]]:
    """What the loader objects to in ``spec``, each with its line: keyed without a line, so
    that a problem the edit only moved (``duplicate case id 'a' (first at line 5)``) is the
    same problem."""
    out: dict[str, tuple[str, int | None]] = {}
    found: list[tuple[str, int | None]] = [(p.message, p.line) for p in spec.problems]
    for f in spec.functions:
        found += [(f"{f.id}: {f.error}", f.line)] if f.error else []
        found += [(f"{f.id}[{c.id}]: {c.error}", c.line) for c in f.cases if c.error]
    for what, line in found:
        out.setdefault(_LINE.sub("line", what), (what, line))
    return out


def _first(faults: dict[str, tuple[str, int | None]]) -> str:
    what, line = next(iter(faults.values()))
    return what if line is None else f"line {line}: {what}"


def _check(before: SpecFile, after: SpecFile, data: bytes, rel: str) -> None:
    """Refuse an edit whose bytes would load with a problem ``before`` did not have, or
    without one of its hand-written cases (only generated cases are regen's to drop)."""
    old = _faults(before)
    new = {k: fault for k, fault in _faults(after).items() if k not in old}
    size = bounds.size_problem(len(data))  # load_spec_file refuses it before parsing
    if size is not None:
        new = {size.message: (size.message, None), **new}
    if new:
        raise Refused(rel, _first(new))
    kept = {(f.id, c.id) for f in after.functions for c in f.cases}
    for f in before.functions:
        for c in f.cases:
            if not c.generated and (f.id, c.id) not in kept:
                raise Refused(rel, f"the edit drops the hand-written case {f.id}[{c.id}]")


def _read_back(target: Path, rel: str, old: bytes | None, data: bytes) -> None:
    """The file as written must be the bytes that were parsed; else the old file is put back
    (removed, if there was none) and the run stops."""
    try:
        back, refused = bounds.read_bounded(target)
        why = refused.message if refused is not None else "it reads back different"
    except OSError as exc:
        back, why = b"", f"cannot read it back: {exc.strerror}"
    if back == data:
        return
    if old is None:
        target.unlink(missing_ok=True)
    else:
        write_atomic(target, old)
    raise FatalError(f"{rel}: the edited spec was written but {why}; the old file was put back")
