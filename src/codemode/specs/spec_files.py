"""Reading spec files: the bytes, their encoding, and the records, from the project's cache
of parsed spec files when the content was parsed before (parsed_cache.py), else from the
YAML loader (load.py), which this module imports only on a miss: a run whose spec files are
all cached imports neither PyYAML nor the loader."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from codemode.specs.parsed_cache import ParsedSpecs
from codemode.specs.spec_read import SpecRead, read_spec_file
from codemode.specs.types import SpecFile, SpecProblem


def _decode(raw: bytes) -> tuple[str | None, SpecProblem | None]:
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return None, SpecProblem(
            line,
            f"not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); re-save the file as UTF-8",
        )


def parse_spec_read(read: SpecRead, cache: ParsedSpecs | None = None) -> SpecFile:
    """The records of a spec file read before; through ``cache`` when it was parsed before."""
    if read.refused is not None:  # never parsed: the problem is the file's one finding
        return SpecFile(read.path, read.rel, problems=(read.refused,))
    return parse_spec_bytes(read.raw, read.path, read.rel, cache)


def load_spec_file(
    path: Path, root: Path | None = None, cache: ParsedSpecs | None = None
) -> SpecFile:
    """One spec file, checked; through ``cache`` when it was parsed before (parsed_cache)."""
    return parse_spec_read(read_spec_file(path, root), cache)


def load_spec_files(
    paths: Iterable[Path], root: Path, project: Path | None = None
) -> list[SpecFile]:
    """Every spec file of ``paths`` (under ``root``: the project's, or a tree of one side of
    a change), each read back from the cache of parsed spec files of ``project`` (default
    ``root``) when its content was parsed before."""
    cache = ParsedSpecs(project or root)
    return [load_spec_file(p, root, cache) for p in paths]


def parse_spec_bytes(
    raw: bytes, path: Path, rel: str, cache: ParsedSpecs | None = None
) -> SpecFile:
    """A spec file's content read elsewhere (a git object: the old side of a change), checked
    as ``load_spec_file`` checks what it reads."""
    text, problem = _decode(raw)
    if text is None:
        assert problem is not None
        return SpecFile(path, rel, problems=(problem,))
    with _collector_paused():
        if cache is None or cache.folder is None:
            return _parse(text, path, rel)
        key = cache.key(text, rel)
        spec = cache.get(key, path)
        if spec is None:
            spec = _parse(text, path, rel)
            cache.put(key, spec)
        return spec


@contextmanager
def _collector_paused() -> Iterator[None]:
    """A parse (or a read from the cache) allocates a dozen objects per case and frees few of
    them before it returns: the cyclic collector's passes over them, every 700 allocations,
    were ~40% of parsing a 2,000-case file (#36). Nothing there forms a cycle to collect."""
    import gc

    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _parse(text: str, path: Path, rel: str) -> SpecFile:
    from codemode.specs.load import parse_spec_text

    return parse_spec_text(text, path, rel)
