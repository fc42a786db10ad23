"""The global evaluators an offline exploration gives a new spec block."""

from __future__ import annotations

from typing import Any

from codemode.explore.record import Recorder
from codemode.explore.target import TargetInfo


def offline_evaluators(recorder: Recorder, info: TargetInfo) -> dict[str, dict[str, Any]]:
    """A type evaluator for every case of a new block, when every call returned one plain type
    (``IsInt: {type: int}``), validated as the model's proposals are."""
    from codemode.explore.llm.pipeline import validate_evaluators
    from codemode.explore.llm.prompts import ProposedEvaluator

    kinds = {type(r.value).__name__ for r in recorder.records if r.kind == "returned"}
    if len(kinds) != 1:
        return {}
    kind = kinds.pop()
    if kind not in ("int", "float", "str", "bool", "list", "dict"):
        return {}
    return validate_evaluators(recorder, info, [ProposedEvaluator(name=f"is_{kind}", type=kind)])
