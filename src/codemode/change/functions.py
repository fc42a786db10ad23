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
import hashlib
import io
import itertools
import re
import tokenize
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

# Comments and string literals; an f-string is kept (its {fields} hold code), see _blank.
_BLANK = re.compile(
    r"#[^\n]*|\"\"\"[\s\S]*?\"\"\"|'\'\'[\s\S]*?'\'\'|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
)
_DEF_LINE = re.compile(r"(?:async[ \t]+)?(def|class)[ \t]+(\w+)")
# Lines at column 0 that continue the statement above rather than start a new one.
_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")


class SourceError(Exception):
    """The file cannot be read as Python; the message is one problem line."""


@dataclass(frozen=True, slots=True)
class Function:
    id: str
    qualname: str
    lineno: int  # the first decorator's line, else the def line
    end_lineno: int
    fingerprint: str | None  # None: known from the outline only, its chunk not parsed
    cls: str | None = None  # qualname of the class whose body defines it


@dataclass(frozen=True, slots=True)
class Def:
    """A def or class found by the outline."""

    qual: str
    is_class: bool
    start: int
    end: int
    cls: str | None  # the class whose body holds it


@dataclass
class ChunkInfo:
    """What one parsed chunk defines; qualnames are module-relative."""

    functions: dict[str, Function] = field(default_factory=dict)
    imports: list[tuple[str, str]] = field(default_factory=list)  # (local name, absolute target)
    stars: list[str] = field(default_factory=list)  # modules star-imported
    constants: dict[str, str] = field(default_factory=dict)  # module-level name -> fingerprint
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # qualname -> bases


@dataclass
class Chunk:
    start: int  # first line, 1-based
    end: int  # last line, inclusive
    is_def: bool  # a top-level def/class (with its decorators); else other statements
    info: ChunkInfo | None = None
    name: str = ""  # the top-level def or class it defines
    offset: int = 0  # of its first character in the text
    end_offset: int = 0  # just past its last character
    local: tuple[str, list[Def]] | None = None  # its outline: blanked text and defs
    scanned: ChunkInfo | None = None  # imports and constant names found without parsing


def module_name(path: str, source_roots: Sequence[str]) -> str | None:
    """``src/pkg/mod.py`` -> ``pkg.mod`` under the first source root that holds the file.

    None when no root holds it or a part is not an identifier (such a file cannot be imported).
    """
    for root in source_roots:
        root = root.strip("/")
        if root in ("", "."):
            rel = path
        elif path.startswith(root + "/"):
            rel = path[len(root) + 1 :]
        else:
            continue
        if not rel.endswith(".py"):
            return None
        parts = rel[:-3].split("/")
        if parts[-1] == "__init__":
            parts.pop()
        if parts and all(p.isidentifier() for p in parts):
            return ".".join(parts)
        return None
    return None


