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
from codemode.check.verify import Verifier
from codemode.config import Config
from codemode.errors import FatalError
from codemode.report.model import CASE_DRIFTED, CASE_PASSED, FunctionResult, Report, SpecEdit
from codemode.specs.edit_case import CaseEditError, set_expectations
from codemode.specs.index import SpecIndex, build_index
from codemode.specs.transaction import Edited, edit_spec
from codemode.specs.types import FunctionSpec, SpecFile
from codemode.worker.make import make_worker
from codemode.worker.pool import Outcome

_REF = re.compile(r"^(?P<fid>[\w.]+)\[(?P<case>[^\[\]]+)\]$")


def parse_ref(text: str) -> tuple[str, str]:
    m = _REF.match(text.strip())
    if not m:
        raise FatalError(
            f"{text!r}: name a case as FUNCTION_ID[CASE_ID], e.g. 'shop.pricing.to_cents[whole]'"
        )
    return m.group("fid"), m.group("case")


MAX_MATCH = 80  # a longer message is not pinned by `match` (a case line stays readable)


def exact_match(message: str) -> str | None:
    """The ``match`` that pins an exception's whole message, as accepted witnesses have it:
    ``^…$``, the message escaped (spaces kept readable); None for a long or multi-line one."""
    if not message or len(message) > MAX_MATCH or "\n" in message:
        return None
    return "^" + re.escape(message).replace("\\ ", " ") + "$"


def _change(outcome: Outcome | None, match: str | None) -> dict[str, Any]:
    """The keys to write: ``raises`` only for an exception the call raised; a returned dict
    shaped like ``{"raised": X, "message": m}`` is a value like any other (#21). A drifted
    case accepted as a raise keeps a ``match``: its old one when it still holds, else the new
    message's, as a recorded witness gets (#35)."""
    if outcome is not None and outcome.kind == "raised":
        exc = outcome.exc or {}
        message = str(exc.get("message", ""))
        try:
            keep = match if match and saferegex.search(match, message) else None
        except saferegex.RegexError:  # too slow or invalid: the new expectation drops it
            keep = None
        return {"expected": None, "raises": exc.get("type"), "match": keep or exact_match(message)}
    value = outcome.value if outcome is not None else None
    return {"expected": value, "raises": None, "match": None}


def _edit(path: Path, old: str, file_changes: list[tuple[str, dict[str, Any]]]) -> str:
    new = old
    for fid, changes in file_changes:
        try:
            new = set_expectations(new, fid, changes)
        except KeyError:
            raise FatalError(
                f"{path}: {fid} was removed from the spec while accept ran; nothing was "
                "written, run accept again"
            ) from None
        except CaseEditError as exc:
            raise FatalError(f"{path}: {fid}: {exc}; nothing was written") from None
    return new


def _write(
    path: Path, rel: str, root: Path, file_changes: list[tuple[str, dict[str, Any]]], dry_run: bool
) -> Edited:
    """The changes applied, under the spec's lock, to the file as it is now: a ``regen``
    that wrote meanwhile keeps its edit, and so does this accept (#11). An edit the file
    cannot take stops the run (exit 2) with nothing written (specs/transaction.py)."""
    return edit_spec(path, rel, root, lambda text: _edit(path, text, file_changes), dry_run=dry_run)


def _find(
    index: SpecIndex, fid: str, cases: list[str]
) -> list[tuple[SpecFile, FunctionSpec, list[str]]]:
    """Each spec file that holds some of ``cases`` of ``fid``, with those cases: a function may
    have a block in several files, and accept reaches a case in any of them (#21)."""
    found = [(s, f) for s in index.files for f in [s.function(fid)] if f is not None]
    if not found:
        raise FatalError(
            f"{fid}: no spec names this function; check the id (`codemode check --all` lists them)"
        )
    out: list[tuple[SpecFile, FunctionSpec, list[str]]] = []
    left = list(dict.fromkeys(cases))
    for spec, func in found:
        known = {c.id for c in func.cases}
        here = [c for c in left if c in known]
        if here:
            out.append((spec, func, here))
            left = [c for c in left if c not in known]
    if left:
        files = ", ".join(s.rel for s, _ in found)
        known_all = sorted({c.id for _, f in found for c in f.cases})
        raise FatalError(
            f"{fid}[{left[0]}]: no such case in {files}; its cases are {', '.join(known_all)}"
        )
    return out


def _accepted(
    fid: str,
    func: FunctionSpec,
    verifier: Verifier,
    result: FunctionResult,
    cases: list[str],
    notes: list[str],
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
            changes[c] = _change(verifier.outcomes.get(c), specs_by_id[c].match)
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
            for spec, func, here in _find(index, fid, cases):
                verifier = Verifier(config, worker)
                result, _ = verifier.verify_function(spec, func)
                changes = _accepted(fid, func, verifier, result, here, notes)
                if changes:
                    texts.setdefault(spec.rel, (spec.path, []))[1].append((fid, changes))
                status = "ok" if changes else result.status
                message = f"accepted {', '.join(changes)}" if changes else "nothing accepted"
                functions.append(FunctionResult(fid, status, spec.rel, func.line, message=message))
    finally:
        worker.close()
    for rel, (path, file_changes) in texts.items():
        edited = _write(path, rel, config.root, file_changes, dry_run)
        edits.append(
            SpecEdit(
                rel,
                edited.diff,
                applied=not dry_run,
                summary="accepted observed outputs",
            )
        )
    return Report(functions=tuple(functions), edits=tuple(edits), notes=tuple(notes), mode="accept")
