"""``regen`` in any scope, as every delivery runs it (#34).

In a change scope the behaviour diff's witnesses become cases too, so the spec records the
change (#18): exploring writes the generated cases, then each call whose outcome the change
altered is written with its new outcome. One report holds both, each function once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from codemode.config import Config
from codemode.scope import Scope

if TYPE_CHECKING:
    from codemode.report.model import FunctionResult, Report


def regen(
    config: Config,
    scope: Scope,
    *,
    dry_run: bool,
    function_ids: tuple[str, ...] = (),
    progress: Callable[[str], None] | None = None,
    shard: tuple[int, int] | None = None,
) -> Report:
    """Explore, gate and (unless ``dry_run``) write; in a change scope with the diff on,
    record the witnesses as cases. ``function_ids``: explore these only (no witnesses:
    the run names its functions, not a change)."""
    from codemode.explore.writing.regen import run_regen

    started = time.perf_counter()
    report = run_regen(
        config, scope, dry_run=dry_run, function_ids=function_ids, progress=progress, shard=shard
    )
    if scope.is_change and not function_ids and config.diff:
        from codemode.behaviour.witness_cases import record_witnesses

        recorded = record_witnesses(config, scope, dry_run=dry_run, shard=shard)
        if recorded.functions or recorded.edits:
            report = with_recorded(report, recorded)
    return report._replace(mode="regen", elapsed=time.perf_counter() - started)


def with_recorded(report: Report, recorded: Report) -> Report:
    """``report`` with the recorded witnesses' edits and results: a function both explored
    and recorded is one result, its messages joined."""
    functions: dict[str, FunctionResult] = {f.id: f for f in report.functions}
    for f in recorded.functions:
        prev = functions.get(f.id)
        if prev is None:
            functions[f.id] = f
            continue
        message = "; ".join(m for m in (prev.message, f.message) if m)
        functions[f.id] = prev._replace(message=message, spec=prev.spec or f.spec)
    return report._replace(
        functions=tuple(functions.values()),
        edits=(*report.edits, *recorded.edits),
        notes=tuple(dict.fromkeys((*report.notes, *recorded.notes))),
    )
