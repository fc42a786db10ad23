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
    answered = _answered(recorder, info, kind)
    if answered is not None:  # every call answered the type with its outcome
        return {f"is_{kind}".title().replace("_", ""): {"type": kind}} if answered else {}
    return validate_evaluators(recorder, info, [ProposedEvaluator(name=f"is_{kind}", type=kind)])


def _answered(recorder: Recorder, info: TargetInfo, kind: str) -> bool | None:
    """Whether every usable returned call is of type ``kind``, as the worker answered with the
    call (``EVALUATOR_TYPES``); None when a record holds no answer (a call built from
    expressions): then the calls are asked again (``validate_evaluators``)."""
    from codemode.explore.record import EVALUATOR_TYPES
    from codemode.explore.selection.cases import usable

    at, n = EVALUATOR_TYPES.index(kind), len(EVALUATOR_TYPES)
    returned = [r for r in recorder.records if r.kind == "returned"]
    # `usable` is dear (a YAML round trip): asked only of the calls that do not answer yes
    failing = [r for r in returned if len(r.types) != n or r.types[at] is not None]
    failing = [r for r in failing if usable(r, info)]
    if any(len(r.types) != n for r in failing):
        return None
    return not failing and any(usable(r, info) for r in returned)
