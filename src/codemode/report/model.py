"""One ``Report`` value per run, rendered many ways (terminal, JSON, Markdown, annotations, JUnit).

Computing and rendering are apart: stages build these frozen records; only the delivery
layer prints, writes files or calls GitHub. The JSON form round-trips (``to_json`` /
``from_json``) so that sharded jobs can be merged and a ``workflow_run`` job can post the
comment from a report produced elsewhere.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, NamedTuple, get_args

from codemode.errors import EXIT_FAILED, EXIT_OK
from codemode.scope import Scope
from codemode.verdicts import REVIEW_VERDICTS, VERDICTS, Verdict

REPORT_VERSION = 1

# The words of a report: a verdict per function (codemode.verdicts defines it, with the
# review's call-outs, for config's fail_on too), a status per case.
CaseStatus = Literal["passed", "drifted", "failed", "error", "empty", "skipped"]

# Case statuses: what happened to one case.
CASE_PASSED: Final = "passed"
CASE_DRIFTED: Final = "drifted"  # observed output differs from the recorded expectation
CASE_FAILED: Final = "failed"  # an evaluator (type, assertion, pattern, ...) did not hold
CASE_ERROR: Final = "error"  # timeout, crash, import error, sandbox error
CASE_EMPTY: Final = "empty"  # the case asserts nothing
CASE_SKIPPED: Final = "skipped"  # e.g. an LLM-judge evaluator with no model configured
CASE_STATUSES: tuple[CaseStatus, ...] = get_args(CaseStatus)
# The case statuses that fail a case, most important first (comments and annotations).
FAILING_CASE_ORDER = {CASE_ERROR: 0, CASE_DRIFTED: 1, CASE_FAILED: 2}

# Order of importance, most important first: used for sorting and for truncating comments.
STATUS_ORDER: dict[Verdict, int] = {
    "error": 0,
    "drifted": 1,
    "changed": 1,
    "orphaned": 2,
    "message_changed": 2,
    "missing": 3,
    "stale": 4,
    "unstable": 5,
    "skipped": 5,
    "ok": 6,
}

# NamedTuples, not dataclasses: every pre-commit run imports this module, and importing
# ``dataclasses`` (it pulls in ``inspect``) plus building eight classes cost ~15 ms, a third of
# what ``check-ast`` takes in all. Update with ``_replace``; the fields are ``_fields``.

# What a witness's two outcomes differ in: a value (or returned vs raised), the exception's
# type, or only the exception's message.
WitnessKind = Literal["value", "exception", "message"]


class Check(NamedTuple):
    """One evaluator applied to one case: ``expected``, ``raises``, ``type``, ``assertion``..."""

    name: str
    passed: bool | None  # None = skipped
    message: str = ""

    def __reduce__(self) -> tuple[Any, ...]:
        return (Check, tuple(self))  # pickled per case by --jobs lanes: see CaseResult


class CaseResult(NamedTuple):
    id: str
    status: CaseStatus
    line: int | None = None
    has_expected: bool = False
    expected: Any = None
    observed: Any = None  # canonical observed output (or {"raised": ..., "message": ...})
    message: str = ""  # one line: why it failed
    diff: str = ""  # short diff of expected vs observed
    duration_ms: float | None = None
    checks: tuple[Check, ...] = ()
    generated: bool = False  # listed under codemode.functions.<id>.generated
    call: str = ""  # a failing case's call as Python (report.call.format_call): which call drifted

    def __reduce__(self) -> tuple[Any, ...]:
        # A --jobs lane pickles its results for the parent, a record per case: the default
        # (copyreg's __newobj__ and a __getnewargs__ call per record) took twice as long (#20).
        return (CaseResult, tuple(self))


class Witness(NamedTuple):
    """One input on which the old and the new version of a function disagree (#18).

    ``old`` and ``new`` are outcomes: ``{"returned": value}`` or ``{"raised": type,
    "message": text}``, values in canonical data. ``args``/``kwargs`` are the call's inputs as
    a case would hold them; ``receiver`` the call that built the instance of a method."""

    call: str  # loyalty_tier(4999), report/call.py's form
    old: Any
    new: Any
    kind: WitnessKind = "value"
    args: tuple[Any, ...] = ()
    kwargs: Any = None  # a mapping, or None
    receiver: Any = None  # the worker's recipe of the instance, when the input names one
    source: str = ""  # where the input came from: spec, tests, docstring, callers, types...
    # arguments with no YAML form, as the tests build them: the worker's expressions
    # ({"args": [src], "kwargs": {name: src}, "setup": src}); ``args`` then holds nothing
    built: Any = None
    # what the call returned was called so (a callable, #32): ``{"args": [...]}`` or
    # ``{"sort": [...]}``, and ``old``/``new`` are that call's outcomes
    then: Any = None


class Refusal(NamedTuple):
    """A call chosen for a case that was not written (#22): the call and its outcome, why not,
    what would make it writable, and the case id it was chosen under."""

    call: str  # withdraw(Decimal('30')) on Wallet('ada') raises InsufficientFunds: ...
    reason: str
    remedy: str = ""
    id: str = ""


class FunctionResult(NamedTuple):
    id: str
    status: Verdict
    spec: str | None = None  # repo-relative path of the spec file
    line: int | None = None  # line of the function block in the spec
    cases: tuple[CaseResult, ...] = ()
    message: str = ""
    renamed_to: str | None = None  # orphaned: the function's new id, when it was renamed
    impacted_by: tuple[str, ...] = ()
    path: str | None = None  # repo-relative source file of the function
    source_line: int | None = None  # the function's first line in ``path`` (at head)
    mutation_score: float | None = None  # regen: share of in-memory mutants its cases kill
    witnesses: tuple[Witness, ...] = ()  # the behaviour diff's calls whose outcome changed
    diff_note: str = ""  # how far the behaviour diff looked (the budget cut it, no inputs...)
    refused: tuple[Refusal, ...] = ()  # regen: chosen calls not written, each with why (#22)
    # impacted: the path from the changed function to this one (changed id, ..., this id, #32)
    via: tuple[str, ...] = ()
    # the calls the behaviour diff ran on both sides, and how many of them were the pool's
    # calls mutated: ``140 inputs (100 of them mutants)`` (#32; a miss reads by it)
    diff_inputs: str = ""

    def __reduce__(self) -> tuple[Any, ...]:
        return (FunctionResult, tuple(self))  # pickled by --jobs lanes: see CaseResult


def impact_text(f: FunctionResult) -> str:
    """``impacted: via Converter.convert -> Converter.convert_hn``: what an impacted function
    goes through to reach the change (#32), names short where they share a module; else
    ``impacted by ...`` (a report that kept no path), or nothing."""
    if len(f.via) > 1:
        path = list(reversed(f.via[:-1]))
        parts = [p.split(".") for p in (*path, f.id)]
        common = 0
        while all(len(p) > common + 1 and p[common] == parts[0][common] for p in parts):
            common += 1
        return "impacted: via " + " -> ".join(".".join(p.split(".")[common:]) for p in path)
    return f"impacted by {', '.join(f.impacted_by)}" if f.impacted_by else ""


class Problem(NamedTuple):
    """A spec-level problem not tied to one function (bad YAML, unknown top-level key...)."""

    file: str
    line: int | None
    message: str


class SpecEdit(NamedTuple):
    """A proposed or applied change to one spec file, shown as a unified diff."""

    file: str
    diff: str
    applied: bool = False
    summary: str = ""


class CaseChange(NamedTuple):
    """One case a change added, removed, changed or moved, and how it fares at head."""

    function: str
    id: str
    kind: str  # added | removed | changed | moved
    status: str | None = None  # a CaseStatus at head; None when it did not run
    line: int | None = None  # at head (at the old side for a removed case)
    what: tuple[str, ...] = ()  # changed: input, expected, evaluator, raises, match
    old_id: str | None = None  # moved: its id before
    old_file: str | None = None  # moved: its spec file before, when another
    call: str = ""  # the case's call (report.call.format_call)
    expected: str = ""  # rendered (compare.short), for a case that fails at head
    observed: str = ""
    message: str = ""


class Callout(NamedTuple):
    """An edit a reviewer must not miss (``warning``), or a quiet word that all is well (``info``)."""

    kind: str  # contradicted | with_code | weakened | hides_change | loosened | block_removed | mutation_score
    level: str  # warning | info
    message: str  # one line, without the case's reference
    function: str | None = None
    case: str | None = None
    line: int | None = None  # at head (None for what the change removed)
    call: str = ""
    verdict: str = ""  # the ReviewVerdict it counts as for --fail-on; "" for none


class SpecReview(NamedTuple):
    """A spec file the change itself touched: which cases were added, removed, changed, moved.

    ``added``/``removed``/``changed``/``moved`` hold ``function[case]`` references (the form
    ``codemode accept`` takes); ``cases`` the details, ``callouts`` what to look at.
    """

    file: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    moved: tuple[str, ...] = ()
    status: str = "modified"  # added | deleted | modified | renamed (the file itself)
    old_file: str | None = None  # renamed: the file's path before
    cases: tuple[CaseChange, ...] = ()
    callouts: tuple[Callout, ...] = ()
    problems: tuple[str, ...] = ()  # a side that could not be read or parsed, one line each


class Cost(NamedTuple):
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    usd: float | None = None
    model: str | None = None


class DiffRun(NamedTuple):
    """The behaviour diff of a run (#18): how many functions it compared, over how many
    processes, in how many seconds. A fact of the run, a field: not a note to match (#34)."""

    functions: int
    processes: int = 1
    seconds: float = 0.0

    def describe(self) -> str:
        """The line a reader sees, without the time (the comment leaves timings out)."""
        plural = "s" if self.functions != 1 else ""
        where = f" in {self.processes} processes" if self.processes > 1 else ""
        return f"behaviour diff: {self.functions} function{plural}{where}"


class Report(NamedTuple):
    functions: tuple[FunctionResult, ...] = ()
    problems: tuple[Problem, ...] = ()
    edits: tuple[SpecEdit, ...] = ()
    reviews: tuple[SpecReview, ...] = ()
    cost: Cost | None = None
    notes: tuple[str, ...] = ()  # non-fatal remarks collected during the run, shown at the end
    mode: str = "check"
    scope: Scope | None = None  # what the run looked at; JSON: its description
    version: int = REPORT_VERSION
    # Facts of the run, fields of their own (#34): the whole run's wall-clock seconds, and the
    # behaviour diff's, when one ran
    elapsed: float | None = None
    diff: DiffRun | None = None

    def counts(self) -> dict[str, int]:
        c: Counter[str] = Counter(f.status for f in self.functions)
        return {v: c.get(v, 0) for v in VERDICTS}

    def case_counts(self) -> dict[str, int]:
        c = Counter(case.status for f in self.functions for case in f.cases)
        return {s: c.get(s, 0) for s in CASE_STATUSES}

    def review_counts(self) -> dict[str, int]:
        """The spec review's call-outs by the verdict word each counts as (#35)."""
        c = Counter(k.verdict for r in self.reviews for k in r.callouts if k.verdict)
        return {v: c.get(v, 0) for v in REVIEW_VERDICTS}

    def reverting(self) -> tuple[str, ...]:
        """``function[case]`` of each case whose expectation the change edited and the code
        contradicts: accepting it writes the observed output over that edit, reverting it (#35)."""
        refs = (
            f"{k.function}[{k.case}]"
            for r in self.reviews
            for k in r.callouts
            if k.kind == "contradicted" and k.case
        )
        return tuple(dict.fromkeys(refs))

    def failing(self, fail_on: Iterable[str]) -> bool:
        fail_on = tuple(fail_on)
        if self.problems and "error" in fail_on:
            return True
        if any(f.status in fail_on for f in self.functions):
            return True
        return any(k.verdict in fail_on for r in self.reviews for k in r.callouts if k.verdict)

    def exit_code(self, fail_on: Iterable[str]) -> int:
        """The one exit rule of check, regen, accept, comment and the action: 1 when a verdict
        in ``fail_on`` occurs (a spec problem counts as ``error``), else 0."""
        return EXIT_FAILED if self.failing(fail_on) else EXIT_OK

    def sorted_functions(self) -> list[FunctionResult]:
        return sorted(self.functions, key=lambda f: (STATUS_ORDER.get(f.status, 9), f.id))

    # --- JSON round trip -------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        # Built by hand, one level at a time: a deep copy of every value costs ~0.3 s on 2,000 cases.
        d = _shallow(self)
        d["functions"] = [
            {
                **_shallow(f),
                "cases": [_case_dict(c) for c in f.cases],
                "witnesses": [_shallow(w) for w in f.witnesses],
                "refused": [_shallow(r) for r in f.refused],
            }
            for f in self.functions
        ]
        for name in ("problems", "edits"):
            d[name] = [_shallow(x) for x in getattr(self, name)]
        d["reviews"] = [_review_dict(r) for r in self.reviews]
        d["cost"] = _shallow(self.cost) if self.cost else None
        d["diff"] = _shallow(self.diff) if self.diff else None
        d["scope"] = self.scope.describe() if self.scope else ""
        d["counts"] = self.counts()
        return d

    def to_json(self, indent: int | None = 2, extra: Mapping[str, Any] | None = None) -> str:
        """The JSON report; ``extra`` adds top-level keys (where the report came from)."""
        import json  # ~2 ms: only the JSON form needs it, not every hook run

        d = {**self.to_dict(), **(extra or {})}
        return json.dumps(d, indent=indent, default=_json_default, allow_nan=True)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Report:
        def case(c: dict[str, Any]) -> CaseResult:
            checks = tuple(Check(**k) for k in c.get("checks", ()))
            return CaseResult(**{**_known(CaseResult, c), "checks": checks})

        def witness(w: dict[str, Any]) -> Witness:
            return Witness(**{**_known(Witness, w), "args": tuple(w.get("args") or ())})

        def func(f: dict[str, Any]) -> FunctionResult:
            return FunctionResult(
                **{
                    **_known(FunctionResult, f),
                    "cases": tuple(case(c) for c in f.get("cases", ())),
                    "impacted_by": tuple(f.get("impacted_by", ())),
                    "via": tuple(f.get("via", ())),
                    "witnesses": tuple(witness(w) for w in f.get("witnesses", ())),
                    "refused": tuple(Refusal(**_known(Refusal, r)) for r in f.get("refused", ())),
                }
            )

        cost, diff = d.get("cost"), d.get("diff")
        return cls(
            functions=tuple(func(f) for f in d.get("functions", ())),
            problems=tuple(Problem(**_known(Problem, p)) for p in d.get("problems", ())),
            edits=tuple(SpecEdit(**_known(SpecEdit, e)) for e in d.get("edits", ())),
            reviews=tuple(_review(r) for r in d.get("reviews", ())),
            cost=Cost(**_known(Cost, cost)) if cost else None,
            notes=tuple(d.get("notes", ())),
            mode=d.get("mode", "check"),
            scope=Scope.from_description(str(d.get("scope") or "")),
            version=d.get("version", REPORT_VERSION),
            elapsed=d.get("elapsed"),
            diff=DiffRun(**_known(DiffRun, diff)) if diff else None,
        )

    @classmethod
    def from_json(cls, text: str) -> Report:
        import json

        return cls.from_dict(json.loads(text))


def merge_reports(reports: list[Report]) -> Report:
    """Combine the reports of sharded jobs into one (functions are disjoint across shards)."""
    if not reports:
        return Report()
    seen: dict[str, FunctionResult] = {}
    for r in reports:
        for f in r.functions:
            prev = seen.get(f.id)
            if prev is None or STATUS_ORDER.get(f.status, 9) < STATUS_ORDER.get(prev.status, 9):
                seen[f.id] = f
    cost = None
    costs = [r.cost for r in reports if r.cost]
    if costs:
        usd = [c.usd for c in costs if c.usd is not None]
        cost = Cost(
            requests=sum(c.requests for c in costs),
            input_tokens=sum(c.input_tokens for c in costs),
            output_tokens=sum(c.output_tokens for c in costs),
            usd=sum(usd) if usd else None,
            model=costs[0].model,
        )
    return Report(
        functions=tuple(sorted(seen.values(), key=lambda f: f.id)),
        problems=_dedupe(p for r in reports for p in r.problems),
        edits=_dedupe(e for r in reports for e in r.edits),
        reviews=_merge_reviews([v for r in reports for v in r.reviews]),
        cost=cost,
        notes=_dedupe(n for r in reports for n in r.notes),
        mode=reports[0].mode,
        scope=reports[0].scope,
        elapsed=max((r.elapsed for r in reports if r.elapsed is not None), default=None),
        diff=_merge_diffs([r.diff for r in reports if r.diff is not None]),
    )


def _merge_diffs(runs: list[DiffRun]) -> DiffRun | None:
    """The shards' diffs as one: their functions are disjoint, and they ran side by side."""
    if not runs:
        return None
    return DiffRun(
        sum(r.functions for r in runs),
        max(r.processes for r in runs),
        max(r.seconds for r in runs),
    )


def _shallow(record: Any) -> dict[str, Any]:
    """One level: the record's fields by name (a new dict), values as they are."""
    return record._asdict()  # type: ignore[no-any-return]


def _case_dict(c: CaseResult) -> dict[str, Any]:
    d = _shallow(c)
    d["checks"] = [_shallow(k) for k in c.checks]
    return d


def _merge_reviews(reviews: list[SpecReview]) -> tuple[SpecReview, ...]:
    """One review per spec file from the shards' (each ran the cases of its own functions:
    a case's status, and a call-out that needs one, come from the shard that ran it)."""
    by_file: dict[str, SpecReview] = {}
    for r in reviews:
        seen = by_file.get(r.file)
        if seen is None:
            by_file[r.file] = r
            continue
        ran = {(c.function, c.id, c.kind): c for c in r.cases if c.status is not None}
        cases = tuple(ran.get((c.function, c.id, c.kind), c) for c in seen.cases)
        callouts: dict[tuple[str, str | None, str | None, str], Callout] = {}
        for k in (*seen.callouts, *r.callouts):
            # a removed block's tally differs by shard: the longer one names what ran
            key = (k.kind, k.function, k.case, "" if k.kind == "block_removed" else k.message)
            if key not in callouts or len(k.message) > len(callouts[key].message):
                callouts[key] = k
        by_file[r.file] = seen._replace(cases=cases, callouts=tuple(callouts.values()))
    return tuple(by_file.values())


def _review_dict(r: SpecReview) -> dict[str, Any]:
    d = _shallow(r)
    d["cases"] = [_shallow(c) for c in r.cases]
    d["callouts"] = [_shallow(c) for c in r.callouts]
    return d


def _review(r: dict[str, Any]) -> SpecReview:
    lists = ("added", "removed", "changed", "moved", "problems")
    return SpecReview(
        **{
            **_known(SpecReview, r),
            **{k: tuple(r.get(k, ())) for k in lists},
            "cases": tuple(
                CaseChange(**{**_known(CaseChange, c), "what": tuple(c.get("what", ()))})
                for c in r.get("cases", ())
            ),
            "callouts": tuple(Callout(**_known(Callout, c)) for c in r.get("callouts", ())),
        }
    )


def _dedupe(items: Any) -> tuple[Any, ...]:
    return tuple(dict.fromkeys(items))


def _known(cls: type, d: dict[str, Any]) -> dict[str, Any]:
    names = set(cls._fields)  # type: ignore[attr-defined]
    return {k: v for k, v in d.items() if k in names}


def _json_default(o: Any) -> Any:
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    if isinstance(o, bytes):
        return o.decode("utf-8", "backslashreplace")
    return repr(o)
