"""What a parsed chunk defines: each function's fingerprint (its normalized AST, docstrings
removed), the classes and their bases, the imports and constants that resolve names.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Any

from codemode.change.chunks import (
    ChunkInfo,
    Function,
)

_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n;]*)"
    r"|import[ \t]+([^\n;]*))",
    re.M,
)


def _sha256(data: bytes) -> str:
    """SHA-256's hex digest from CPython's built-in module (``_sha256``, ``_sha2`` from 3.12):
    ``hashlib`` loads OpenSSL first, ~5 ms of a hook run that fingerprints one function (the
    behaviour diff's). The same digest either way."""
    import importlib

    for name in ("_sha256", "_sha2"):
        try:
            module: Any = importlib.import_module(name)
        except ImportError:
            continue
        return str(module.sha256(data).hexdigest())
    import hashlib  # pragma: no cover - an interpreter built without them

    return hashlib.sha256(data).hexdigest()


# at any indentation: a plain-statement chunk is module scope, even under ``if`` or ``try``
_ASSIGN = re.compile(
    r"^[ \t]*([A-Za-z_][\w \t,]*?)[ \t]*(?::[^\n=]*)?(?:[-+*/%&|^@<>]{1,2})?=(?!=)", re.M
)


def scan_chunk_statements(blanked: str, module: str, is_package: bool) -> ChunkInfo:
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


_CALL_HEADS = ("super()", "type(self)", "type(cls)")


def uses_of(blanked: str, name: str) -> Iterator[tuple[int, str]]:
    """Offsets and dotted spellings (``a.b.name``, ``super().name``, ``type(self).name``) of
    ``name`` as a word."""
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
                    # a call before the dot: ``super().name``, ``type(self).name`` (#32)
                    head = next(
                        (h for h in _CALL_HEADS if blanked[max(0, k - len(h)) : k] == h), ""
                    )
                    if not head:
                        break
                    k -= len(head)
                j = k
            line_start = blanked.rfind("\n", 0, j) + 1
            before = blanked[line_start:j].rstrip()
            if j < i or not before.endswith(("def", "class")):  # not the definition itself
                yield i, blanked[j:i] + name
        i = blanked.find(name, i + n)


def combine_fingerprints(a: str, b: str) -> str:
    return "sha256:" + _sha256(f"{a}\n{b}".encode())


def merge_functions(a: Function, b: Function) -> Function:
    """Two definitions with one id (overloads, property accessors): one combined function."""
    fp = None
    if a.fingerprint is not None and b.fingerprint is not None:
        fp = combine_fingerprints(a.fingerprint, b.fingerprint)
    return Function(
        a.id,
        a.qualname,
        min(a.lineno, b.lineno),
        max(a.end_lineno, b.end_lineno),
        fp,
        a.cls or b.cls,
    )


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
    return "sha256:" + _sha256(text.encode())


# Fields that carry no behaviour: ``kind`` is the u-prefix of a string, ``ctx`` follows from
# the position, type comments are comments. None and empty lists are left out so that a field
# added by a later Python (``type_params`` in 3.12) does not change every fingerprint.
_SKIP_FIELDS = frozenset({"ctx", "kind", "type_comment", "type_ignores"})


_FIELDS: dict[type, tuple[tuple[str, str], ...]] = {}  # node type -> (field, "field=")
# node types whose visit does more than serialize them
_SPECIAL = frozenset(
    {
        ast.Name,
        ast.Constant,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.Import,
        ast.ImportFrom,
        ast.Assign,
        ast.AnnAssign,
        ast.AugAssign,
    }
)


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
        t = type(node)  # ast.parse makes no subclasses: a type test, not isinstance chains
        if t not in _SPECIAL:
            self._generic(node)
        elif t is ast.Name:
            self.out.append(f"Name {node.id}")  # type: ignore[attr-defined]
        elif t is ast.Constant:
            self.out.append(f"Constant {node.value!r}")  # type: ignore[attr-defined]
        elif t is ast.FunctionDef or t is ast.AsyncFunctionDef:
            self._function(node)  # type: ignore[arg-type]
        elif t is ast.ClassDef:
            self._class(node)  # type: ignore[arg-type]
        elif t is ast.Import or t is ast.ImportFrom:
            self._import(node)  # type: ignore[arg-type]
            self._generic(node)
        elif not self.scope:  # an assignment at module level: a constant
            start = len(self.out)
            self._generic(node)
            self._constant(node, "".join(self.out[start:]))  # type: ignore[arg-type]
        elif all(is_class for _, is_class in self.scope):
            # a class attribute (a table, a pattern, a dataclass field): ``Cls.NAME``, read as
            # ``self.NAME``, ``cls.NAME`` or ``Cls.NAME`` (#32)
            start = len(self.out)
            self._generic(node)
            text = "".join(self.out[start:])
            self._constant(node, text, self.scope[-1][0] + ".")  # type: ignore[arg-type]
        else:
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
                    if type(item) is ast.Name:  # the commonest leaf, written in place
                        append(f"Name {item.id},")
                    elif isinstance(item, ast.AST):
                        visit(item)
                        append(",")
                    else:
                        append(f"{item!r},")
                append("],")
            elif isinstance(value, ast.AST):
                vt = type(value)
                if vt is ast.Name:
                    append(f"{label}Name {value.id},")  # type: ignore[attr-defined]
                elif vt is ast.Constant:
                    append(f"{label}Constant {value.value!r},")  # type: ignore[attr-defined]
                else:
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
        self.info.functions[qual] = merge_functions(prev, fn) if prev else fn

    def _class(self, node: ast.ClassDef) -> None:
        qual = self._qual(node.name)
        if all(is_class for _, is_class in self.scope):  # a class local to a function is not
            self.info.classes[qual] = tuple(d for b in node.bases if (d := _dotted(b)))
            # its statement (bases, keywords, decorators) as a constant ``Cls.__class__``: a
            # new base or ``@dataclass(eq=False)`` changes every instance's behaviour (#32)
            start = len(self.out)
            for part in (*node.decorator_list, *node.bases, *node.keywords):
                self.visit(part)
            head = "".join(self.out[start:])
            del self.out[start:]
            self.info.constants[f"{qual}.__class__"] = _sha(head)
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

    def _constant(
        self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, text: str, prefix: str = ""
    ) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        fp = _sha(text)
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name):
                    name = prefix + sub.id
                    prev = self.info.constants.get(name)
                    self.info.constants[name] = combine_fingerprints(prev, fp) if prev else fp


def extract_info(tree: ast.Module, module: str, is_package: bool) -> ChunkInfo:
    return _Extractor(module, is_package).run(tree)
