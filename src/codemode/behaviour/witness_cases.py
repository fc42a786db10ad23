"""``codemode accept FUNCTION_ID`` and ``accept --all``: record a behaviour change (#18).

A function id (no ``[CASE]``) accepts everything the change did to that function: its
drifted cases take their observed outputs (``explore.accept``), and each witness of the
behaviour diff becomes a case with the new outcome and a readable id, appended to the
function's spec (a new one where it has none). The diff is run again now, in the scope
given (never read from an old report), so what is written is what the code does. The next
run is clean: a witness whose call a passing case pins is the behaviour the spec records.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codemode.behaviour.witness_ids import case_id, representative
from codemode.config import Config
from codemode.errors import FatalError
from codemode.report.model import FunctionResult, Report, SpecEdit, Witness
from codemode.scope import Scope
from codemode.specs.transaction import Edited, Refused, edit_spec

if TYPE_CHECKING:
    from codemode.explore.target import TargetInfo


def run_accept_functions(
    config: Config,
    refs: Sequence[str],
    *,
    scope: Scope,
    accept_all: bool = False,
    dry_run: bool = False,
) -> Report:
    """Accept the named cases (``ID[CASE]``), and all of each named function (``ID``), or of
    every function the change touched (``accept_all``)."""
    from codemode.behaviour.check_change import check_change
    from codemode.explore.writing.accept import run_accept

    case_refs = [r for r in refs if "[" in r]
    function_ids = [r.strip() for r in refs if "[" not in r]
    for fid in function_ids:
        if not re.fullmatch(r"[\w.]+", fid):
            raise FatalError(
                f"{fid!r}: name a function by its id (shop.pricing.to_cents) or a case as "
                "ID[CASE] (shop.pricing.to_cents[whole])"
            )
    found: Report | None = None
    if function_ids or accept_all:
        found = check_change(config, scope)
        known = {f.id: f for f in found.functions}
        wanted = list(known) if accept_all else function_ids
        known.update(_drifted_outside(config, [f for f in function_ids if f not in known]))
        for fid in function_ids:
            if fid not in known:
                raise FatalError(
                    f"{fid}: the change ({scope.describe()}) neither drifts nor changes this "
                    "function; nothing to accept (check the id and the scope)"
                )
        chosen = [known[fid] for fid in wanted]
        case_refs += [f"{f.id}[{c.id}]" for f in chosen for c in f.cases if c.status == "drifted"]
    else:
        chosen = []
    report = run_accept(config, case_refs, dry_run=dry_run) if case_refs else Report(mode="accept")
    return _with_witnesses(config, report, [f for f in chosen if f.witnesses], dry_run)


def _drifted_outside(config: Config, function_ids: Sequence[str]) -> dict[str, FunctionResult]:
    """The named functions the change did not touch whose specs drift anyway (a dependency
    upgraded, the interpreter changed): their spec files are checked as they are (#23)."""
    if not function_ids:
        return {}
    from codemode.check.run import run_check
    from codemode.specs.index import build_index

    index = build_index(config)
    files = sorted({rel for fid in function_ids for rel in index.files_for(fid)})
    if not files:
        return {}
    report = run_check(config, Scope("paths", paths=tuple(str(config.root / f) for f in files)))
    return {
        f.id: f
        for f in report.functions
        if f.id in function_ids and any(c.status == "drifted" for c in f.cases)
    }


def record_witnesses(
    config: Config,
    scope: Scope,
    *,
    dry_run: bool = False,
    shard: tuple[int, int] | None = None,
) -> Report:
    """``regen`` in a change scope (``flows.regenerating``): each witness the diff finds now
    becomes a case with the new outcome (hand-written cases, drifted or not, are left as they
    are). ``shard``: the functions of one share, as regen's own."""
    from codemode.behaviour.check_change import check_change

    found = check_change(config, scope, shard=shard)
    changed = [f for f in found.functions if f.witnesses]
    return _with_witnesses(config, Report(mode="regen"), changed, dry_run)


def _with_witnesses(
    config: Config, report: Report, functions: list[FunctionResult], dry_run: bool
) -> Report:
    if not functions:
        if not report.functions and not report.edits:
            return report._replace(notes=(*report.notes, "nothing to accept"))
        return report
    from codemode.specs.index import build_index

    index = build_index(config)
    edits = list(report.edits)
    results = {f.id: f for f in report.functions}
    notes = list(report.notes)
    by_file: dict[str, list[tuple[str, list[dict[str, Any]]]]] = {}
    for f in functions:
        rel = _spec_for(config, index, f.id)
        taken = {c for refs in index.refs_for(f.id) for c in refs.cases}
        cases, why = _cases_for(config, f, taken)
        notes += why
        if cases:
            by_file.setdefault(rel, []).append((f.id, cases))
        done = f"recorded {len(cases)} behaviour change{'s' if len(cases) != 1 else ''} as cases"
        if len(cases) < len(f.witnesses):
            done += f" (of {len(f.witnesses)} calls that changed: one per kind of outcome first)"
        prev = results.get(f.id)
        message = f"{prev.message}; {done}" if prev is not None else done
        results[f.id] = FunctionResult(f.id, "ok", rel, message=message)
    for rel, items in by_file.items():
        try:
            edited = _write(config.root / rel, rel, config.root, items, dry_run)
        except Refused as exc:  # that file's functions fail; the other files are written
            bad = f"the edited spec would not load ({exc.why}); not written"
            results.update(
                {fid: FunctionResult(fid, "error", rel, message=bad) for fid, _ in items}
            )
            continue
        edits.append(SpecEdit(rel, edited.diff, not dry_run, "recorded behaviour changes"))
    return report._replace(
        functions=tuple(results.values()), edits=tuple(edits), notes=tuple(notes), mode="accept"
    )


def _spec_for(config: Config, index: Any, function_id: str) -> str:
    """The spec file that names the function, else where ``regen`` would write its spec."""
    files = index.files_for(function_id)
    if files:
        return str(files[0])
    from codemode.explore.target import split_id
    from codemode.explore.writing.scan import spec_rel_for

    module, _, _ = split_id(config, function_id)
    return spec_rel_for(config, module)


def _write(
    path: Path, rel: str, root: Path, items: list[tuple[str, list[dict[str, Any]]]], dry_run: bool
) -> Edited:
    """The cases appended to their functions' blocks, under the spec's lock (a new spec is
    created under it too), the file's form kept (specs/transaction.py)."""
    from codemode.specs.write import add_cases

    def edit(text: str) -> str:
        for fid, cases in items:
            text = add_cases(text, fid, cases)
        return text

    return edit_spec(path, rel, root, edit, dry_run=dry_run)


def _cases_for(
    config: Config, f: FunctionResult, taken: set[str]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The cases of the representative witnesses of ``f`` (``witness_ids.representative``),
    and a note for each witness that no case can hold."""
    names = _Names(config, f.id)
    writable: list[tuple[Witness, dict[str, Any]]] = []
    notes = []
    for w in f.witnesses:
        case, why = witness_case(f.id, w, names)
        if case is None:
            notes.append(f"{f.id}: {w.call} {why}; not written")
        else:
            writable.append((w, case))
    chosen = {id(w) for w in representative([w for w, _ in writable])}
    out = []
    for w, case in writable:
        if id(w) in chosen:
            case["id"] = _unique(case["id"], taken)
            taken.add(case["id"])
            out.append(case)
    return out, notes


class _Names:
    """The function's parameters, read from its source when first asked for: a call with
    positional and keyword arguments is written with them all by name (``bind_keywords``)."""

    def __init__(self, config: Config, function_id: str) -> None:
        self.config, self.id = config, function_id
        self.info: TargetInfo | None = None
        self.read = False

    def bind(self, args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any] | None:
        from codemode.explore.target import bind_keywords, load_target

        if not self.read:
            self.read = True
            try:
                self.info = load_target(self.config, self.id)
            except FatalError:
                self.info = None
        if self.info is None:
            return None
        return bind_keywords(self.info, list(args), kwargs)


def witness_case(
    function_id: str, w: Witness, names: _Names | None = None
) -> tuple[dict[str, Any] | None, str]:
    """The case that pins the witness's new outcome (its id not yet made unique), or None and
    why not: the call needs an instance (a receiver) a case cannot build, or mixes positional
    and keyword arguments that cannot all be passed by name."""
    if w.receiver or "self" in (w.built or {}):
        return None, "needs an instance built for it (the method's receiver)"
    if w.then is not None:  # a case pins the function's own outcome, not its result's
        return None, "calls the callable the function returned"
    if w.built:  # codemode regen writes such calls with a fixture built as the tests build it
        return None, "passes an argument with no YAML form, built as the tests build it"
    kwargs = dict(w.kwargs or {})
    if kwargs and w.args:  # a case holds a list or a mapping, not both
        bound = names.bind(w.args, kwargs) if names is not None else None
        if bound is None:
            return None, "mixes positional and keyword arguments that a case cannot hold"
        inputs: Any = bound
    else:
        inputs = kwargs if kwargs else list(w.args)
    case: dict[str, Any] = {"id": case_id(function_id, w), "inputs": inputs}
    new = w.new if isinstance(w.new, dict) else {}
    if "returned" in new:
        case["expected"] = new["returned"]
    else:
        from codemode.explore.writing.accept import exact_match

        case["raises"] = str(new.get("raised", "Exception"))
        match = exact_match(str(new.get("message") or ""))
        if match:
            case["match"] = match
    return case, ""


def _unique(base: str, taken: set[str]) -> str:
    if base not in taken:
        return base
    n = 2
    while f"{base}_{n}" in taken:
        n += 1
    return f"{base}_{n}"
