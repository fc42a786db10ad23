"""Every function and method of a module, by dotted id, with a fingerprint and its references.

Ids are ``pkg.mod.Class.method`` (nested functions ``pkg.mod.outer.inner``, without
``<locals>``). Definitions that share an id (``@overload`` stubs and their implementation, a
property's getter/setter/deleter, a conditional redefinition) are one function whose fingerprint
combines them all. A fingerprint is the sha256 of the normalized AST with docstrings removed and
the function's own name blanked, so comments, docstrings and formatting change nothing and a
renamed-but-identical function keeps its fingerprint.

Parsing is the expensive part of a diff (about 1-2 ms per module), so a ``SourceFile`` splits its
text into top-level chunks with a line scan and parses a chunk only when asked: the chunks a hunk
touches, the chunks that mention a changed name, the import chunks. A chunk that does not parse on
its own (the line scan cut through a multi-line string, say) makes the whole file parse instead,
which is always correct.
"""

from __future__ import annotations

import ast
import hashlib
import io
import re
import tokenize
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

_DEF_KINDS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Lines at column 0 that continue the statement above rather than start a new one.
_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b|[)\]}]")
_DEF_HEAD = re.compile(r"(?:async[ \t]+)?def[ \t]|class[ \t]|@")
_DEF_SCAN = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", re.M)


class SourceError(Exception):
    """The file cannot be read as Python; the message is one problem line."""


@dataclass(frozen=True, slots=True)
class Function:
    id: str
    qualname: str
    lineno: int
    end_lineno: int
    fingerprint: str | None  # None: a skeleton from the line scan, its chunk not parsed yet
    refs: frozenset[str] = frozenset()  # dotted names it reads or calls, as written
    cls: str | None = None  # qualname of the class whose body defines it (for self./super())


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
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        raise SourceError(f"cannot decode: {exc}") from exc


def _split(lines: Sequence[str]) -> list[Chunk]:
    chunks: list[Chunk] = []
    decorators_only = False
    for n, line in enumerate(lines, 1):
        if not line or line[0] in " \t\r\n#\f" or _CONTINUATION.match(line):
            continue
        is_def = bool(_DEF_HEAD.match(line))
        if is_def and decorators_only:
            decorators_only = line.startswith("@")
            continue  # the def under its decorators
        if not is_def and chunks and not chunks[-1].is_def:
            continue  # consecutive plain statements share a chunk
        if chunks:
            chunks[-1].end = n - 1
        chunks.append(Chunk(n, n, is_def))
        decorators_only = line.startswith("@")
    if chunks:
        chunks[-1].end = len(lines)
    else:
        chunks.append(Chunk(1, max(1, len(lines)), False))
    if chunks[0].start > 1:  # leading comments and blank lines
        chunks[0].start = 1
    return chunks


