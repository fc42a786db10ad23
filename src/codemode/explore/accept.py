"""``codemode accept 'pkg.mod.func[case]'``: take the observed outputs of named drifted cases.

The only way a hand-written case changes: the user names it. The case is run again now
(never taken from an old report), and only a drifted case is rewritten; its neighbours
keep their bytes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from codemode import saferegex
from codemode.atomic import write_atomic
from codemode.check.run import make_worker
from codemode.check.verify import Verifier
from codemode.config import Config
from codemode.errors import FatalError
from codemode.lock import locked
from codemode.report.model import CASE_DRIFTED, CASE_PASSED, FunctionResult, Report, SpecEdit
from codemode.specs.index import SpecIndex, build_index
from codemode.specs.types import FunctionSpec, SpecFile
from codemode.specs.write import set_expectations, unified_diff

_REF = re.compile(r"^(?P<fid>[\w.]+)\[(?P<case>[^\[\]]+)\]$")


def parse_ref(text: str) -> tuple[str, str]:
    m = _REF.match(text.strip())
    if not m:
        raise FatalError(
            f"{text!r}: name a case as FUNCTION_ID[CASE_ID], e.g. 'shop.pricing.to_cents[whole]'"
        )
    return m.group("fid"), m.group("case")


def _change(observed: Any, match: str | None) -> dict[str, Any]:
    if isinstance(observed, dict) and set(observed) == {"raised", "message"}:
        try:
            keep = match if match and saferegex.search(match, str(observed["message"])) else None
        except saferegex.RegexError:  # too slow or invalid: the new expectation drops it
            keep = None
        return {"expected": None, "raises": observed["raised"], "match": keep}
    return {"expected": observed, "raises": None, "match": None}


def _write(
    path: Path, root: Path, file_changes: list[tuple[str, dict[str, Any]]], dry_run: bool
) -> tuple[str, str]:
    """(old, new) text of the spec, the changes applied under its lock to the file as it is
    now: a ``regen`` that wrote meanwhile keeps its edit, and so does this accept (#11)."""
    with locked(path, root) as target:
        old = target.read_text(encoding="utf-8")
        new = old
        for fid, changes in file_changes:
            try:
                new = set_expectations(new, fid, changes)
            except KeyError:
                raise FatalError(
                    f"{path}: {fid} was removed from the spec while accept ran; nothing was "
                    "written, run accept again"
                ) from None
        if not dry_run and new != old:
            write_atomic(target, new)
    return old, new


def _find(index: SpecIndex, fid: str, cases: list[str]) -> tuple[SpecFile, FunctionSpec]:
    """The spec block of ``fid`` (the first file that names it), which must hold ``cases``."""
    found = [(s, s.function(fid)) for s in index.files if s.function(fid) is not None]
    if not found:
        raise FatalError(
            f"{fid}: no spec names this function; check the id (`codemode check --all` lists them)"
        )
    spec, func = found[0]
    assert func is not None
    known = {c.id for c in func.cases}
    for c in cases:
        if c not in known:
            raise FatalError(
                f"{fid}[{c}]: no such case in {spec.rel}; its cases are {', '.join(sorted(known))}"
            )
    return spec, func


def _accepted(
    fid: str, func: FunctionSpec, result: FunctionResult, cases: list[str], notes: list[str]
) -> dict[str, dict[str, Any]]:
    """The new expectations of the named cases that drifted; a note for each of the others."""
    by_id = {c.id: c for c in result.cases}
    specs_by_id = {c.id: c for c in func.cases}
    changes: dict[str, dict[str, Any]] = {}
    for c in cases:
        r = by_id[c]
        if r.status == CASE_PASSED:
            notes.append(f"{fid}[{c}] already passes; nothing to accept")
        elif r.status != CASE_DRIFTED:
            notes.append(f"{fid}[{c}] is {r.status}, not drifted ({r.message}); not accepted")
        else:
            changes[c] = _change(r.observed, specs_by_id[c].match)
    return changes


def run_accept(config: Config, refs: Sequence[str], *, dry_run: bool = False) -> Report:
    wanted: dict[str, list[str]] = {}
    for ref in refs:
        fid, case = parse_ref(ref)
        wanted.setdefault(fid, []).append(case)
    index = build_index(config)
    edits: list[SpecEdit] = []
    functions: list[FunctionResult] = []
    notes: list[str] = []
    texts: dict[str, tuple[Path, list[tuple[str, dict[str, Any]]]]] = {}  # rel -> (path, edits)
    worker = make_worker(config)
    try:
        for fid, cases in wanted.items():
            spec, func = _find(index, fid, cases)
            result, _ = Verifier(config, worker).verify_function(spec, func)
            changes = _accepted(fid, func, result, cases, notes)
            if changes:
                texts.setdefault(spec.rel, (spec.path, []))[1].append((fid, changes))
            status = "ok" if changes else result.status
            message = f"accepted {', '.join(changes)}" if changes else "nothing accepted"
            functions.append(FunctionResult(fid, status, spec.rel, func.line, message=message))
    finally:
        worker.close()
    for rel, (path, file_changes) in texts.items():
        old, new = _write(path, config.root, file_changes, dry_run)
        edits.append(
            SpecEdit(
                rel,
                unified_diff(old, new, rel),
                applied=not dry_run,
                summary="accepted observed outputs",
            )
        )
    return Report(functions=tuple(functions), edits=tuple(edits), notes=tuple(notes), mode="accept")
