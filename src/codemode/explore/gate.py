"""The gate before writing: every new case, as it will be written, run twice in fresh workers.

The cases are rendered to YAML and parsed back with the spec loader first, so the gate
judges exactly what lands on disk (a tuple that becomes a list, a float that rounds, are
caught here). A case that fails in either run is not written as an exact expectation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codemode.check.verify import Verifier
from codemode.config import Config
from codemode.report.model import CASE_PASSED
from codemode.specs.load import parse_spec_text
from codemode.specs.types import FixtureSpec, SerializerSpec
from codemode.specs.write import FunctionUpdate, apply_updates, flow
from codemode.worker.pool import Worker


@dataclass
class GateResult:
    passed: list[str] = field(default_factory=list)
    nondeterministic: list[str] = field(default_factory=list)  # the two runs disagreed
    unfaithful: list[str] = field(default_factory=list)  # both runs agree, but not with the record
    evaluators_failed: list[str] = field(default_factory=list)


def _fixture_yaml(fixtures: dict[str, FixtureSpec], serializers: dict[str, SerializerSpec]) -> str:
    out = ""
    if fixtures:
        out += "fixtures:\n"
        for name, f in fixtures.items():
            d: dict[str, Any] = {
                k: v for k, v in f.to_wire().items() if v not in (None, [], {}) and k != "name"
            }
            out += f"  {flow(name)}: {flow(d)}\n"
    if serializers:
        out += "serializers:\n"
        for name, s in serializers.items():
            d = {k: v for k, v in s.to_wire().items() if v is not None}
            out += f"  {flow(name)}: {flow(d)}\n"
    return out


def run_gate(
    config: Config,
    update: FunctionUpdate,
    *,
    fixtures: dict[str, FixtureSpec] | None = None,
    serializers: dict[str, SerializerSpec] | None = None,
    fixture_names: Sequence[str] = (),
    make_worker: Callable[[], Worker],
    runs: int = 2,
) -> GateResult:
    head = _fixture_yaml(fixtures or {}, serializers or {})
    text = apply_updates(head, [update])
    if fixture_names:
        text = text.replace(
            f"{flow(update.function_id)}:\n",
            f"{flow(update.function_id)}:\n  fixture: {flow(list(fixture_names))}\n",
            1,
        )
    spec = parse_spec_text(text, Path("gate.yml"), "gate.yml")
    func = spec.function(update.function_id)
    result = GateResult()
    if func is None or func.error:
        why = func.error if func is not None else "not found"
        result.unfaithful = [str(c["id"]) for c in update.cases]
        result.evaluators_failed = [f"the generated block does not load: {why}"]
        return result
    observed: list[dict[str, tuple[bool, Any]]] = []
    failed_checks: set[str] = set()
    for _ in range(runs):
        worker = make_worker()
        try:
            fr, _ = Verifier(config, worker).verify_function(spec, func)
        finally:
            worker.close()
        run: dict[str, tuple[bool, Any]] = {}
        for c in fr.cases:
            # A failing global evaluator is dropped by the caller; the case itself may be right.
            own = [k for k in c.checks if k.passed is False and k.name not in update.evals]
            failed_checks |= {
                k.name for k in c.checks if k.passed is False and k.name in update.evals
            }
            ok = c.status == CASE_PASSED or (not own and c.status != "error" and bool(c.checks))
            run[c.id] = (ok, c.observed)
        observed.append(run)
    for new in update.cases:
        cid = str(new["id"])
        outcomes = [o.get(cid, (False, None)) for o in observed]
        if all(ok for ok, _ in outcomes):
            result.passed.append(cid)
        elif len({repr(v) for _, v in outcomes}) > 1:
            result.nondeterministic.append(cid)
        else:
            result.unfaithful.append(cid)
    result.evaluators_failed = sorted(failed_checks)
    return result
