"""All three spec writers go through one transaction (#34): regen, accept and the recording of
behaviour changes, each run through the real CLI in a real git repository, on a spec saved
with a byte order mark, CRLF line endings and comments. After each, the file keeps its form
and its comments, still loads, and every write to the spec folder happened while that spec's
lock was held.

The lock is proved by a probe: the CLI runs under an audit hook (PEP 578) that, at each write
event under ``specs/`` (an open for writing, a rename, a chmod, a removal, a mkdir), tries to
take the spec's ``flock`` itself from a second open file; a lock held by the writer refuses it
(flock locks belong to open files, so this holds within one process). A write made outside
the lock is logged as such.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codemode.specs.spec_files import load_spec_file
from codemode.specs.transaction import Refused, edit_spec
from gitkit import GIT_ENV, git

BOM = b"\xef\xbb\xbf"

CALC = '''\
def add(a: int, b: int) -> int:
    return a + b


def tier(points: int) -> str:
    """The tier a customer's points earn."""
    if points >= 1000:
        return "silver"
    return "bronze"


def double(x: int) -> int:
    return x * 2
'''
CHANGED = CALC.replace("return a + b", "return a + b + 1").replace(
    '    if points >= 1000:\n        return "silver"\n',
    '    if points >= 5000:\n        return "gold"\n    if points >= 1000:\n        return "silver"\n',
)
SHOUT = """\
def shout(text: str) -> str:
    return text.upper()
"""
TESTS = """\
from demo.calc import tier
from demo.shout import shout


def test_tiers():
    assert tier(10) == "bronze"
    assert tier(7000) in ("silver", "gold")


def test_shout():
    assert shout("hi") in ("HI", "HI!")
"""
COMMENTS = (
    "# Hand-written specs for demo.calc: keep these comments.",
    "# the adder",
    "# a hand-written case, above its item",
    "# trailing, on the case",
    "# tiers: the last block's comment",
)
SPEC = f"""\
{COMMENTS[0]}
demo.calc.add:  {COMMENTS[1]}
  dataset:
    {COMMENTS[2]}
    - case: {{id: small, inputs: [1, 2], expected: 3}}  {COMMENTS[3]}
demo.calc.tier:
  {COMMENTS[4]}
  dataset:
    - case: {{id: low, inputs: [10], expected: bronze}}
demo.calc.double:
  dataset:
    - case: {{id: two, inputs: [2], expected: 4}}
"""
HAND_CASES = {("demo.calc.add", "small"), ("demo.calc.tier", "low"), ("demo.calc.double", "two")}

# Runs codemode's CLI under the probe. argv: LOG SPECS_DIR CLI_ARGS...
PROBE = r"""
import fcntl, os, re, sys

log, specs = sys.argv[1], os.path.realpath(sys.argv[2])
busy = []
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
TMP = re.compile(r"^\.(.+)\.\d+\.codemode\.tmp$")  # atomic.py's temp file beside the spec


def spec_of(path):
    # the file whose lock guards a write to `path`: the spec a temp file stands in for
    folder, name = os.path.split(path)
    m = TMP.match(name)
    return os.path.join(folder, m.group(1)) if m else path


def held(path):
    # whether someone holds the lock of `path` (the nearest folder that exists for a new file,
    # as codemode.lock does): taking it from a second open file fails then
    while not os.path.exists(path):
        path = os.path.dirname(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # releases the lock if it was taken here


def writes(event, args):
    if event == "open":
        path, mode, flags = args
        if isinstance(mode, str) and any(c in mode for c in "wax+"):
            return [path]
        return [path] if isinstance(flags, int) and flags & WRITE_FLAGS else []
    if event == "os.rename":
        return [args[0], args[1]]
    if event == "os.mkdir":  # a folder made for a new spec; one that exists is no write
        return [] if os.path.exists(args[0]) else [args[0]]
    if event in ("os.remove", "os.chmod", "os.truncate", "os.utime"):
        return [args[0]]
    return []


def hook(event, args):
    if busy or event not in ("open", "os.rename", "os.remove", "os.chmod", "os.mkdir",
                             "os.truncate", "os.utime"):
        return
    busy.append(1)
    try:
        for path in writes(event, args):
            if isinstance(path, int) or path is None:
                continue
            path = os.path.realpath(os.fsdecode(path))
            if os.path.commonpath([path, specs]) != specs:
                continue
            line = f"{event} {held(spec_of(path))} {os.path.relpath(path, specs)}\n"
            fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            os.write(fd, line.encode())
            os.close(fd)
    finally:
        busy.pop()


sys.addaudithook(hook)
from codemode.cli.main import main
sys.argv = ["codemode", *sys.argv[3:]]
raise SystemExit(main(sys.argv[1:]))
"""


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "demo"
    files = {
        "pyproject.toml": '[project]\nname = "demo"\nversion = "0"\n\n'
        '[tool.codemode]\nsource_roots = ["src"]\n',
        "src/demo/__init__.py": "",
        "src/demo/calc.py": CALC,
        "src/demo/shout.py": SHOUT,
        "tests/test_calc.py": TESTS,
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    (repo / "specs").mkdir()
    (repo / "specs/demo.calc.yml").write_bytes(BOM + SPEC.replace("\n", "\r\n").encode())
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "old")
    # The change: add is off by one (its hand case drifts), tier has a gold tier (a behaviour
    # change the tests' call tier(7000) witnesses), shout ends with "!" (ditto, no spec yet).
    (repo / "src/demo/calc.py").write_text(CHANGED, encoding="utf-8")
    (repo / "src/demo/shout.py").write_text(SHOUT.replace(".upper()", '.upper() + "!"'))
    git(repo, "add", "-A")
    return repo


def _codemode(repo: Path, log: Path, *args: str) -> dict[str, object]:
    env = {**os.environ, **GIT_ENV, "CODEMODE_WARM": "0"}
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(log), str(repo / "specs"), *args, "--format", "json"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode in (0, 1), (args, run.returncode, run.stderr[-3000:])
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    report: dict[str, object] = json.loads(run.stdout)
    return report


def _writes(log: Path) -> list[tuple[str, bool, str]]:
    """The probe's record since the last call: (event, lock held, path under specs/)."""
    if not log.exists():
        return []
    rows = [line.split(" ", 2) for line in log.read_text().splitlines()]
    log.unlink()
    return [(event, held == "True", path) for event, held, path in rows]


def _assert_kept(spec: Path) -> set[tuple[str, str]]:
    """The spec keeps its BOM, CRLF line endings, comments and hand-written cases, and loads
    without a problem; its cases."""
    raw = spec.read_bytes()
    assert raw.startswith(BOM) and not raw[3:].startswith(BOM), raw[:20]
    assert raw.count(b"\n") == raw.count(b"\r\n"), raw.decode("utf-8-sig")
    text = raw.decode("utf-8-sig")
    for comment in COMMENTS:
        assert comment in text, (comment, text)
    loaded = load_spec_file(spec)
    assert loaded.problems == (), loaded.problems
    errors = [(f.id, f.error) for f in loaded.functions if f.error] + [
        (f.id, c.id, c.error) for f in loaded.functions for c in f.cases if c.error
    ]
    assert errors == [], errors
    cases = {(f.id, c.id) for f in loaded.functions for c in f.cases}
    assert cases >= HAND_CASES, cases
    return cases


def _assert_locked(writes: list[tuple[str, bool, str]], name: str) -> None:
    assert any(path == name for _, _, path in writes), writes  # the writer wrote this spec
    outside = [w for w in writes if not w[1]]
    assert outside == [], f"written outside the spec's lock: {outside}"


@pytest.mark.slow  # four CLI runs that explore and diff: seconds each
def test_regen_accept_and_recorded_changes_keep_the_spec_form_under_its_lock(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path)
    spec, log = repo / "specs/demo.calc.yml", tmp_path / "writes.log"
    lines = SPEC.count("\n")

    # accept: a drifted hand-written case takes its observed output
    _codemode(repo, log, "accept", "demo.calc.add[small]")
    _assert_locked(_writes(log), "demo.calc.yml")
    _assert_kept(spec)
    assert b"{id: small, inputs: [1, 2], expected: 4}  # trailing, on the case\r\n" in (
        spec.read_bytes()
    )
    assert spec.read_bytes().count(b"\r\n") == lines

    # recorded behaviour changes (accept FUNCTION --staged): a witness becomes a case, in the
    # spec that has the function and in a new spec for the one that has none
    _codemode(repo, log, "accept", "demo.calc.tier", "demo.shout.shout", "--staged")
    writes = _writes(log)
    _assert_locked(writes, "demo.calc.yml")
    _assert_locked(writes, "demo.shout.yml")
    cases = _assert_kept(spec)
    assert len([c for c in cases if c[0] == "demo.calc.tier"]) > 1, cases
    assert b"expected: gold}\r\n" in spec.read_bytes()
    assert "shout" in (repo / "specs/demo.shout.yml").read_text(encoding="utf-8")

    # regen: generated cases and the codemode: block
    _codemode(repo, log, "regen", "--function", "demo.calc.double")
    _assert_locked(_writes(log), "demo.calc.yml")
    cases = _assert_kept(spec)
    assert len([c for c in cases if c[0] == "demo.calc.double"]) > 1, cases
    assert b"\r\ncodemode:\r\n" in spec.read_bytes()


@pytest.mark.slow
def test_regen_of_a_change_records_its_behaviour_changes_in_the_same_form(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path)
    spec, log = repo / "specs/demo.calc.yml", tmp_path / "writes.log"
    report = _codemode(repo, log, "regen", "--staged")
    _assert_locked(_writes(log), "demo.calc.yml")
    cases = _assert_kept(spec)
    assert b"expected: gold}\r\n" in spec.read_bytes(), report
    assert len([c for c in cases if c[0] == "demo.calc.tier"]) > 2, cases


# --- the transaction itself, on real files -------------------------------------------------

HAND = """\
codemode:
  version: 1
  functions:
    m.f:
      generated: [gen]
m.f:
  dataset:
    - case: {id: hand, inputs: [1], expected: 1}
    - case: {id: gen, inputs: [2], expected: 2}
m.g:
  dataset:
    - case: {id: odd, inputs: [1], expected: 1, bogus: 2}
    - case: {id: dup, inputs: [1], expected: 1}
    - case: {id: dup, inputs: [2], expected: 1}
"""


_GEN = "    - case: {id: gen, inputs: [2], expected: 2}\n"


def _spec(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "specs" / "m.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_an_edit_that_drops_a_hand_written_case_or_breaks_one_is_not_written(
    tmp_path: Path,
) -> None:
    path = _spec(tmp_path, HAND.encode())
    inode = path.stat().st_ino
    for edit, why in (
        (
            lambda t: t.replace("    - case: {id: hand, inputs: [1], expected: 1}\n", ""),
            "m.f[hand]",
        ),
        (lambda t: t.replace("expected: 2}", "expected: 2, nope: 1}"), "line 9: m.f[gen]"),
    ):
        with pytest.raises(Refused, match=re.escape(why)) as refused:
            edit_spec(path, "specs/m.yml", tmp_path, edit)
        assert "specs/m.yml" in str(refused.value) and "nothing was written" in str(refused.value)
        assert path.read_bytes() == HAND.encode() and path.stat().st_ino == inode
    # a generated case may go, and a problem the file had stops no edit, moved or not (m.g's
    # bogus key; its duplicate id, "first at line 13", now 12)
    edited = edit_spec(path, "specs/m.yml", tmp_path, lambda t: t.replace(_GEN, ""))
    assert path.read_text() == HAND.replace(_GEN, "") == edited.new
    assert edited.diff.startswith("--- a/specs/m.yml\n+++ b/specs/m.yml\n"), edited.diff


def test_a_spec_that_is_not_utf8_is_refused_with_its_line(tmp_path: Path) -> None:
    path = _spec(tmp_path, b"m.f:\n  dataset:\n    - case: {id: caf\xe9, input: 1, expected: 1}\n")
    with pytest.raises(
        Refused, match=r"specs/m\.yml: .*line 3: not UTF-8 .*re-save the file as UTF-8"
    ):
        edit_spec(path, "specs/m.yml", tmp_path, lambda t: t + "# more\n")


def test_a_new_spec_is_made_under_its_folder_and_a_dry_run_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "specs" / "deep" / "m.yml"
    add = "m.f:\n  dataset:\n    - case: {id: a, inputs: [1], expected: 1}\n"
    edited = edit_spec(path, "specs/deep/m.yml", tmp_path, lambda t: t + add, dry_run=True)
    assert edited.old == "" and edited.new == add and not (tmp_path / "specs").exists()
    edit_spec(path, "specs/deep/m.yml", tmp_path, lambda t: t + add)
    assert path.read_bytes() == add.encode()  # a new file: UTF-8, LF, no byte order mark
