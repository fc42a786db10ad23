"""What ``codemode diff`` lists: the analysis of a scope (from the range cache when it holds
it) and each function's JSON row, written directly with the C string encoder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from codemode.config import Config
from codemode.scope import Scope
from codemode.testcode import is_test_path

if TYPE_CHECKING:
    from codemode.change.cache import PinnedRange

try:  # the json package's C string encoder, without importing the json package
    from _json import encode_basestring_ascii as _encode_str
except ImportError:  # pragma: no cover - an interpreter without the C accelerator
    from json.encoder import py_encode_basestring_ascii as _encode_str


def analysis(
    config: Config, scope: Scope, pinned: PinnedRange | None = None
) -> tuple[Sequence[Sequence[Any]], Sequence[str], Mapping[str, str]]:
    """(functions, problems, renames); functions as ``ChangedFunction`` or, for a cached
    range, plain tuples of its fields: the cache hit (one git run, one file read) needs
    neither ``codemode.change.diff`` nor ``codemode.change.git``."""
    from codemode.change.cache import pin_range

    pinned = pinned or pin_range(config, scope)
    cached = pinned.result() if pinned is not None else None
    if cached is not None:
        functions, problems, renames, _changed_files = cached
        return functions, problems, renames
    from codemode.change.diff import analyze

    result = analyze(config, scope, pinned=pinned)
    return result.functions, result.problems, result.renames


Rows = tuple[Sequence[str], Sequence[bool], Sequence[str], Sequence[str], Mapping[str, str]]


def _impacted_test(f: Sequence[Any]) -> bool:
    return bool(f[2] == "impacted" and is_test_path(f[1]))


def json_output(
    config: Config,
    scope: Scope,
    specs: Callable[[], Callable[[str], list[str]] | None],
    tests: bool,
) -> tuple[str, Sequence[str]]:
    """(the ``--format json`` document, problems). ``specs`` finds the spec files: None
    when the project has none, and then the document is the analysis's alone, so a repeat
    of a range writes the one the last run kept. It runs in a thread while the analysis
    is computed or read, and here when the kept document may do (no thread to start)."""
    from codemode.change.cache import pin_range

    pinned = pin_range(config, scope)
    key = f"{pinned.key}-doc{int(tests)}" if pinned is not None else ""
    kept = pinned.cache.result(key) if pinned is not None else None
    if kept is not None:
        specs_for = specs()
        if specs_for is None:
            document, problems = kept
            return str(document), tuple(problems)
        rows = json_rows(config, scope, pinned)
    else:
        from codemode.background import in_background

        waiting = in_background(specs)
        rows = json_rows(config, scope, pinned)
        specs_for = waiting()
    document = json_document(rows, specs_for, tests)
    if pinned is not None and specs_for is None:
        pinned.cache.put_result(key, (document, rows[3]))
    return document, rows[3]


def json_rows(config: Config, scope: Scope, pinned: PinnedRange | None = None) -> Rows:
    """(ids, whether each is an impacted test, each function's JSON row up to its specs,
    problems, renames). For a range, the rows are kept in the cache next to the result they
    render (the specs are not: they are looked up on every run), so a repeat renders nothing.
    ``pinned``: what ``pin_range(config, scope)`` returned, when the caller asked already."""
    from codemode.change.cache import pin_range

    pinned = pinned or pin_range(config, scope)
    key = f"{pinned.key}-json2" if pinned is not None else ""
    if pinned is not None:
        hit = pinned.cache.result(key)
        if hit is not None:
            return cast(Rows, hit)
    functions, problems, renames = analysis(config, scope, pinned)
    value = (
        tuple(f[0] for f in functions),
        tuple(map(_impacted_test, functions)),
        tuple(map(_row_head, functions)),
        tuple(problems),
        dict(renames),
    )
    if pinned is not None:
        pinned.cache.put_result(key, value)
    return value


def json_document(rows: Rows, specs_for: Callable[[str], list[str]] | None, tests: bool) -> str:
    """The ``--format json`` document, one function per line (readable, diffable, and far
    cheaper than indent=2). Impacted tests are left out, or listed apart under ``tests``."""
    ids, test_flags, heads, problems, renames = rows
    no_specs = ', "specs": []}'

    def block(want_test: bool) -> str:
        picked = [h for h, t in zip(heads, test_flags) if t == want_test]
        if not picked:
            return "[]"
        if specs_for is None:  # one join: the rows differ only in their heads
            return "[\n  " + f"{no_specs},\n  ".join(picked) + no_specs + "\n]"
        lines = [
            f'  {h}, "specs": {json_strs(specs_for(i))}}}'
            for i, t, h in zip(ids, test_flags, heads)
            if t == want_test
        ]
        return "[\n" + ",\n".join(lines) + "\n]"

    renamed = ", ".join(f"{json_str(k)}: {json_str(v)}" for k, v in renames.items())
    return (
        f'{{"functions": {block(False)},\n'
        + (f' "tests": {block(True)},\n' if tests else "")
        + f' "renames": {{{renamed}}},\n'
        f' "problems": {json_strs(problems)}}}\n'
    )


def text_document(
    config: Config, scope: Scope, specs_for: Callable[[], Callable[[str], list[str]]], tests: bool
) -> tuple[str, Sequence[str]]:
    """(the text listing, problems): one line per function, impacted tests left out (a line
    says how many) or listed apart under ``impacted tests:``. ``specs_for`` is asked only
    once the analysis is done (the spec files are found meanwhile)."""
    functions, problems, _ = analysis(config, scope)
    lookup = specs_for()
    found = [row(f, lookup(f[0])) for f in functions if not _impacted_test(f)]
    impacted_tests = [row(f, lookup(f[0])) for f in functions if _impacted_test(f)]
    lines = _text_lines(found, "no function changed")
    if tests:
        lines += ["", "impacted tests:", *_text_lines(impacted_tests, "none")]
    elif impacted_tests:
        lines.append(
            f"({len(impacted_tests)} impacted test function(s) left out; --tests lists them)"
        )
    return "".join(f"{ln}\n" for ln in lines), problems


def _text_lines(rows: list[dict[str, Any]], empty: str) -> list[str]:
    if not rows:
        return [empty]
    width = max(len(r["id"]) for r in rows)
    out = []
    for r in rows:
        where = r["path"] + (f":{r['lineno']}" if r["lineno"] else "")
        extra = ""
        if r["renamed_from"]:
            extra = f"  (was {r['renamed_from']})"
        elif r["via"]:
            extra = "  via " + " -> ".join(r["via"])
        specs = "  specs: " + ", ".join(r["specs"]) if r["specs"] else ""
        out.append(f"{r['status']:<9} {r['id']:<{width}}  {where}{extra}{specs}")
    return out


def row(f: Sequence[Any], specs: list[str]) -> dict[str, Any]:
    """One function (a ``ChangedFunction``, or its fields in order) as ``--format json``
    shows it."""
    return {
        "id": f[0],
        "path": f[1],
        "status": f[2],
        "renamed_from": f[3],
        "impacted_by": list(f[4]),
        "via": list(f[5]),
        "lineno": f[6],
        "end_lineno": f[7],
        "changed_lines": list(f[8]),
        "fingerprint": f[9],
        "specs": specs,
    }


def row_json(f: Sequence[Any], specs: list[str]) -> str:
    """``json.dumps(row(f, specs))``, written directly (a test holds the two equal)."""
    return f'{_row_head(f)}, "specs": {json_strs(specs)}}}'


def _row_head(f: Sequence[Any]) -> str:
    """A function's JSON row up to (not including) its ``, "specs": [...]}``."""
    enc = _encode_str
    fid, path, status, renamed_from, impacted_by, via, lineno, end, lines, fp = f
    return (
        f'{{"id": {enc(fid)}, "path": {enc(path)}, "status": {enc(status)}, '
        f'"renamed_from": {"null" if renamed_from is None else enc(renamed_from)}, '
        f'"impacted_by": [{", ".join(map(enc, impacted_by))}], '
        f'"via": [{", ".join(map(enc, via))}], '
        f'"lineno": {"null" if lineno is None else int.__repr__(lineno)}, '
        f'"end_lineno": {"null" if end is None else int.__repr__(end)}, '
        f'"changed_lines": [{", ".join(map(int.__repr__, lines))}], '
        f'"fingerprint": {"null" if fp is None else enc(fp)}'
    )


def json_str(value: str | None) -> str:
    """``json.dumps`` of a str or None. The C encoder directly: ``json.dumps`` builds an
    encoder per call, a third of a cached run's output time on thousands of rows."""
    return "null" if value is None else _encode_str(value)


def json_strs(values: Iterable[str]) -> str:
    return "[" + ", ".join(map(json_str, values)) + "]"
