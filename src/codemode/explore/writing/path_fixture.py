"""A parameter that names a path the function writes to gets the ``codemode.tmp_path``
fixture (#31).

The wall stops every write outside the run's scratch folder, so ``save(path, text)`` explored
with guessed paths (``'Hello World'``, ``'a'``) is stopped on every call and gets no case.
The evidence of which parameter is the path is in the stopped calls themselves: the
operation the wall names (``open('Hello World', 'w')``, ``shutil.rmtree('cache')``) holds the
value the call passed for that parameter. Given the fixture in its place (a fresh folder, or a
file inside one), the function is explored again and its cases are written with the fixture.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from codemode.explore.record import CallRecord, Recorder
from codemode.explore.target import TargetInfo

TMP_PATH = "codemode.tmp_path"  # worker/fixtures.py's built-in fixture
# Operations on a file named by the path (it gets a file inside a fresh folder); any other
# write (rmtree, mkdir, a file below it) treats the path as a folder (it gets the folder).
_FILE_OPS = ("open(", "sqlite3.connect(", "os.truncate(", "os.remove(", "os.utime(")


def _stopped_op(record: CallRecord) -> str | None:
    if not record.message.startswith("blocked: "):
        return None
    return record.message[len("blocked: ") :].split(": codemode's wall")[0]


def _bound(record: CallRecord, info: TargetInfo) -> dict[str, Any]:
    names = [p.name for p in info.params if p.kind in ("positional", "positional_only")]
    return {**dict(zip(names, record.args)), **record.kwargs}


def path_fixture(records: Sequence[CallRecord], info: TargetInfo) -> dict[str, Any] | None:
    """The fixture (its wire form, named after the parameter) for the parameter whose values
    the wall saw written to in most stopped calls; None when no parameter explains them."""
    votes: Counter[tuple[str, bool]] = Counter()
    for record in records:
        op = _stopped_op(record)
        if op is None:
            continue
        for name, value in _bound(record, info).items():
            if isinstance(value, str) and value.strip() and value in op:
                as_file = repr(value) in op and op.startswith(_FILE_OPS)
                votes[(name, as_file)] += 1
    if not votes:
        return None
    (name, as_file), _ = votes.most_common(1)[0]
    return {"name": name, "setup": TMP_PATH, "scope": "case", "args": [f"{name}.out"] * as_file}


def as_spec(fixture: dict[str, Any] | None) -> tuple[tuple[str, dict[str, Any]], ...]:
    """The (name, mapping) pairs a spec file's ``fixtures:`` holds for ``fixture`` (if any)."""
    if fixture is None:
        return ()
    body: dict[str, Any] = {"setup": fixture["setup"]}
    if fixture.get("args"):
        body["args"] = list(fixture["args"])
    if fixture.get("kwargs"):  # codemode.build's lines and value (built_fixture.py, #32)
        body["kwargs"] = dict(fixture["kwargs"])
    return ((fixture["name"], body),)


def with_fixture(recorder: Recorder, fixture: dict[str, Any], done: Any) -> Recorder:
    """A fresh recorder of the same function with ``fixture`` in place of its parameter; the
    report's note (``done.notes``) names the operation stopped and the fixture given."""
    first = next((op for op in map(_stopped_op, recorder.records) if op), "")
    done.notes.append(
        f"{recorder.target}: its calls were stopped writing to `{fixture['name']}` (blocked: "
        f"{first}); explored again with the {TMP_PATH} fixture in its place"
    )
    return given(recorder, fixture)


def given(recorder: Recorder, fixture: dict[str, Any]) -> Recorder:
    """A fresh recorder of the same function with ``fixture`` in place of its parameter."""
    return Recorder(
        recorder.worker,
        recorder.target,
        [fixture],
        [fixture["name"]],
        recorder.file_key,
        recorder.serializer,
    )