def decode_source(data: bytes) -> str:
    """Decode as Python does: a BOM or a PEP 263 coding cookie, else UTF-8."""
    if b"\0" in data:
        raise SourceError("1: binary content (NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        raise SourceError(f"1: cannot decode: {exc}") from exc


def _blank(match: re.Match[str]) -> str:
    text = match.group()
    if text[0] == "#":
        return ""
    start = match.start()
    prefix = match.string[max(0, start - 2) : start].lower()
    if "f" in prefix and not match.string[max(0, start - 3) : start - 2].isidentifier():
        return text  # an f-string: its fields are code
    return '""' + "\n" * text.count("\n")


def outline(text: str, first_line: int = 1) -> tuple[str, list[Def]]:
    """The text with strings and comments blanked, and its defs and classes, from one scan
    over its lines (so keep ``text`` small: one chunk). A line that starts inside brackets or
    after a backslash continues its statement; any other code line closes the defs indented
    at least as deep, as Python's own indentation does."""
    blanked = _BLANK.sub(_blank, text)
    defs: list[Def] = []
    # indent, qual, is_class, start, cls; a def inside a function is no def of its own
    stack: list[tuple[int, str, bool, int, str | None]] = []
    depth, continued, decorator, last_code = 0, False, 0, first_line
    for n, line in enumerate(blanked.split("\n"), first_line):
        code = line.lstrip()
        if not code:
            continue
        if depth == 0 and not continued:
            indent = len(line) - len(code)
            if "\t" in line[:indent]:
                indent = len(line[:indent].expandtabs())
            while stack and stack[-1][0] >= indent:
                _close(stack, defs, last_code)
            m = _DEF_LINE.match(code)
            if code[0] == "@":
                decorator = decorator or n
            elif m:
                parent = stack[-1] if stack else None
                qual = f"{parent[1]}.{m.group(2)}" if parent else m.group(2)
                cls = parent[1] if parent and parent[2] else None
                stack.append((indent, qual, m.group(1) == "class", decorator or n, cls))
                decorator = 0
            else:
                decorator = 0
        last_code = n
        if "(" in code or ")" in code or "[" in code or "]" in code or "{" in code or "}" in code:
            opened = code.count("(") + code.count("[") + code.count("{")
            depth = max(0, depth + opened - code.count(")") - code.count("]") - code.count("}"))
        continued = code.endswith("\\")
    while stack:
        _close(stack, defs, last_code)
    defs.sort(key=lambda d: d.start)
    return blanked, defs


def _close(stack: list[tuple[int, str, bool, int, str | None]], defs: list[Def], end: int) -> None:
    """Pop the innermost open def; keep it unless a function encloses it."""
    _, qual, is_class, start, cls = stack.pop()
    if all(entry[2] for entry in stack):
        defs.append(Def(qual, is_class, start, end, cls))


# A line at column 0, after its newline: a decorator, a def or class (group 2: the name), a
# clause that continues the statement above (group 3), or any other statement.
_TOP = re.compile(
    r"\n(?:(@)|(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)|(else\b|elif\b|except\b|finally\b)"
    r"|(?=[^\s#)\]}]))"
)


# A second def or class at column 0 inside one chunk: only a merged chunk has one.
_MORE_DEFS = re.compile(r"\n(?:@|(?:async[ \t]+)?(?:def|class)[ \t])")


def _triple_quotes(text: str) -> list[tuple[int, str]]:
    marks: list[tuple[int, str]] = []
    for quote in ('"""', "'''"):  # str.find: many times faster than a regex here
        i = text.find(quote)
        while i >= 0:
            marks.append((i, quote))
            i = text.find(quote, i + 3)
    marks.sort()
    marks.append((len(text) + 2, ""))
    return marks


def split_chunks(text: str) -> list[Chunk]:
    """Top-level chunks from the lines at column 0 outside triple-quoted strings.

    Triple quotes are paired in order (a ``\'\'\'`` inside a ``\"\"\"`` string is text). One
    inside a comment or a one-line string fools the pairing, but only towards fewer
    boundaries, so chunks grow and still parse: the pairing errs on the safe side.
    """
    chunks: list[Chunk] = []
    line, pos = 1, 0
    quotes = _triple_quotes(text)  # positions, in order; a sentinel ends the list
    q, inside = 0, ""  # next quote to pass, and the quote of the string we are in
    decorators_only = False
    for m in _TOP.finditer("\n" + text):  # the leading newline makes line 1 a candidate
        start = m.start()  # in ``text``: the match began one character earlier
        while quotes[q][0] < start:  # walk the quotes up to this line
            if not inside:
                inside = quotes[q][1]
            elif quotes[q][1] == inside:
                inside = ""
            q += 1
        if inside or m.group(3):
            continue  # inside a string, or an else/except clause
        decorator, name = m.group(1), m.group(2)
        is_def = bool(decorator or name)
        if is_def and decorators_only:
            if name:
                chunks[-1].name = name
        elif not is_def and chunks and not chunks[-1].is_def:
            pass  # consecutive plain statements share a chunk
        else:
            line += text.count("\n", pos, start)
            pos = start
            if chunks:
                chunks[-1].end = line - 1
            chunks.append(Chunk(line, line, is_def, None, name or "", start))
        decorators_only = bool(decorator)
    n_lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    if chunks:
        chunks[-1].end = max(chunks[-1].start, n_lines)
        chunks[0].start, chunks[0].offset = 1, 0  # leading comments and blank lines
    else:
        chunks.append(Chunk(1, max(1, n_lines), False))
    for before, after in itertools.pairwise(chunks):
        before.end_offset = after.offset
    chunks[-1].end_offset = len(text)
    return chunks


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
            chunk.scanned = _scan_statements(self.local(chunk)[0], self.module, self.is_package)
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
            chunk.info = _extract(tree, self.module, self.is_package)
            self._changed()

    def _parse_whole(self) -> None:
        try:
            tree = ast.parse(self.text)
        except SyntaxError as exc:
            raise SourceError(f"{exc.lineno or 1}: syntax error: {exc.msg}") from exc
        except ValueError as exc:
            raise SourceError(f"1: {exc}") from exc
        info = _extract(tree, self.module, self.is_package)
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
                    out[qual] = _merge(out[qual], fn) if qual in out else fn
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
                            out[d.qual] = _merge(out[d.qual], fn) if d.qual in out else fn
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
                    out[name] = _combine(out[name], fp) if name in out else fp
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
                chunk.local = (_BLANK.sub(_blank, text), [])  # plain statements, no defs
            elif chunk.name and text.count("def ") + text.count("class ") == 1 and "\\" not in text:
                # one def and nothing nested (the common case): no line scan needed
                blanked = _BLANK.sub(_blank, text)
                end = chunk.start + len(blanked.rstrip().split("\n")) - 1
                head = _DEF_LINE.search(blanked)
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
            found = [(i, dotted) for name in names for i, dotted in _uses(blanked, name)]
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
                    found = _merge(found, fn) if found else fn
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
                if (
                    c.info is None
                    and c.name
                    and _MORE_DEFS.search(self.text, c.offset + 1, c.end_offset)
                ):
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


_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n;]*)"
    r"|import[ \t]+([^\n;]*))",
    re.M,
)
# at any indentation: a plain-statement chunk is module scope, even under ``if`` or ``try``
_ASSIGN = re.compile(
    r"^[ \t]*([A-Za-z_][\w \t,]*?)[ \t]*(?::[^\n=]*)?(?:[-+*/%&|^@<>]{1,2})?=(?!=)", re.M
)


