"""The mutation operators (worker/mutants.py): what is mutated and what is left alone."""

from __future__ import annotations

import ast

from codemode.worker import mutants

SOURCE = """
def describe(n, gender="male"):
    logger.debug("describing %s", n)
    suffix = (P_("0 (male)", "th"), P_("1 (male)", "st"))[n]
    if gender == "male":
        return _("today") + suffix.upper()
    return ngettext("%d day", "%d days", n) % n
"""


def _sites() -> list[str]:
    fn = ast.parse(SOURCE).body[0]
    assert isinstance(fn, ast.FunctionDef)
    return [desc for desc, _ in mutants.count(fn)]


def test_translation_lookups_and_log_lines_are_not_mutated_but_message_ids_are() -> None:
    sites = _sites()
    # the outputs: message ids, the comparison, the return, a real call
    for kept in ("string 'today' changed", "string 'th' changed", "string '%d days' changed"):
        assert kept in sites
    assert "drop call .upper()" in sites and "Eq -> NotEq" in sites
    # equivalent without a catalog: the lookup dropped, a pgettext context changed, a log line
    assert "drop call _()" not in sites
    assert not any("(male)" in s for s in sites), sites
    assert not any("describing" in s or "debug" in s for s in sites), sites


def test_every_site_still_compiles_to_a_different_function() -> None:
    fn = ast.parse(SOURCE).body[0]
    assert isinstance(fn, ast.FunctionDef)
    original = ast.dump(fn)
    for k in range(len(mutants.count(fn))):
        mutant = mutants.mutate(fn, k)
        assert ast.dump(mutant) != original, k
        compile(ast.Module(body=[mutant], type_ignores=[]), "<m>", "exec")


def test_an_alarm_at_either_edge_of_a_mutant_call_is_its_timeout_not_the_workers_end() -> None:
    """The per-call alarm of the mutation analysis, going off just before the call or just
    after it returned (a loaded machine stops a process at any point), ended the worker
    with a _Hang, and the function's analysis with it: a regen wrote other cases."""
    from codemode.worker.exploring import Calls
    from codemode.worker.runner import Runner

    calls = Calls(Runner(None), {}, (sorted, None, None))
    # The limit is the process's CPU time (a timer the kernel checks at its tick): a call of
    # about 15 ms, with limits from 1 to 40 ms, sees it go off before, during and after it (a
    # list of plain ints is converted without a call per item: 120,000 of them take that long).
    rows = list(range(120_000, 0, -1))
    outcomes = {
        calls.one({"id": "c", "args": [rows]}, 1e-3 * (i % 40 + 1)).get("outcome")
        for i in range(200)
    }
    assert "timeout" in outcomes and "returned" in outcomes  # and no _Hang left the call
