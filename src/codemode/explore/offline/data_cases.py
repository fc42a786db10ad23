"""Which of the tests' data files, and which of their cases, the change is about (#32).

A markup library keeps its tests' inputs in data files, many cases to a file (a spec file of
600 examples between fence lines, a folder of 64 ``.html`` pages): the first files in name
order said nothing about a change to emphasis or to links. The behaviour diff ranks them by
the words of the change instead:

- the change's words: the identifiers on the lines the change wrote in the project's code
  (explore/offline/fresh.py), split at ``_`` and case, and the short string literals there,
  with the characters a pattern escapes (``\\*`` looks for ``*``);
- a file's score: the change's words in its name (each counts ``NAME_WEIGHT``) and in its
  text; a case's: the change's words in its text;
- a file of many cases is split at its separator lines (a line of punctuation, maybe with one
  word: ``````` example``, ``.``, ``---``, that comes back at least twice).

Outside a diff (regen) no line is fresh, nothing is ranked, and the files keep their order.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from collections.abc import Sequence
from pathlib import Path

from codemode.explore.offline.harvest import is_test_file, kept_once, parsed, python_files

NAME_WEIGHT = 3
MAX_WORDS = 200  # of the change: a rewrite of a whole module says little about any one case
_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])")
_SEPARATOR = re.compile(r"^[^\w\s]+(?: ?[A-Za-z]+)?$")
_ESCAPED = re.compile(r"\\(?:\\|([^\w\s]))")  # an escaped backslash escapes nothing after it
# the language's own words say nothing of what the change is about
_COMMON = frozenset(w.lower() for w in [*keyword.kwlist, *dir(builtins), "self", "cls"])
_SHORT = 12  # a literal this short may be what a case holds (``'<a '``, ``'</a>'``)


def change_words(root: Path) -> frozenset[str]:
    """The words of the lines the change wrote in the project's code under ``root``, lower
    case; empty outside a diff. Once per root and run."""
    return kept_once("change-words", str(root), lambda: _change_words(root))  # type: ignore[no-any-return]


def _change_words(root: Path) -> frozenset[str]:
    from codemode.explore.offline import fresh

    out: dict[str, None] = {}
    for rel, path in python_files(root):
        if is_test_file(rel):
            continue
        lines = fresh.lines(path)
        _, tree = parsed(path) if lines else ("", None)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Constant) and _on(node, lines):
                out.update(dict.fromkeys(_literal_words(node.value)))
            elif getattr(node, "lineno", 0) in lines:  # a name, not a comment's prose
                for w in _WORD.findall(_name(node)):
                    if len(w) >= 3 and w.lower() not in _COMMON:
                        out.setdefault(w.lower(), None)
    return frozenset(list(out)[:MAX_WORDS])


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, (ast.arg, ast.keyword)):
        return node.arg or ""
    return ""


def _on(node: ast.expr, lines: frozenset[int]) -> bool:
    """A literal written on one of ``lines`` (a concatenated one spans several)."""
    start = getattr(node, "lineno", 0)
    return any(n in lines for n in range(start, (getattr(node, "end_lineno", 0) or start) + 1))


def _literal_words(value: object) -> list[str]:
    if not isinstance(value, str):
        return []
    words = [m.group(1) for m in _ESCAPED.finditer(value) if m.group(1)]
    if value.strip() and len(value) <= _SHORT and not value.isalnum():
        words.append(value.lower())
    if len(value) <= 40 and re.fullmatch(r"[\w\- ]+", value):  # a key, a name: its words
        words += [w.lower() for w in _WORD.findall(value) if len(w) >= 3]
    return [w for w in words if w not in _COMMON]


def score(text: str, words: frozenset[str], name: str = "") -> int:
    """How many of the change's words ``text`` holds, those of ``name`` weighing more."""
    if not words:
        return 0
    low = text.lower()
    named = {w.lower() for w in _WORD.findall(name)}
    return sum(w in low for w in words) + NAME_WEIGHT * len(named & words)


def cases(path: Path, text: str) -> list[str]:
    """A file of many cases split at its separator lines; [] for a file of one case. Once
    per file and run: every function of the module asks."""
    return list(kept_once("data-cases", str(path), lambda: _cases(text)))


def _cases(text: str) -> list[str]:
    rows = text.splitlines()
    counts: dict[str, int] = {}
    for row in rows:
        if _SEPARATOR.match(row.strip()):
            counts[row.strip()] = counts.get(row.strip(), 0) + 1
    separators = {r for r, c in counts.items() if c >= 2}
    if not separators:
        return []
    out: list[str] = []
    chunk: list[str] = []
    for row in [*rows, next(iter(separators))]:
        if row.strip() in separators:
            case = "\n".join(chunk).strip("\n")
            if case.strip():
                out.append(case + "\n")
            chunk = []
        else:
            chunk.append(row)
    return out


def ranked(items: Sequence[tuple[str, str]], words: frozenset[str], limit: int) -> list[int]:
    """The places of the best ``limit`` of ``items`` ((name, text)) by their score, in their
    order where scores tie; the first ``limit`` when nothing scores."""
    scores = [score(text, words, name) for name, text in items]
    order = sorted(range(len(items)), key=lambda i: -scores[i])
    return order[:limit]


def by_word(texts: Sequence[str], words: frozenset[str], limit: int) -> list[int]:
    """The places of up to ``limit`` of ``texts``: each word of the change in turn takes the
    text where it is densest among those not taken yet, so that each part of a change of
    several gets its cases (a pattern's ``*`` beside a link's many words); a text no word
    is in is never taken."""
    lows = [t.lower() for t in texts]
    queues = []
    for w in sorted(words):
        hits = [
            (-low.count(w) * len(w) / (len(low) + 1), i) for i, low in enumerate(lows) if w in low
        ]
        queues.append([i for _, i in sorted(hits)])
    taken: dict[int, None] = {}
    depth = 0
    while len(taken) < limit and any(depth < len(q) for q in queues):
        for q in queues:
            while depth < len(q) and q[depth] in taken:
                q.pop(depth)
            if depth < len(q) and len(taken) < limit:
                taken[q[depth]] = None
        depth += 1
    return list(taken)
