"""``check`` in any scope, as every delivery runs it (#34)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from codemode.config import Config
from codemode.scope import Scope

if TYPE_CHECKING:
    from codemode.report.model import Report


def check(config: Config, scope: Scope, *, shard: tuple[int, int] | None = None) -> Report:
    """The specs a scope affects, verified, and in a change scope the behaviour diff.

    ``--staged`` is the hook's path: the warm worker where the project allows it, and a
    commit that stages only non-spec YAML (CI, pre-commit config) is answered from
    ``git diff --cached`` before the verification stack is imported (``check.fastpath``).
    """
    staged = None
    if scope.kind == "staged":
        from codemode.check.fastpath import quick_report, staged_change
        from codemode.config import warm_wanted

        config = config.replace(warm_worker=warm_wanted(config, os.environ))
        if config.warm_worker:  # the console script may leave a resident parent (#36)
            from codemode.resident import note_wanted

            note_wanted(config.warm_idle)
        staged = staged_change(config.root)
        quick = quick_report(config, staged) if staged is not None else None
        if quick is not None:
            return quick
    from codemode.behaviour.check_change import check_change

    return check_change(config, scope, shard=shard, staged=staged)
