"""Inputs found near the function rather than in its own calls: literals the tests pass to
its sibling functions (those of the same module), ``>>>`` examples in the project's text
files and in the module's other docstrings, files the tests read from a data folder next to
them. (Receivers for methods, built the way the tests build them, are found by
``explore/offline/input_pool.py``, which reads a test's rows with ``row_bindings`` as this module does.)

Each source is general: a sibling of the same module takes the same kinds of values more
often than not (a parser and its formatter, ``compare`` and ``match``), and an input that
does not fit is dropped by the annotation filter or judged an incidental wrong-type error.
"""

from __future__ import annotations

import ast
import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from codemode.explore.offline.harvest import (
    SKIP_DIRS,
    Candidate,
    calls_in_file,
    candidate_shape,
    doctest_lines,
    examples_in,
    is_test_file,
    kept_once,
    parsed,
    python_files,
    read_source,
)
from codemode.explore.offline.spread import MAX_READ, spread, value_shape
from codemode.explore.target import TargetInfo

MAX_SIBLING = 40  # calls per function borrowed from its siblings' tests
MAX_DOC_FILES = 120
MAX_DOC_BYTES = 400_000
# pytest's --doctest-glob reads *.txt by default; projects name .rst, .md and .doctest files
DOC_SUFFIXES = (".rst", ".md", ".txt", ".doctest")
_MAX_LISTED = 4000  # text files looked at before the test folders' are put first
MAX_DATA_FILES = 12
MAX_DATA_SCAN = 400  # files ranked by the change's words, in a diff
MAX_SCAN_BYTES = 4_000_000
MAX_DATA_CASES = 40  # cases of many-case files per function, in a diff
MAX_SCAN_CASES = 5000  # cases ranked, of the files read
MAX_DATA_BYTES = 8_000  # one input: a fixture file larger than this is a corpus, not an example
MAX_LINES_BYTES = 400_000  # a file of one case a line, read line by line up to this size
MAX_DATA_LINES = 80  # lines of such files per function, a spread over their shapes
_MAX_LINE = 200
_TEXT_ANNOTATIONS = frozenset([None, "str", "Optional[str]", "str | None", "Text", "AnyStr"])


def _positional(info: TargetInfo) -> tuple[int, int]:
    """(required, total) positional parameters of the target."""
    pos = [p for p in info.params if p.kind in ("positional", "positional_only")]
    return sum(1 for p in pos if not p.has_default), len(pos)


# what a value borrowed from another function must be, for the plain annotations
_PLAIN: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "float": (int, float),  # PEP 484: an int is acceptable where a float is annotated
    "bool": (bool,),
    "bytes": (bytes,),
    "list": (list,),
    "dict": (dict,),
    "tuple": (tuple,),
}


def _fit(info: TargetInfo, args: tuple[Any, ...]) -> bool:
    """Each argument respects its parameter's annotation where that is a plain type."""
    pos = [p for p in info.params if p.kind in ("positional", "positional_only")]
    for p, a in zip(pos, args):
        kinds = _PLAIN.get((p.annotation or "").split("[")[0])
        if kinds and (not isinstance(a, kinds) or (isinstance(a, bool) and bool not in kinds)):
            return False
    return True


def module_functions(info: TargetInfo) -> list[str]:
    """The public module-level functions of the target's module, the target left out."""
    _, tree = parsed(info.path)
    if tree is None:
        return []
    return [
        n.name
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        and not n.name.startswith("_")
        and n.name != info.name
    ]


def _test_trees(root: Path, words: list[str]) -> list[tuple[str, ast.Module]]:
    out = []
    for rel, path in python_files(root):
        if not is_test_file(rel):
            continue
        text, tree = parsed(path)
        if tree is not None and any(w in text for w in words):
            out.append((rel, tree))
    return out


_HARVESTS: dict[tuple[int, str, str, int], tuple[ast.Module, list[Candidate]]] = {}


def _sibling_harvest(
    info: TargetInfo, name: str, tree: ast.Module, fresh: frozenset[int]
) -> list[Candidate]:
    """The calls of ``name`` (a function of the target's module) in a test file's ``tree``,
    those on a line the change wrote marked (``fresh``), harvested once: every function of
    the module asks for every sibling's, and a module of n functions harvested n * n times
    (#36)."""
    key = (id(tree), info.module, name, hash(fresh))
    got = _HARVESTS.get(key)
    if got is None or got[0] is not tree:
        other = dataclasses.replace(info, qualname=name)
        found = list(calls_in_file(other, tree, False, "tests", fresh=fresh))
        if len(_HARVESTS) >= 4096:
            _HARVESTS.clear()
        got = _HARVESTS[key] = (tree, found)
    return got[1]


