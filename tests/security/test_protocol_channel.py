"""The worker's protocol channel (#21): what the code under review writes can never become a
reply, and a reply that does not fit the protocol is an error of its own case, never exit 3
and never an outcome of another case. Each attack runs the real CLI."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from security_kit import check, make_project

# A stand-in for the project's interpreter that speaks the worker protocol but answers the
# case named in MALFORMED with a reply that does not fit it; every other case returns its
# expectation. After a bad reply codemode replaces the worker: the stand-in answers again.
FAKE = """\
#!{python}
import json, sys
MALFORMED = {malformed}
out = sys.stdout
for line in sys.stdin:
    req = json.loads(line)
    if req.get("op") == "hello":
        out.write(json.dumps({{"ok": True, "fork": True}}) + "\\n")
    elif req.get("op") == "run":
        for case in req["cases"]:
            bad = MALFORMED.get(case["id"])
            if bad is not None:
                out.write(bad + "\\n")
            else:
                out.write(json.dumps({{"case": case["id"], "outcome": "returned", "value": 2}}) + "\\n")
        out.write(json.dumps({{"done": True}}) + "\\n")
    elif req.get("op") == "exit":
        break
    else:
        out.write(json.dumps({{"ok": True, "errors": []}}) + "\\n")
    out.flush()
"""

MALFORMED = {
    "exc_text": '{"case": "exc_text", "outcome": "raised", "exc": "boom"}',
    "lines_int": '{"case": "lines_int", "outcome": "returned", "value": 2, "lines": 5}',
    "fatal_list": '{"fatal": ["x"], "message": "m"}',
    "huge_delta": '{"case": "huge_delta", "outcome": "returned", "value": {"\\u0000t": "timedelta", "v": [10000000000, 0, 0]}}',
    "bad_decimal": '{"case": "bad_decimal", "outcome": "returned", "value": {"\\u0000t": "decimal", "v": "not-a-number"}}',
    "other_case": '{"case": "fine_1", "outcome": "returned", "value": 2}',
    "not_json": "{nope",
    "kind": '{"case": "kind", "outcome": "passed", "value": 2}',
}


def _spec() -> str:
    ids = [*MALFORMED, "fine_1", "fine_2"]
    rows = "".join(f"    - case: {{id: {i}, inputs: [1, 1], expected: 2}}\n" for i in ids)
    return f"hazards.good.add:\n  dataset:\n{rows}"


def test_malformed_replies_are_errors_of_their_own_cases(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"good.yml": _spec()})
    fake = tmp_path / "fake-python"
    fake.write_text(FAKE.format(python=sys.executable, malformed=repr(MALFORMED)))
    fake.chmod(0o755)
    run = check(root, "--python", str(fake))
    assert run.code == 1, run.err[-3000:]  # the verdicts' exit (an error), never 3
    cases = {c["id"]: c for c in run.function("hazards.good.add")["cases"]}
    for cid in MALFORMED:
        assert cases[cid]["status"] == "error", (cid, cases[cid])
        assert "protocol" in cases[cid]["message"] or "unreadable" in cases[cid]["message"], (
            cid,
            cases[cid]["message"],
        )
    assert cases["fine_1"]["status"] == "passed"
    assert cases["fine_2"]["status"] == "passed"
    assert "Traceback" not in run.err


@pytest.mark.parametrize("cid", ["exc_text", "huge_delta", "bad_decimal"])
def test_one_malformed_reply_does_not_stop_the_run(tmp_path: Path, cid: str) -> None:
    rows = f"    - case: {{id: {cid}, inputs: [1, 1], expected: 2}}\n"
    root = make_project(tmp_path, specs={"good.yml": f"hazards.good.add:\n  dataset:\n{rows}"})
    fake = tmp_path / "fake-python"
    fake.write_text(FAKE.format(python=sys.executable, malformed=repr({cid: MALFORMED[cid]})))
    fake.chmod(0o755)
    run = check(root, "--python", str(fake))
    assert run.code == 1, run.err[-3000:]
    assert json.loads(run.out)["functions"][0]["cases"][0]["status"] == "error"


FORGER = '''
import os


def forge(n):
    """Writes a well-formed reply stream to every descriptor it can find: its own case, the
    block's end, then a pass for the next function's case and that block's end."""
    lines = (
        b'{"case":"f0","outcome":"returned","value":1}\\n{"done":true}\\n'
        b'{"case":"v0","outcome":"returned","value":2}\\n{"done":true}\\n'
    )
    for fd in range(256):
        try:
            os.write(fd, lines)
        except OSError:
            pass
    return 1


def victim(a, b):
    return a - b
'''
FORGED_SPEC = """
hazards.forger.forge:
  dataset:
    - case: {id: f0, input: 1, expected: 1}
hazards.forger.victim:
  dataset:
    - case: {id: v0, inputs: [1, 1], expected: 2}
"""


def test_reply_lines_the_function_writes_change_no_verdict(tmp_path: Path) -> None:
    root = make_project(tmp_path, specs={"forged.yml": FORGED_SPEC}, modules={"forger": FORGER})
    run = check(root)
    assert run.code == 1, run.err[-3000:]
    victim = run.function("hazards.forger.victim")["cases"][0]
    assert victim["status"] == "drifted", victim  # 1 - 1 is 0, whatever was written
    assert victim["observed"] == 0
    forge = run.function("hazards.forger.forge")["cases"][0]
    assert forge["status"] in ("passed", "error"), forge  # its own case: never another's
    assert run.status("hazards.good.add") == "ok"