class SourceFile:
    """One side of one file: its text, chunks, and what the parsed chunks define."""

    def __init__(self, path: str, module: str, text: str) -> None:
        self.path = path
        self.module = module
        self.is_package = path.endswith("__init__.py")
        self.lines = text.splitlines(keepends=True)
        self.chunks = _split(self.lines)
        self._whole = False

    @classmethod
    def from_bytes(cls, path: str, module: str, data: bytes) -> SourceFile:
        if b"\0" in data:
            raise SourceError("binary content (NUL bytes)")
        return cls(path, module, decode_source(data))

    # -- parsing on demand ------------------------------------------------------------------
    def parse_lines(self, lines: Iterable[int]) -> None:
        """Parse every chunk that holds one of ``lines`` (and the chunks without defs)."""
        wanted = set(lines)
        self.parse_chunks(
            c for c in self.chunks if not c.is_def or any(c.start <= n <= c.end for n in wanted)
        )

    def parse_all(self) -> None:
        self.parse_chunks(self.chunks)

    def parse_chunks(self, chunks: Iterable[Chunk]) -> None:
        for chunk in list(chunks):
            if chunk.info is not None:
                continue
            source = "\n" * (chunk.start - 1) + "".join(self.lines[chunk.start - 1 : chunk.end])
            try:
                tree = ast.parse(source)
            except (SyntaxError, ValueError):
                self._parse_whole()  # raises SourceError if the file itself is broken
                return
            chunk.info = _extract(tree, self.module, self.is_package)

    def _parse_whole(self) -> None:
        if self._whole:
            return
        try:
            tree = ast.parse("".join(self.lines))
        except SyntaxError as exc:
            raise SourceError(f"{exc.lineno or 1}: syntax error: {exc.msg}") from exc
        except ValueError as exc:  # e.g. NUL bytes
            raise SourceError(f"1: {exc}") from exc
        self._whole = True
        self.chunks = [Chunk(1, max(1, len(self.lines)), False, _extract(tree, self.module, self.is_package))]

    def chunks_mentioning(self, names: Iterable[str]) -> list[Chunk]:
        names = [n for n in names if n]
        if not names:
            return []
        pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")
        return [
            c
            for c in self.chunks
            if c.info is None and pattern.search("".join(self.lines[c.start - 1 : c.end]))
        ]

    # -- what it defines ----------------------------------------------------------------------
    def infos(self) -> Iterator[ChunkInfo]:
        return (c.info for c in self.chunks if c.info is not None)

    def functions(self) -> dict[str, Function]:
        """Every function; those in unparsed chunks are skeletons (fingerprint None)."""
        out: dict[str, Function] = {}
        for chunk in self.chunks:
            parts = chunk.info.functions if chunk.info else self._scan(chunk)
            for qual, fn in parts.items():
                out[qual] = _merge(out[qual], fn) if qual in out else fn
        return out

    def _scan(self, chunk: Chunk) -> dict[str, Function]:
        """Function qualnames of an unparsed chunk by indentation (no parse, no fingerprint)."""
        text = "".join(self.lines[chunk.start - 1 : chunk.end])
        out: dict[str, Function] = {}
        stack: list[tuple[int, str]] = []
        for m in _DEF_SCAN.finditer(text):
            indent = len(m.group(1).expandtabs())
            while stack and stack[-1][0] >= indent:
                stack.pop()
            qual = f"{stack[-1][1]}.{m.group(3)}" if stack else m.group(3)
            stack.append((indent, qual))
            if m.group(2) == "def" and qual not in out:
                line = chunk.start + text.count("\n", 0, m.start())
                out[qual] = Function(f"{self.module}.{qual}", qual, line, chunk.end, None)
        return out

    def imports(self) -> list[tuple[str, str]]:
        return [i for info in self.infos() for i in info.imports]

    def stars(self) -> list[str]:
        return [s for info in self.infos() for s in info.stars]

    def constants(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for info in self.infos():
            for name, fp in info.constants.items():
                out[name] = _combine(out[name], fp) if name in out else fp
        return out

    def classes(self) -> dict[str, tuple[str, ...]]:
        return {q: b for info in self.infos() for q, b in info.classes.items()}

    def ensure(self, quals: Iterable[str]) -> None:
        """Parse every chunk that defines one of ``quals`` (all parts of an overload set)."""
        wanted = set(quals)
        self.parse_chunks(
            c for c in self.chunks if c.info is None and not wanted.isdisjoint(self._scan(c))
        )


def _combine(a: str, b: str) -> str:
    return "sha256:" + hashlib.sha256(f"{a}\n{b}".encode()).hexdigest()


def _merge(a: Function, b: Function) -> Function:
    """Two definitions with one id (overloads, property accessors): one combined function."""
    fp = None if a.fingerprint is None or b.fingerprint is None else _combine(a.fingerprint, b.fingerprint)
    return Function(
        a.id,
        a.qualname,
        min(a.lineno, b.lineno),
        max(a.end_lineno, b.end_lineno),
        fp,
        a.refs | b.refs,
        a.cls or b.cls,
    )


# -- extraction from a parsed chunk ------------------------------------------------------------


def _strip_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, (*_DEF_KINDS, ast.ClassDef, ast.Module)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                del body[0]


def _fingerprint(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    name = node.name
    node.name = ""  # a renamed but otherwise identical function keeps its fingerprint
    try:
        dump = ast.dump(node, annotate_fields=False, include_attributes=False)
    finally:
        node.name = name
    return "sha256:" + hashlib.sha256(dump.encode()).hexdigest()


def _dotted(node: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    ):
        parts.append("super()")
    else:
        return None
    return ".".join(reversed(parts))


def _refs(node: ast.AST) -> frozenset[str]:
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            out.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            dotted = _dotted(sub)
            if dotted:
                out.add(dotted)
    return frozenset(out)


def _package(module: str, is_package: bool, level: int) -> str:
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: max(0, len(parts) - (level - 1))]
    return ".".join(parts)


def _extract(tree: ast.Module, module: str, is_package: bool) -> ChunkInfo:
    _strip_docstrings(tree)
    info = ChunkInfo()
    for node in ast.walk(tree):  # imports anywhere: function-level lazy imports count too
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    info.imports.append((alias.asname, alias.name))
                else:
                    top = alias.name.split(".")[0]
                    info.imports.append((top, top))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = _package(module, is_package, node.level)
                base = f"{pkg}.{base}" if pkg and base else pkg or base
            for alias in node.names:
                if alias.name == "*":
                    info.stars.append(base)
                else:
                    target = f"{base}.{alias.name}" if base else alias.name
                    info.imports.append((alias.asname or alias.name, target))
    _walk(tree.body, "", None, module, info)
    return info


def _children(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """Statement lists nested in a compound statement that is not a def or class."""
    for attr in ("body", "orelse", "finalbody"):
        value = getattr(node, attr, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield value
    for handler in getattr(node, "handlers", ()):
        yield handler.body
    for case in getattr(node, "cases", ()):
        yield case.body


def _walk(body: list[ast.stmt], prefix: str, cls: str | None, module: str, info: ChunkInfo) -> None:
    for node in body:
        if isinstance(node, _DEF_KINDS):
            qual = f"{prefix}.{node.name}" if prefix else node.name
            end = node.end_lineno or node.lineno
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            fn = Function(f"{module}.{qual}", qual, start, end, _fingerprint(node), _refs(node), cls)
            prev = info.functions.get(qual)
            info.functions[qual] = _merge(prev, fn) if prev else fn
            _walk(node.body, qual, None, module, info)
        elif isinstance(node, ast.ClassDef):
            qual = f"{prefix}.{node.name}" if prefix else node.name
            info.classes[qual] = tuple(d for b in node.bases if (d := _dotted(b)))
            _walk(node.body, qual, qual, module, info)
        else:
            if not prefix:
                _constant(node, info)
            for stmts in _children(node):
                _walk(stmts, prefix, cls, module, info)


def _constant(node: ast.stmt, info: ChunkInfo) -> None:
    if isinstance(node, ast.Assign):
        targets: list[ast.expr] = node.targets
        value: ast.AST | None = node.value
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets, value = [node.target], node
    else:
        return
    names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if not names or value is None:
        return
    fp = "sha256:" + hashlib.sha256(ast.dump(value, include_attributes=False).encode()).hexdigest()
    for name in names:
        prev = info.constants.get(name)
        info.constants[name] = _combine(prev, fp) if prev else fp


def extract_all(path: str, module: str, data: bytes) -> SourceFile:
    """Parse a whole file (``--all``, fingerprints at a ref); raises SourceError."""
    src = SourceFile.from_bytes(path, module, data)
    src.parse_all()
    return src
