"""The gate before writing: every new case, as it will be written, run twice in two workers.

The cases are written into the spec file's text and parsed back with the spec loader first,
so the gate judges exactly what lands on disk (a tuple that becomes a list, a float that
rounds, the block's serializer and fixtures, the hand-written cases that run before). Each
run is a function block in a forked child, as in ``check``, so what other functions did in
those workers cannot change it. A case that fails in either run is not written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from codemode.check.verify import Verifier
from codemode.config import Config
from codemode.report.model import CASE_PASSED
from codemode.specs.load import parse_spec_text
from codemode.specs.write import FunctionUpdate, apply_updates
from codemode.worker.pool import Worker


@dataclass
class GateResult:
    passed: list[str] = field(default_factory=list)
    nondeterministic: list[str] = field(default_factory=list)  # the two runs disagreed
    unfaithful: list[str] = field(default_factory=list)  # both runs agree, but not with the record
    evaluators_failed: list[str] = field(default_factory=list)


def run_gate(
    config: Config,
    update: FunctionUpdate,
    *,
    base: str = "",
    rel: str = "gate.yml",
    workers: Sequence[Worker],
) -> GateResult:
    """Run the function's block as it will be written into ``base`` (the spec file's current
    text, "" for a new file), the way ``check`` runs it: every case of the block in file order,
    with the block's fixtures and serializer. One run per worker (two: separate processes)."""
    text = apply_updates(base, [update])
    spec = parse_spec_text(text, config.root / rel, rel)
    func = spec.function(update.function_id)
    result = GateResult()
    if func is None or func.error:
        why = func.error if func is not None else "not found"
        result.unfaithful = [str(c["id"]) for c in update.cases]
        result.evaluators_failed = [f"the generated block does not load: {why}"]
        return result
    observed: list[dict[str, tuple[bool, Any]]] = []
    failed_checks: set[str] = set()
    for worker in workers:
        fr, _ = Verifier(config, worker).verify_function(spec, func)
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
