"""Reading a spec file's bytes, before any parsing: a run reads each spec file once, decides
from the bytes which functions it names (without YAML), and parses the same bytes if it
matters (#34). Light: a hook run reads every spec file and imports neither the records nor
the loader for it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from codemode import probe
from codemode.specs import bounds

if TYPE_CHECKING:
    from codemode.specs.types import SpecProblem


class SpecRead(NamedTuple):
    path: Path
    rel: str  # the file's place in the project, as reports name it
    raw: bytes  # b"" when ``refused``
    refused: SpecProblem | None = None  # a device, a FIFO, a huge or unreadable file

    def text(self) -> str | None:
        """The content as text, or None when it cannot be decoded (the parse says why)."""
        if self.refused is not None:
            return None
        try:
            return self.raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            return None


def read_spec_file(path: Path, root: Path | None = None) -> SpecRead:
    """The bytes of one spec file, bounded (``bounds.read_bounded``)."""
    rel = path.as_posix()
    if root is not None:
        # the link's own place, not its target's: a spec symlinked elsewhere is still named
        # by where it sits in the project
        here = path.parent.resolve() / path.name
        try:
            rel = here.relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    probe.count("spec-read", rel)
    try:
        raw, refused = bounds.read_bounded(path)
    except OSError as exc:
        from codemode.specs.types import SpecProblem

        return SpecRead(path, rel, b"", SpecProblem(None, f"cannot read: {exc.strerror}"))
    return SpecRead(path, rel, raw, refused)