def sibling_calls(info: TargetInfo, root: Path) -> list[Candidate]:
    """The arguments the tests pass to the target's siblings, as calls of the target: the
    whole argument list where it fits the target (literal values, or the expressions the test
    builds them with, and the keywords the target takes too), and each literal argument
    alone as the first one. Of many, a spread of ``MAX_SIBLING`` over their shapes, the
    calls on lines the change wrote first (#32): a release that adds ``%Y`` formats tests
    them on ``parse`` 300 lines into a file whose first 40 calls all pass plain fields, and
    ``search``, beside it, got only those; and a sibling's test that builds its list of
    NaN and None in a local name was never borrowed at all."""
    from codemode.explore.offline import fresh as fresh_lines

    if info.is_method:
        return []
    siblings = module_functions(info)
    out: dict[str, Candidate] = {}
    for rel, tree in _test_trees(root, siblings):
        fresh = fresh_lines.lines(root / rel)
        for name in siblings:
            for cand in _sibling_harvest(info, name, tree, fresh):
                for c in _as_target(info, cand, f"like_{name}"):
                    out.setdefault(repr((c.args, sorted(c.kwargs.items()), c.exprs)), c)
            if len(out) >= MAX_READ:
                break
    return spread(list(out.values()), MAX_SIBLING, candidate_shape, _is_fresh)


def _as_target(info: TargetInfo, cand: Candidate, label: str) -> Iterator[Candidate]:
    """A sibling's call as calls of the target, where its arguments fit the target."""
    required, total = _positional(info)
    keywords = {p.name for p in info.params if p.kind not in ("positional_only", "var_positional")}
    takes_any = any(p.kind == "var_keyword" for p in info.params)
    mark = {"label": label, "source": "tests", "family": "", "fresh": cand.fresh}
    if cand.exprs is not None:
        args, named = cand.exprs.get("args", []), cand.exprs.get("kwargs", {})
        if required <= len(args) <= total and (takes_any or set(named) <= keywords):
            yield cand._replace(args=(), kwargs={}, **mark)
        return
    if cand.kwargs and not (takes_any or set(cand.kwargs) <= keywords):
        return
    if required <= len(cand.args) <= total and _fit(info, cand.args):
        yield cand._replace(**mark)
    for a in cand.args if total and required <= 1 and not cand.kwargs else ():
        if _fit(info, (a,)):
            yield Candidate((a,), {}, label, "tests", fresh=cand.fresh)


def doc_file_calls(info: TargetInfo, root: Path) -> list[Candidate]:
    """``>>>`` examples calling the target in the project's text files (README, docs) and
    in the other docstrings of its module (a module or class docstring's examples)."""
    files: list[Path] = [info.path, *text_files(root)]
    out: list[Candidate] = []
    for path in files:
        text = read_source(path)
        if text is not None and f"{info.name}(" in text:
            out += _examples_from_text(info, text, own=path == info.path)
    return out


def text_files(root: Path) -> list[Path]:
    """The project's text files that may hold doctest examples, those in a tests folder
    first (where --doctest-glob files live), at most ``MAX_DOC_FILES``."""
    return list(kept_once("docs", str(root), lambda: _list_text_files(root)))