def _scan_statements(blanked: str, module: str, is_package: bool) -> ChunkInfo:
    """Imports, star imports and constant names of blanked plain statements."""
    info = ChunkInfo()
    for m in _IMPORT.finditer(blanked):
        dots, base, names, plain = m.groups()
        if plain is not None:
            for item in plain.replace("\\", " ").split(","):
                target, _, alias = item.strip().partition(" as ")
                target = target.strip()
                if target:
                    local = alias.strip() or target.split(".")[0]
                    info.imports.append((local, target if alias.strip() else local))
            continue
        if dots:
            pkg = _package(module, is_package, len(dots))
            base = f"{pkg}.{base}" if pkg and base else pkg or base
        for item in names.strip("()").replace("\\", " ").split(","):
            name, _, alias = item.strip().partition(" as ")
            name = name.strip()
            if name == "*":
                info.stars.append(base)
            elif name:
                info.imports.append((alias.strip() or name, f"{base}.{name}" if base else name))
    for m in _ASSIGN.finditer(blanked):
        for name in m.group(1).split(","):
            if name.strip().isidentifier():
                info.constants[name.strip()] = ""
    return info


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _uses(blanked: str, name: str) -> Iterator[tuple[int, str]]:
    """Offsets and dotted spellings (``a.b.name``, ``super().name``) of ``name`` as a word."""
    n = len(name)
    i = blanked.find(name)
    while i >= 0:
        after = blanked[i + n : i + n + 1]
        if (i == 0 or not _is_word(blanked[i - 1])) and not (after and _is_word(after)):
            j = i
            while j > 0 and blanked[j - 1] == ".":  # walk back over the dotted prefix
                k = j - 1
                while k > 0 and _is_word(blanked[k - 1]):
                    k -= 1
                if k == j - 1:
                    if blanked[max(0, j - 8) : j - 1] != "super()":
                        break
                    k = j - 8
                j = k
            line_start = blanked.rfind("\n", 0, j) + 1
            before = blanked[line_start:j].rstrip()
            if j < i or not before.endswith(("def", "class")):  # not the definition itself
                yield i, blanked[j:i] + name
        i = blanked.find(name, i + n)


def _combine(a: str, b: str) -> str:
    return "sha256:" + hashlib.sha256(f"{a}\n{b}".encode()).hexdigest()


def _merge(a: Function, b: Function) -> Function:
    """Two definitions with one id (overloads, property accessors): one combined function."""
    fp = None
    if a.fingerprint is not None and b.fingerprint is not None:
        fp = _combine(a.fingerprint, b.fingerprint)
    return Function(
        a.id,
        a.qualname,
        min(a.lineno, b.lineno),
        max(a.end_lineno, b.end_lineno),
        fp,
        a.cls or b.cls,
    )


# -- extraction from a parsed chunk ------------------------------------------------------------


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        type(stmt) is ast.Expr
        and type(stmt.value) is ast.Constant
        and isinstance(stmt.value.value, str)
    )


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is ast.Name:
        parts.append(node.id)
    elif type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "super":
        parts.append("super()")
    else:
        return None
    return ".".join(reversed(parts))


def _package(module: str, is_package: bool, level: int) -> str:
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: max(0, len(parts) - (level - 1))]
    return ".".join(parts)


def _sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


# Fields that carry no behaviour: ``kind`` is the u-prefix of a string, ``ctx`` follows from
# the position, type comments are comments. None and empty lists are left out so that a field
# added by a later Python (``type_params`` in 3.12) does not change every fingerprint.
_SKIP_FIELDS = frozenset({"ctx", "kind", "type_comment", "type_ignores"})
_FIELDS: dict[type, tuple[tuple[str, str], ...]] = {}  # node type -> (field, "field=")


