"""How to accept what a run found: one command per intent, none that overlaps another (#35).

``codemode accept --all --base main`` already takes every drifted case's observed output and
records every behaviour change as cases; listing ``codemode accept 'f[case]'`` for each drifted
case after it showed two ways to do one thing. The steps are:

- accept the change: ``codemode accept --all <scope>`` (or the one function's id), for a change
  scope; for a run that names no change, the drifted cases by name, in one command;
- write specs where there are none or where no case runs the changed lines: ``codemode regen``.
"""

from __future__ import annotations

import shlex
from typing import NamedTuple

from codemode.report.model import CASE_DRIFTED, Report
from codemode.scope import Scope, regen_command

MAX_REFS = 10  # drifted cases named in one command before "… N more"


class Step(NamedTuple):
    why: str  # a comment line: what the command does
    command: str
    careful: tuple[str, ...] = ()  # comment lines after it: what it would undo


def scope_flags(scope: Scope | None, *, on_head: bool = False) -> str:
    """`` --staged``, `` --base REF`` (`` --head REF``): the change a command refers to.
    ``on_head``: the reader has the head checked out (a PR comment), so no ``--head``."""
    if scope is None:
        return ""
    if scope.kind in ("staged", "worktree"):
        return f" --{scope.kind}"
    if scope.kind != "range" or not scope.base:
        return ""
    flags = f" --base {shlex.quote(scope.base)}"
    if not on_head and scope.head not in (None, "", "HEAD"):
        flags += f" --head {shlex.quote(str(scope.head))}"
    return flags


def accept_steps(report: Report, *, on_head: bool = True) -> list[Step]:
    """The commands that accept what ``report`` found, each with what it does."""
    changed = [f.id for f in report.sorted_functions() if f.witnesses]
    drifted = [
        f"{f.id}[{c.id}]"
        for f in report.sorted_functions()
        for c in f.cases
        if c.status == CASE_DRIFTED
    ]
    owners = list(dict.fromkeys([*changed, *(r.split("[", 1)[0] for r in drifted)]))
    steps = []
    scope = report.scope
    if owners and scope is not None and scope.is_change:
        what = "record the behaviour changes as cases" if changed else ""
        if drifted:
            what += (" and " if what else "") + "take the drifted cases' observed outputs"
        target = "--all" if len(owners) > 1 else owners[0]
        command = f"codemode accept {target}{scope_flags(scope, on_head=on_head)}"
        steps.append(Step(what, command, _reverting(report, owners)))
    elif drifted:
        refs = " ".join(shlex.quote(r) for r in drifted[:MAX_REFS])
        more = f" (and {len(drifted) - MAX_REFS} more)" if len(drifted) > MAX_REFS else ""
        why = f"take the drifted cases' observed outputs{more}"
        steps.append(Step(why, f"codemode accept {refs}", _reverting(report, drifted)))
    if any(f.status in ("missing", "stale") for f in report.functions):
        regen = regen_command(scope, on_head=on_head) or "codemode regen"
        steps.append(
            Step(
                "write cases for the functions without a spec or a case that runs their change",
                regen,
            )
        )
    return steps


def _reverting(report: Report, accepted: list[str]) -> tuple[str, ...]:
    """A warning for each case the command would take back to the code's output although the
    change edited its expectation on purpose (``Report.reverting``, #35)."""
    taken = set(accepted)
    return tuple(
        f"careful: accepting {ref} reverts the expectation this change edited"
        for ref in report.reverting()
        if ref in taken or ref.split("[", 1)[0] in taken
    )
