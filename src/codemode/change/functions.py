"""Every function and method of a module, by dotted id, with a fingerprint.

Ids are ``pkg.mod.Class.method``. A function nested in a function (``outer.<locals>.inner``)
cannot be imported by an id, so it is no function of its own: its code is part of the
enclosing function's, and a change to it is a change of that function. Definitions that share an id (``@overload`` stubs and their implementation, a
property's getter/setter/deleter, a conditional redefinition) are one function whose fingerprint
combines them all. A fingerprint is the sha256 of the normalized AST with docstrings removed and
the function's own name blanked, so comments, docstrings and formatting change nothing and a
renamed-but-identical function keeps its fingerprint.

Parsing is the expensive part of a diff (1-2 ms per module), so a ``SourceFile`` first splits
its text into top-level chunks (a def or class with its decorators, or a run of other
statements) with one regex pass over the lines at column 0, and parses a chunk only when asked:
the chunks a hunk touches, the other parts of an overload set. A chunk that does not parse on
its own makes the whole file parse instead, which is always correct. For impact, a chunk's
*outline* (its text with strings and comments blanked, and where each def and class starts and
ends, by indentation) finds references and the functions that hold them without a parse, and
a regex over the blanked plain statements finds the imports that resolve them.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Iterable, Iterator
from typing import Any

from codemode.change.chunks import (
    DEF_LINE,
    MORE_DEFS,
    STRINGS_AND_COMMENTS,
    Chunk,
    ChunkInfo,
    Def,
    Function,
    SourceError,
    blank_match,
    decode_source,
    outline,
    split_chunks,
)
from codemode.change.extract import (
    combine_fingerprints,
    extract_info,
    merge_functions,
    scan_chunk_statements,
    uses_of,
)

# A file as plain data (``marshal``): path, module, text, and per chunk its start, end,
# is_def, name, offsets and what it defines (None: not parsed).
_FunctionParts = tuple[str, str, int, int, str | None, str | None]
InfoParts = tuple[
    list[tuple[str, _FunctionParts]],
    list[tuple[str, str]],
    list[str],
    dict[str, str],
    dict[str, tuple[str, ...]],
]
FileParts = tuple[str, str, str, list[tuple[int, int, bool, str, int, int, InfoParts | None]]]


class SourceFile:
    """One side of one file: its text, chunks, and what the parsed chunks define."""

    def __init__(self, path: str, module: str, text: str) -> None:
        self.path = path
        self.module = module
        self.is_package = path.endswith("__init__.py")
        self.text = text
        self.chunks = split_chunks(text)
        self._functions: dict[str, Function] | None = None
        self._parsed: dict[str, Function] | None = None
        self._derived: dict[str, Any] = {}  # what the parsed chunks define; reset by a parse
        self._scanned: list[Chunk] | None = None  # the chunks scan_statements has covered

    def _changed(self) -> None:
        self._functions = self._parsed = None
        self._derived.clear()

    @classmethod
    def from_bytes(cls, path: str, module: str, data: bytes) -> SourceFile:
        return cls(path, module, decode_source(data))

    # -- as plain data (``marshal``), for another process --------------------------------------
    def to_parts(self) -> FileParts:
        """Its text and chunks, with what the parsed ones define; outlines are left out
        (they are recomputed on demand)."""
        chunks = [
            (c.start, c.end, c.is_def, c.name, c.offset, c.end_offset, _info_parts(c.info))
            for c in self.chunks
        ]
        return self.path, self.module, self.text, chunks

    @classmethod
    def from_parts(cls, parts: FileParts) -> SourceFile:
        """The file ``to_parts`` described, as it was (without splitting its text again)."""
        path, module, text, chunks = parts
        self = cls.__new__(cls)
        self.path, self.module, self.text = path, module, text
        self.is_package = path.endswith("__init__.py")
        self.chunks = [
            Chunk(start, end, is_def, _info_from(info), name, offset, end_offset)
            for start, end, is_def, name, offset, end_offset, info in chunks
        ]
        self._functions = self._parsed = self._scanned = None
        self._derived = {}
        return self

    # -- parsing on demand ------------------------------------------------------------------
    def parse_lines(self, lines: Iterable[int]) -> None:
        """Parse every chunk that holds one of ``lines``."""
        wanted = sorted(set(lines))
        self.parse_chunks(c for c in self.chunks if any(c.start <= n <= c.end for n in wanted))

    def parse_statements(self) -> None:
        """Parse the chunks of plain statements: the imports and constants that resolve names."""
        if not self._derived.get("statements"):
            self.parse_chunks(c for c in self.chunks if not c.is_def)
            self._derived["statements"] = True

    def scan_statements(self) -> None:
        """Imports and constant names of the plain-statement chunks by a regex over their
        blanked text: enough to resolve names, at a fraction of a parse. A parse, where one
        happens, takes precedence; constants' fingerprints only ever come from a parse."""
        if self._scanned is self.chunks:  # impact asks once per name it resolves
            return
        fresh = False
        for chunk in self.chunks:
            if chunk.is_def or chunk.info is not None or chunk.scanned is not None:
                continue
            chunk.scanned = scan_chunk_statements(
                self.local(chunk)[0], self.module, self.is_package
            )
            fresh = True
        if fresh:
            self._derived.clear()
        self._scanned = self.chunks  # until a whole-file parse replaces the chunks

    def parse_all(self) -> None:
        self.parse_chunks(self.chunks)

    def parse_chunks(self, chunks: Iterable[Chunk]) -> None:
        for chunk in list(chunks):
            if chunk.info is not None:
                continue
            source = "\n" * (chunk.start - 1) + self.text[chunk.offset : chunk.end_offset]
            try:
                tree = ast.parse(source)
            except (SyntaxError, ValueError):
                self._parse_whole()  # raises SourceError if the file itself is broken
                return
            chunk.info = extract_info(tree, self.module, self.is_package)
            self._changed()

    def _parse_whole(self) -> None:
        try:
            tree = ast.parse(self.text)
        except SyntaxError as exc:
            raise SourceError(f"{exc.lineno or 1}: syntax error: {exc.msg}") from exc
        except ValueError as exc:
            raise SourceError(f"1: {exc}") from exc
        info = extract_info(tree, self.module, self.is_package)
        n_lines = self.text.count("\n") + 1
        self.chunks = [Chunk(1, n_lines, False, info, "", 0, len(self.text))]
        self._changed()

    def ensure(self, quals: Iterable[str]) -> None:
        """Parse the chunks that define ``quals`` (every part of an overload set)."""
        tops = {q.split(".")[0] for q in quals}
        # Every chunk named after a top (an overload set spans several), and the chunk the
        # index holds it in (a def merged into an earlier chunk, see _unparsed_by_name).
        chosen = [c for c in self.chunks if c.info is None and c.name in tops]
        index = self._unparsed_by_name()
        seen = {id(c) for c in chosen}
        chosen += [index[t] for t in tops if t in index and id(index[t]) not in seen]
        self.parse_chunks(chosen)

    # -- what it defines ----------------------------------------------------------------------
    def infos(self) -> Iterator[ChunkInfo]:
        return (c.info for c in self.chunks if c.info is not None)

    def _statement_infos(self) -> Iterator[ChunkInfo]:
        """Parsed chunks, and the scanned ones not parsed (yet)."""
        for c in self.chunks:
            info = c.info or c.scanned
            if info is not None:
                yield info

    def parsed_functions(self) -> dict[str, Function]:
        if self._parsed is None:
            out: dict[str, Function] = {}
            for info in self.infos():
                for qual, fn in info.functions.items():
                    out[qual] = merge_functions(out[qual], fn) if qual in out else fn
            self._parsed = out
        return self._parsed

    def functions(self) -> dict[str, Function]:
        """Every function; those in unparsed chunks come from the outline (fingerprint None)."""
        if self._functions is None:
            out = self.parsed_functions()
            for chunk in self.chunks:
                if chunk.info is None:
                    for d in self.local(chunk)[1]:
                        if not d.is_class:
                            fn = Function(
                                f"{self.module}.{d.qual}", d.qual, d.start, d.end, None, d.cls
                            )
                            out[d.qual] = merge_functions(out[d.qual], fn) if d.qual in out else fn
            self._functions = out
        return self._functions

    def top_names(self) -> set[str]:
        """Names of the top-level defs and classes, parsed or not."""
        out: set[str] | None = self._derived.get("top_names")
        if out is None:
            out = {c.name for c in self.chunks if c.info is None and c.name}
            out.update(self._unparsed_by_name())  # defs under an ``if`` at module level too
            for info in self.infos():
                out.update(q for q in info.functions if "." not in q)
                out.update(q for q in info.classes if "." not in q)
            self._derived["top_names"] = out
        return out

    def imports(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] | None = self._derived.get("imports")
        if out is None:
            out = [i for info in self._statement_infos() for i in info.imports]
            self._derived["imports"] = out
        return out

    def stars(self) -> list[str]:
        out: list[str] | None = self._derived.get("stars")
        if out is None:
            out = [s for info in self._statement_infos() for s in info.stars]
            self._derived["stars"] = out
        return out

    def constants(self) -> dict[str, str]:
        out: dict[str, str] | None = self._derived.get("constants")
        if out is None:
            out = {}
            for info in self.infos():
                for name, fp in info.constants.items():
                    out[name] = combine_fingerprints(out[name], fp) if name in out else fp
            self._derived["constants"] = out
        return out

    def classes(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, tuple[str, ...]] | None = self._derived.get("classes")
        if out is None:
            out = {q: b for info in self.infos() for q, b in info.classes.items()}
            self._derived["classes"] = out
        return out

    # -- references, for impact ---------------------------------------------------------------
    def local(self, chunk: Chunk) -> tuple[str, list[Def]]:
        """A chunk's outline: its text with strings and comments blanked, and its defs."""
        if chunk.local is None:
            text = self.text[chunk.offset : chunk.end_offset]
            if not chunk.is_def and "def " not in text and "class " not in text:
                chunk.local = (
                    STRINGS_AND_COMMENTS.sub(blank_match, text),
                    [],
                )  # plain statements, no defs
            elif chunk.name and text.count("def ") + text.count("class ") == 1 and "\\" not in text:
                # one def and nothing nested (the common case): no line scan needed
                blanked = STRINGS_AND_COMMENTS.sub(blank_match, text)
                end = chunk.start + len(blanked.rstrip().split("\n")) - 1
                head = DEF_LINE.search(blanked)
                is_class = head is not None and head.group(1) == "class"
                chunk.local = (blanked, [Def(chunk.name, is_class, chunk.start, end, None)])
            else:
                chunk.local = outline(text, chunk.start)
        return chunk.local

    def references(self, names: Iterable[str]) -> Iterator[tuple[int, str, list[Def]]]:
        """(line, dotted name as written, enclosing defs outermost first) for each use of one
        of ``names`` inside a function, outside strings and comments: ``helper``,
        ``mod.helper``, ``self.helper``, ``super().helper``."""
        names = sorted(n for n in names if n)
        if not names:
            return
        starts = [c.offset for c in self.chunks]
        hit: set[int] = set()
        for name in names:  # str.find is far faster than a regex over the whole file
            i = self.text.find(name)
            while i >= 0:
                hit.add(bisect.bisect_right(starts, i) - 1)
                i = self.text.find(name, i + len(name))
        for index in sorted(hit):
            chunk = self.chunks[index]
            blanked, defs = self.local(chunk)
            found = [(i, dotted) for name in names for i, dotted in uses_of(blanked, name)]
            for i, dotted in sorted(found):
                line = chunk.start + blanked.count("\n", 0, i)
                enclosing = [d for d in defs if not d.is_class and d.start <= line <= d.end]
                if enclosing:
                    yield line, dotted, enclosing

    def has_import_in(self, d: Def) -> bool:
        chunk = self.chunk_at(d.start)
        return chunk is not None and "import" in self.text[chunk.offset : chunk.end_offset]

    def chunk_at(self, line: int) -> Chunk | None:
        return next((c for c in self.chunks if c.start <= line <= c.end), None)

    def function(self, qual: str) -> Function | None:
        """One function, parsed or outlined, looking into one chunk at most."""
        found = self.parsed_functions().get(qual)
        if found is None:
            chunk = self._unparsed_chunk(qual.split(".")[0])
            for d in self.local(chunk)[1] if chunk else ():
                if d.qual == qual and not d.is_class:
                    fn = Function(f"{self.module}.{d.qual}", d.qual, d.start, d.end, None, d.cls)
                    found = merge_functions(found, fn) if found else fn
        return found

    def defines(self, qual: str) -> bool:
        """Whether a function ``qual`` exists, looking into one chunk at most."""
        if qual in self.parsed_functions():
            return True
        chunk = self._unparsed_chunk(qual.split(".")[0])
        return chunk is not None and any(
            d.qual == qual and not d.is_class for d in self.local(chunk)[1]
        )

    def is_class(self, qual: str) -> bool:
        if qual in self.classes():
            return True
        chunk = self._unparsed_chunk(qual.split(".")[0])
        return chunk is not None and any(
            d.qual == qual and d.is_class for d in self.local(chunk)[1]
        )

    def is_top_level(self, name: str) -> bool:
        """A module-level def, class or constant named ``name``."""
        names: set[str] | None = self._derived.get("top_level")
        if names is None:
            names = set(self.top_names()) | set(self.constants())
            for c in self.chunks:
                if c.scanned is not None and c.info is None:
                    names.update(c.scanned.constants)
            self._derived["top_level"] = names
        return name in names

    def _unparsed_chunk(self, top: str) -> Chunk | None:
        return self._unparsed_by_name().get(top)

    def _unparsed_by_name(self) -> dict[str, Chunk]:
        """Unparsed chunks by the top-level names they define; a chunk of plain statements
        counts once scanned (a def under an ``if`` is a module-level def)."""
        by_name: dict[str, Chunk] | None = self._derived.get("unparsed")
        if by_name is None:
            by_name = {}
            for c in self.chunks:
                if c.info is None and c.name and c.merged is None:
                    # a fact of the chunk's text: asked once, not after every parse
                    c.merged = bool(MORE_DEFS.search(self.text, c.offset + 1, c.end_offset))
                if c.info is None and c.name and c.merged:
                    # A quote the pairing could not place merged later defs into this chunk
                    # (see split_chunks): index every top-level def its outline finds.
                    by_name.setdefault(c.name, c)
                    for d in self.local(c)[1]:
                        if "." not in d.qual:
                            by_name.setdefault(d.qual, c)
                elif c.info is None and c.name:
                    by_name.setdefault(c.name, c)
                elif c.info is None and c.scanned is not None:
                    for d in self.local(c)[1]:
                        if "." not in d.qual:
                            by_name.setdefault(d.qual, c)
            self._derived["unparsed"] = by_name
        return by_name


def _info_parts(info: ChunkInfo | None) -> InfoParts | None:
    if info is None:
        return None
    functions = [
        (q, (f.id, f.qualname, f.lineno, f.end_lineno, f.fingerprint, f.cls))
        for q, f in info.functions.items()
    ]
    return functions, info.imports, info.stars, info.constants, info.classes


def _info_from(parts: InfoParts | None) -> ChunkInfo | None:
    if parts is None:
        return None
    functions, imports, stars, constants, classes = parts
    return ChunkInfo(
        {q: Function(*fields) for q, fields in functions},
        [(local, target) for local, target in imports],
        list(stars),
        dict(constants),
        {q: tuple(b) for q, b in classes.items()},
    )