class _Extractor:
    """One pass over a chunk's AST that serializes it (for fingerprints) and, on the way,
    records functions, classes, imports and module-level constants."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.module, self.is_package = module, is_package
        self.out: list[str] = []
        self.info = ChunkInfo()
        self.scope: list[tuple[str, bool]] = []  # (qualname, is_class)

    def run(self, tree: ast.Module) -> ChunkInfo:
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self._import(stmt)  # no fingerprint needs its text
            elif not isinstance(stmt, ast.Expr):  # a bare expression defines nothing
                self.visit(stmt)
        return self.info

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            self.out.append(f"Name {node.id}")
        elif isinstance(node, ast.Constant):
            self.out.append(f"Constant {node.value!r}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._function(node)
        elif isinstance(node, ast.ClassDef):
            self._class(node)
        elif not self.scope and isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            start = len(self.out)
            self._generic(node)
            self._constant(node, "".join(self.out[start:]))
        else:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self._import(node)
            self._generic(node)

    def _generic(self, node: ast.AST, skip_first_stmt: bool = False) -> None:
        append, visit = self.out.append, self.visit
        t = type(node)
        fields = _FIELDS.get(t)
        if fields is None:
            fields = _FIELDS[t] = tuple((n, n + "=") for n in t._fields if n not in _SKIP_FIELDS)
        append(t.__name__ + "(")
        # tokens are grouped to save appends; the joined text is what the fingerprint hashes
        for name, label in fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if type(value) is list:
                if not value:
                    continue
                if skip_first_stmt and name == "body" and _is_docstring(value[0]):
                    value = value[1:]
                append(label + "[")
                for item in value:
                    if isinstance(item, ast.AST):
                        visit(item)
                    else:
                        append(repr(item))
                    append(",")
                append("],")
            elif isinstance(value, ast.AST):
                append(label)
                visit(value)
                append(",")
            else:
                append(f"{label}{value!r},")
        append(")")

    def _qual(self, name: str) -> str:
        return f"{self.scope[-1][0]}.{name}" if self.scope else name

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qual = self._qual(node.name)
        cls = self.scope[-1][0] if self.scope and self.scope[-1][1] else None
        self.scope.append((qual, False))
        start = len(self.out)
        self._generic(node, skip_first_stmt=True)
        # Blank this function's own name (out[start + 1], "name='f'," after "FunctionDef("):
        # a renamed but otherwise identical function keeps its fingerprint. An enclosing
        # function's serialization keeps the name, since renaming an inner def changes it.
        own = self.out[start] + "name=''," + "".join(self.out[start + 2 :])
        self.scope.pop()
        if any(not is_class for _, is_class in self.scope):
            return  # nested in a function: part of it (its serialization is in the enclosing one)
        start_line = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        fn = Function(
            f"{self.module}.{qual}",
            qual,
            start_line,
            node.end_lineno or node.lineno,
            _sha(own),
            cls,
        )
        prev = self.info.functions.get(qual)
        self.info.functions[qual] = _merge(prev, fn) if prev else fn

    def _class(self, node: ast.ClassDef) -> None:
        qual = self._qual(node.name)
        if all(is_class for _, is_class in self.scope):  # a class local to a function is not
            self.info.classes[qual] = tuple(d for b in node.bases if (d := _dotted(b)))
        self.scope.append((qual, True))
        self._generic(node, skip_first_stmt=True)
        self.scope.pop()

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        info = self.info
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    info.imports.append((alias.asname, alias.name))
                else:
                    top = alias.name.split(".")[0]
                    info.imports.append((top, top))
            return
        base = node.module or ""
        if node.level:
            pkg = _package(self.module, self.is_package, node.level)
            base = f"{pkg}.{base}" if pkg and base else pkg or base
        for alias in node.names:
            if alias.name == "*":
                info.stars.append(base)
            else:
                target = f"{base}.{alias.name}" if base else alias.name
                info.imports.append((alias.asname or alias.name, target))

    def _constant(self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, text: str) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        fp = _sha(text)
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name):
                    prev = self.info.constants.get(sub.id)
                    self.info.constants[sub.id] = _combine(prev, fp) if prev else fp


def _extract(tree: ast.Module, module: str, is_package: bool) -> ChunkInfo:
    return _Extractor(module, is_package).run(tree)


def extract_all(path: str, module: str, data: bytes) -> SourceFile:
    """Parse a whole file (``--all``, fingerprints at a ref); raises SourceError."""
    src = SourceFile.from_bytes(path, module, data)
    src.parse_all()
    return src