def _list_text_files(root: Path) -> list[Path]:
    out: list[tuple[bool, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for f in sorted(filenames):
            path = Path(dirpath) / f
            if f.endswith(DOC_SUFFIXES) and path.stat().st_size <= MAX_DOC_BYTES:
                out.append((not is_test_file(path.relative_to(root).as_posix()), path))
        if len(out) >= _MAX_LISTED:
            break
    return [p for _, p in sorted(out, key=lambda t: t[0])[:MAX_DOC_FILES]]


def _examples_from_text(info: TargetInfo, text: str, own: bool) -> list[Candidate]:
    context: list[str] = []
    out: list[Candidate] = []
    skip = range(info.lineno, info.end_lineno + 1) if own else range(0)
    for prompt, example in doctest_lines(text, skip):
        if prompt:
            out += examples_in(info, example, context)
    return [c._replace(label="doc_example") for c in out]


def data_texts(info: TargetInfo, root: Path) -> list[Candidate]:
    """The text of files the tests read from a folder next to them, for a target whose
    first parameter takes text: a file counts when a string in a test file that calls the
    target names it or its suffix (``DATA / "x.toml"``, ``glob("*.toml")``), or names its
    folder in a file that lists folders (``os.listdir("cases")``). A file of one case a
    line (``brace-cases.txt``) gives its lines too (``data_lines``). In a diff, the files
    and the cases of many-case files the change's words name first
    (explore/offline/data_cases.py), of at most ``MAX_DATA_SCAN`` files."""
    from codemode.explore.offline.data_cases import change_words, ranked

    first = next((p for p in info.params if p.kind in ("positional", "positional_only")), None)
    if first is None or first.annotation not in _TEXT_ANNOTATIONS:
        return []
    words = change_words(root)
    files = list(_data_files(root, info.name, MAX_DATA_SCAN if words else MAX_DATA_FILES))
    out: list[Candidate] = []
    lines: list[Candidate] = []
    for i in sorted(ranked([(p.stem, t) for p, t in files], words, MAX_DATA_FILES)):
        path, text = files[i]
        label = _label(path)
        if len(text) <= MAX_DATA_BYTES:
            out.append(Candidate((text,), {}, label, "tests"))
        lines += data_lines(path, text, label)
    # the cases the change's words chose before the lines, which nothing chose: a budget
    # that cuts the pool keeps them
    out += _data_cases(files, words) if words else []
    return out + spread(lines, MAX_DATA_LINES, _first_arg_shape, _is_fresh)


def _label(path: Path) -> str:
    return "data_" + "".join(c if c.isalnum() else "_" for c in path.stem)[:20]


def _data_cases(files: list[tuple[Path, str]], words: frozenset[str]) -> list[Candidate]:
    """The cases of the many-case files that hold the most of the change's words, at most
    ``MAX_DATA_CASES``."""
    from codemode.explore.offline.data_cases import by_word, cases

    def best() -> list[Candidate]:
        found: list[tuple[str, str]] = []
        for path, text in files:
            for case in cases(path, text):
                if len(case) <= MAX_DATA_BYTES and len(found) < MAX_SCAN_CASES:
                    found.append((_label(path) + "_case", case))
        chosen = by_word([text for _, text in found], words, MAX_DATA_CASES)
        return [Candidate((found[i][1],), {}, found[i][0], "tests") for i in chosen]

    # once per files and change in a run: the functions of a module read the same files
    key = repr((sorted(words), [str(p) for p, _ in files]))
    return list(kept_once("data-cases", key, best))


def data_lines(path: Path, text: str, label: str) -> list[Candidate]:
    """Each line of a data file (not blank, not a ``#`` comment, not long) as an input; the
    lines the change wrote first (explore/offline/fresh.py), marked fresh."""
    from codemode.explore.offline import fresh

    new = fresh.lines(path)
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#") and len(line) <= _MAX_LINE:
            out.append(Candidate((line,), {}, f"{label}_line", "tests", fresh=n in new))
    return out


def _first_arg_shape(c: Candidate) -> Any:
    return value_shape(c.args[0]) if c.args else None


def _is_fresh(c: Candidate) -> bool:
    return c.fresh


def _data_files(root: Path, name: str, limit: int) -> Iterator[tuple[Path, str]]:
    """The data files the test files that call ``name`` read (at most ``limit``, of at most
    ``MAX_SCAN_BYTES`` in all), with their text; past ``MAX_DATA_FILES``, those the other
    test files read next."""
    count = 0
    size = 0
    trees = _test_trees(root, [name])
    if limit > MAX_DATA_FILES:  # ranked: the other tests' files too (a base class calls it)
        trees += [t for t in _test_trees(root, [""]) if t not in trees]
    for rel, tree in trees:
        for path in _named_files(root, rel, tree):
            if count >= limit or size >= MAX_SCAN_BYTES:
                return
            text = read_source(path)
            if text is not None:
                count += 1
                size += len(text)
                yield path, text


def _named_files(root: Path, rel: str, tree: ast.Module) -> list[Path]:
    """The data files a test file names, once per file and run: every function of a module
    asks, and a ranked pool asks of every test file."""

    def find() -> list[Path]:
        words = {
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and 0 < len(n.value) < 80
        }
        folder = (root / rel).parent
        lists = any(
            isinstance(n, ast.Call) and ast.unparse(n.func).split(".")[-1] in _LISTING
            for n in ast.walk(tree)
        )
        return [
            path
            for path in sorted(folder.rglob("*"))
            if _named_by(path, folder, words, lists)
            and path.is_file()
            and path.suffix != ".py"
            and path.stat().st_size <= MAX_LINES_BYTES
        ]

    return list(kept_once("named-data", f"{root}\0{rel}", find))


def _named_by(path: Path, folder: Path, words: set[str], lists: bool) -> bool:
    """A test names the file, or its suffix (``"*.toml"``), or lists the folder it is in."""
    rel = path.relative_to(folder)
    names = {path.name, path.stem, path.suffix, f"*{path.suffix}"}
    if names & words or any(str(rel) in w for w in words):
        return True
    return lists and bool(set(rel.parts[:-1]) & words)


_LISTING = frozenset(["glob", "rglob", "iterdir", "listdir", "scandir", "walk"])
