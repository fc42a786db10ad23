"""What a regen run says when it is done or has nothing to do: the bootstrap's summary, which
counts functions by cause, why a function got no case, and which candidates the gate left out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from codemode.config import Config
from codemode.explore.writing.plan import Done
from codemode.explore.writing.scan import Scan
from codemode.report.model import Refusal, Report
from codemode.scope import Scope
from codemode.specs.write import FunctionUpdate

if TYPE_CHECKING:
    from codemode.explore.record import Recorder


def needs_fixture(done: Done, params: Sequence[str], rel: str) -> Done:
    names = ", ".join(params)
    done.status = "error"
    done.message = (
        f"needs a fixture: {names} (no value of its type can be written in YAML); add a "
        f"fixture that builds it under `fixtures:` in {rel} and list it under `fixture:`, "
        "then run regen again"
    )
    return done


def blocked_note(function_id: str, recorder: Recorder) -> str | None:
    """Calls of a function the wall stopped while others ran: none became a case (#31)."""
    blocked = [r.message for r in recorder.records if r.message.startswith("blocked: ")]
    if not blocked:
        return None
    return (
        f"{function_id}: {len(blocked)} of {len(recorder.records)} calls were stopped by "
        f"codemode's wall and are no cases ({blocked[0].split(': codemode')[0]})"
    )


def no_case(recorder: Recorder) -> str:
    """Why a function got no case; when every call failed the same way (an import error, a
    class that needs an instance), that cause, so a bootstrap's summary names it."""
    why = "no call could become a case"
    blocked = [r.message for r in recorder.records if r.message.startswith("blocked: ")]
    if blocked and all(r.kind == "error" for r in recorder.records):
        # codemode's wall stopped its calls (#31): the operation and the way out, not a cause
        # lost among many messages (each call was stopped at its own path)
        more = f" ({len(blocked)} calls stopped)" if len(blocked) > 1 else ""
        return f"not explored: {blocked[0]}{more}; the spec was kept as it was"
    errors = {r.message[:600] for r in recorder.records if r.kind == "error"}
    clock = {r.clock for r in recorder.records if r.clock and r.kind != "error"}
    if len(errors) == 1 and all(r.kind == "error" for r in recorder.records):
        error = errors.pop()
        if error.startswith("cannot import "):  # with its hint: what to install, and where
            return f"{error}; the spec was kept as it was"
        why += f" ({error.split(';')[0][:200]})"
    elif clock:
        why += (
            f" (the calls that ran read the clock, {sorted(clock)[0]}: an output of today's date "
            "would drift as days pass; give it the time as a parameter, or write cases by hand)"
        )
    return why + "; the spec was kept as it was"


def empty_scope(config: Config, scope: Scope, scan: Scan | None) -> str:
    """Nothing to explore: say where we looked and what to run instead."""
    if scan is None:
        if scope.is_change:
            return (
                f"no function changed in the {scope.describe()} change; "
                "run `codemode regen --all` to write specs for every function that has none"
            )
        return "nothing to explore"
    where = ", ".join(scan.searched) or "nothing (no source root exists)"
    left = []
    if scan.excluded_files:
        left.append(f"{len(scan.excluded_files)} excluded file(s) (tests, setup.py, `exclude`)")
    if scan.private:
        left.append(f"{scan.private} private function(s) (`include_private = true` adds them)")
    left += list(scan.problems[:3])
    return (
        f"nothing to explore: searched {where} ({scan.modules} module(s), no public function "
        f"and no spec){'; left out: ' + '; '.join(left) if left else ''}. Name a module or "
        "package (`codemode regen src/pkg`), set `source_roots` under [tool.codemode], or "
        "explore one function with `codemode regen --function pkg.mod.func`"
    )


# A summary counts functions by cause, never by a message that names each function's own
# class or parameter (semantic_version's summary was one 2,175-character bucket per class, #23).
_CAUSES = (
    (re.compile(r"\bcannot import ([\w.]+): (\w+)"), r"cannot import \1 (\2)"),
    (re.compile(r"\bneeds an instance\b"), "a method whose class needs an instance (a fixture)"),
    (re.compile(r"^needs a fixture\b"), "needs a fixture (a value YAML cannot write)"),
    (re.compile(r"^internal error while exploring"), "internal error (see regen-errors.log)"),
    (re.compile(r"\bread the clock\b"), "reads the clock"),
)


def cause_of(message: str) -> str:
    for pattern, cause in _CAUSES:
        found = pattern.search(message)
        if found:
            return found.expand(cause)
    return message.split(";")[0].split(" (")[0]


def bootstrap_summary(done: list[Done], report: Report, scan: Scan | None) -> list[str]:
    """One line a bootstrap ends with: functions, spec files written, cases, skipped and why."""
    cases = sum(len(d.update.cases) for d in done if d.update is not None)
    written = sum(1 for e in report.edits if e.applied)
    skipped = Counter(cause_of(d.message) for d in done if d.status in ("missing", "error"))
    fresh = sum(1 for d in done if d.update is not None)
    parts = [f"{fresh} got {cases} generated case(s) in {written} spec file(s) written"]
    same = len(done) - fresh - sum(skipped.values())
    if same:
        parts.append(f"{same} up to date or hand-written")
    if skipped:
        why = "; ".join(f"{n} {reason}" for reason, n in skipped.most_common())
        parts.append(f"{sum(skipped.values())} without cases ({why})")
    line = f"{len(done)} function(s): " + ", ".join(parts)
    out = [line]
    if scan is not None and (scan.excluded_files or scan.private):
        out.append(
            f"left out: {len(scan.excluded_files)} excluded file(s), "
            f"{scan.private} private function(s) (`exclude`, `include_private` under "
            "[tool.codemode])"
        )
    out += [f"skipped {p}" for p in scan.problems] if scan else []
    return out


def gate_refusals(
    update: FunctionUpdate,
    nondeterministic: Sequence[str],
    unfaithful: Sequence[str],
    why: Mapping[str, str],
    located: Sequence[str] = (),
) -> list[Refusal]:
    """The candidates the gate left out, each with its call, why, and what would make it
    writable (#22)."""
    from codemode.report.call import format_call

    by_id = {str(c["id"]): c for c in update.cases}
    out = []
    for ids, reason, remedy in (
        (nondeterministic, "nondeterministic", _NONDETERMINISTIC),
        (unfaithful, "does not replay from YAML", _UNFAITHFUL),
        (located, "would fail on another checkout", _LOCATED),
    ):
        for cid in ids:
            inputs = by_id.get(cid, {}).get("inputs", ())
            call = format_call(update.function_id, inputs if inputs is not None else ())
            out.append(Refusal(call, f"{reason}: {why.get(cid, '')}".rstrip(": "), remedy, cid))
    return out


_NONDETERMINISTIC = (
    "pass the source of randomness in (a seed, a random.Random), or state a property that "
    "holds on every run as an evaluator"
)
_LOCATED = (
    "pass the path in (a fixture such as codemode.tmp_path) or state a property of the output "
    "as an evaluator"
)
_UNFAITHFUL = "add a fixture or a serializer that builds the value as the call passed it"
