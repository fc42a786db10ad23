"""``check --jobs N`` (#20): the same report as one worker, whatever the lanes, with real
workers, real files and the real command; a module's state still never reaches another
function's verdict."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from codemode.check import lanes
from codemode.check.lanes import Unit
from codemode.specs.load import parse_spec_text
from lanekit import codemode

SHOP = Path(__file__).resolve().parents[2] / "examples" / "shop"


def report(root: Path, *args: str, **env: str) -> tuple[int, dict[str, Any]]:
    code, out, err = codemode(root, "check", "--format", "json", *args, **env)
    assert code in (0, 1), err
    data = json.loads(out)
    data.pop("elapsed")
    for f in data["functions"]:
        for c in f["cases"]:
            c.pop("duration_ms", None)
    return code, data


def worker_pids(root: Path) -> set[str]:
    """The workers that ran a block of ``probe.whoami`` (each writes its parent's pid)."""
    return {p.name for p in (root / "pids").iterdir()}


PROBE = """\
import os


def whoami(x: int) -> int:
    os.makedirs("pids", exist_ok=True)
    open(os.path.join("pids", str(os.getppid())), "w").close()  # the block's child's worker
    return x
"""


def test_the_shop_reports_the_same_with_three_lanes(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root, ignore=shutil.ignore_patterns("__pycache__"))
    serial = report(root, "--all", "--jobs", "1")
    assert serial[1]["counts"]["drifted"] == 1  # the example's deliberate drift
    assert report(root, "--all", "--jobs", "3") == serial
    assert report(root, "--all") == serial  # the default: the cores available


def _hundred_files(root: Path) -> None:
    """100 modules, one spec file each: passing, drifted and raising cases, in some files a
    bad block, a file-scoped fixture, or a call of ``probe.whoami`` that names its worker."""
    (root / "pkg").mkdir(parents=True)
    (root / "specs").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "probe.py").write_text(PROBE)
    # the probe's pid files are the test's evidence: writes on purpose, allowed (#31)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "hundred"\n\n[tool.codemode.effects]\nwrites = ["pids/**"]\n'
    )
    for m in range(100):
        (root / "pkg" / f"m{m:03d}.py").write_text(
            "def make():\n    return {'n': 0}\n\n\n"
            f"def add(x: int, y: int) -> int:\n    return x + y + {m}\n\n\n"
            "def half(x: int) -> int:\n    if x < 0:\n        raise ValueError('negative')\n"
            "    return x // 2\n\n\ndef count(box: dict, x: int) -> int:\n"
            "    box['n'] += x\n    return box['n']\n"
        )
        rows = "\n".join(
            f"    - case: {{id: a{i}, inputs: [{i}, 1], expected: {i + 1 + m + (m % 7 == i)}}}"
            for i in range(4)
        )
        spec = (
            f"pkg.m{m:03d}.add:\n  dataset:\n{rows}\n"
            f"pkg.m{m:03d}.half:\n  dataset:\n    - case: {{id: h, input: 9, expected: 4}}\n"
            "    - case: {id: neg, input: -1, raises: ValueError, match: negative}\n"
        )
        if m % 10 == 1:
            spec = f"fixtures:\n  box: {{setup: pkg.m{m:03d}.make, scope: file}}\n" + spec
            spec += (
                f"pkg.m{m:03d}.count:\n  fixture: [box]\n  dataset:\n"
                "    - case: {id: one, input: 2, expected: 2}\n"
                "    - case: {id: two, input: 3, expected: 5}\n"
            )
        if m % 5 == 0:
            spec += "pkg.probe.whoami:\n  dataset:\n    - case: {id: w, input: 1, expected: 1}\n"
        if m % 25 == 3:
            spec += f"pkg.m{m:03d}.add:\n  dataset: [{{case: {{id: x, bogus: 1}}}}]\n"
        (root / "specs" / f"m{m:03d}.yml").write_text(spec)


def test_a_hundred_files_report_the_same_in_lanes(tmp_path: Path) -> None:
    root = tmp_path / "hundred"
    _hundred_files(root)
    code, serial = report(root, "--all", "--jobs", "1")
    assert len(worker_pids(root)) == 1
    assert code == 1 and serial["counts"]["drifted"] and serial["problems"]
    assert serial["counts"]["ok"] > 50  # the file fixture's count among them: 2 then 5
    shutil.rmtree(root / "pids")
    assert report(root, "--all", "--jobs", "2") == (code, serial)
    assert len(worker_pids(root)) == 2  # two lanes, a worker each


def test_a_staged_change_reports_the_same_in_lanes(tmp_path: Path) -> None:
    """The hook's scope: the change's blocks split between lanes, from the specs parsed once."""
    root = tmp_path / "hundred"
    _hundred_files(root)
    git = ["git"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)
    probe = root / "pkg" / "probe.py"
    probe.write_text(probe.read_text().replace("return x", "return x + 0"))
    for m in range(0, 100, 3):
        module = root / "pkg" / f"m{m:03d}.py"
        module.write_text(module.read_text().replace("x // 2", "x >> 1"))
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    code, serial = report(root, "--staged", "--no-diff", "--jobs", "1")
    assert code == 1 and len(serial["functions"]) > 30
    shutil.rmtree(root / "pids")
    assert report(root, "--staged", "--no-diff", "--jobs", "2") == (code, serial)
    assert len(worker_pids(root)) == 2


TABLE = """\
RATES = {"std": 10}


def set_rate(name: str, value: int) -> int:
    RATES[name] = value
    return len(RATES)


def rate(name: str) -> int:
    return RATES.get(name, 0)


def also_rate(name: str) -> int:
    return RATES.get(name, 0)
"""


def test_a_state_leak_still_cannot_change_a_verdict_under_two_lanes(tmp_path: Path) -> None:
    """The writer and the readers in one file (split between the lanes) and in files of their
    own (one lane runs a reader after the writer): every reader still sees the module as
    imported."""
    root = tmp_path / "leak"
    (root / "app").mkdir(parents=True)
    (root / "specs").mkdir()
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "table.py").write_text(TABLE)
    (root / "pyproject.toml").write_text('[project]\nname = "leak"\n')
    write = "app.table.set_rate:\n  dataset:\n" + "".join(
        f"    - case: {{id: w{i}, inputs: [std, {90 + i}], expected: 1}}\n" for i in range(40)
    )
    read = "".join(
        f"app.table.{name}:\n  dataset:\n"
        + "".join(f"    - case: {{id: r{i}, input: std, expected: 10}}\n" for i in range(40))
        for name in ("rate", "also_rate")
    )
    (root / "specs" / "a_writer.yml").write_text(write)
    (root / "specs" / "b_reader.yml").write_text(read)
    (root / "specs" / "c_both.yml").write_text(write + read)
    _, serial = report(root, "--all", "--jobs", "1")
    assert set(c["status"] for f in serial["functions"] for c in f["cases"]) == {"passed"}
    assert report(root, "--all", "--jobs", "2") == (0, serial)
    assert report(root, "--all", "--jobs", "3") == (0, serial)


def test_bad_jobs_values_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.codemode]\njobs = -1\n")
    code, _, err = codemode(tmp_path, "check", "--all")
    assert code == 2 and "jobs must not be negative" in err
    (tmp_path / "pyproject.toml").write_text("[tool.codemode]\njobs = 2\n")
    code, _, err = codemode(tmp_path, "check", "--all", "--jobs", "zero")
    assert code == 2 and "--jobs 'zero': write a number of lanes from 1 to 1024" in err


# --- the plan (pure) -----------------------------------------------------------------------


def test_the_plan_keeps_files_whole_and_splits_one_heavier_than_a_share() -> None:
    plan = lanes.plan([100, 100, 100, 100], 2)
    assert plan == [[Unit(0), Unit(2)], [Unit(1), Unit(3)]]
    assert lanes.plan([1000, 10, 10], 2) == [[Unit(0, 0, 2), Unit(1)], [Unit(0, 1, 2), Unit(2)]]
    assert lanes.plan([5], 4) == [
        [Unit(0, 0, 4)],
        [Unit(0, 1, 4)],
        [Unit(0, 2, 4)],
        [Unit(0, 3, 4)],
    ]


def test_the_queue_splits_a_heavy_file_finer_than_a_share_largest_first() -> None:
    # 4 parts per lane: the 1000-weight file is 8 of the shares (1020 / 8), in 8 parts.
    units = lanes.queue([1000, 10, 10], 2)
    assert units == [*(Unit(0, k, 8) for k in range(8)), Unit(1), Unit(2)]
    # A share is 540 / 8 = 67.5: the 300 goes in 4 parts of 75; a 100 is about one share.
    assert lanes.queue([100, 300, 100, 40], 2) == [
        Unit(0),
        Unit(2),
        *(Unit(1, k, 4) for k in range(4)),
        Unit(3),
    ]


def _whoami(units: Any, send: Any) -> None:
    import os
    import time

    for unit in units:
        if unit.spec == 0:
            time.sleep(2.0)  # the one slow unit
        send((unit, os.getpid()))


def test_a_free_lane_takes_the_next_unit_instead_of_waiting_for_its_share() -> None:
    """The lane that drew the slow unit keeps it alone; the other takes every other unit
    (a fixed plan would have given it half of them, after the slow one)."""
    units = [Unit(n) for n in range(6)]
    pieces = lanes.run_queue(units, 2, _whoami)
    assert [u for u, _ in pieces] == units  # each once, in the serial order
    slow = pieces[0][1]
    assert [pid for _, pid in pieces[1:]] == [pieces[1][1]] * 5 and pieces[1][1] != slow


def test_a_torn_unit_number_ends_the_draw_instead_of_spinning() -> None:
    import os

    read, write = os.pipe()
    os.write(write, (0).to_bytes(4, "little") + b"\x01\x00")  # one number and half of one
    os.close(write)
    try:
        assert list(lanes._Drawn(read, [Unit(0), Unit(1)])) == [Unit(0)]
    finally:
        os.close(read)


def test_past_what_the_pipe_holds_each_lane_takes_a_share(monkeypatch: Any) -> None:
    monkeypatch.setattr(lanes, "QUEUE_MAX", 3)
    units = [Unit(n) for n in range(1, 8)]
    pieces = lanes.run_queue(units, 2, _whoami)
    assert [u for u, _ in pieces] == units
    assert len({pid for _, pid in pieces}) == 2


def test_the_parts_of_a_file_cover_its_blocks_once_in_order(tmp_path: Path) -> None:
    text = "".join(
        f"m.f{n}:\n  dataset:\n"
        + "".join(
            f"    - case: {{id: c{i}, input: {i}, expected: {i}}}\n" for i in range(n % 4 + 1)
        )
        for n in range(9)
    )
    spec = parse_spec_text(text, tmp_path / "s.yml", "s.yml")
    for parts in (2, 3, 5):
        got = [
            f.id
            for k in range(parts)
            for f in lanes.part_of(spec, Unit(0, k, parts), None, None).functions
        ]
        assert got == [f.id for f in spec.functions]
    shared = parse_spec_text(
        "fixtures:\n  db: {setup: m.make, scope: file}\n" + text, tmp_path / "s.yml", "s.yml"
    )
    assert lanes.part_of(shared, Unit(0, 0, 2), None, None) == shared
    assert lanes.part_of(shared, Unit(0, 1, 2), None, None).functions == ()


def test_a_number_of_jobs_is_taken_as_given_and_the_default_pays_its_way() -> None:
    assert lanes.lane_count(3, 0) == 3
    assert lanes.lane_count(0, 10) == 1  # a few cases: one worker
    assert lanes.lane_count(0, 10**9) == lanes.available_cores()


def test_a_thread_started_outside_threading_keeps_the_run_serial() -> None:
    """pytest-xdist's execnet starts its thread with ``_thread``: ``threading`` does not count
    it, and a lane forked beside it hung on a lock that thread held."""
    import _thread
    import threading

    stop = threading.Event()
    _thread.start_new_thread(stop.wait, (30,))
    try:
        assert not lanes.can_fork()
    finally:
        stop.set()


# The wall refuses os.kill of another process (#31), and Landlock scopes signals to the
# worker: the killer goes past the audit hook through ctypes, with Landlock turned off, as
# code that sets out to escape would (or the OOM killer).
KILLER = """\
import ctypes
import os


def killer(x):
    worker = os.getppid()  # the block runs in a child of the worker, the worker in a lane
    with open(f"/proc/{worker}/stat") as f:
        lane = int(f.read().rsplit(")", 1)[1].split()[1])
    ctypes.CDLL(None).kill(lane, 9)
    return x


def same(x):
    return x
"""


def test_a_lane_killed_by_the_code_under_test_costs_its_own_functions_only(
    tmp_path: Path,
) -> None:
    """A function that kills its lane ended `check --jobs 2` with exit 3 (the lane's results
    missing); its lane's functions are now errors that say why, and the rest is reported."""
    if not Path("/proc/self/stat").exists():
        return  # the function finds its lane through /proc
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    (root / "killer.py").write_text(KILLER)
    rows = "\n".join(f"    - case: {{id: c{i}, input: {i}, expected: {i}}}" for i in range(400))
    (root / "specs" / "a.yml").write_text(f"killer.same:\n  dataset:\n{rows}\n")
    (root / "specs" / "b.yml").write_text(
        "killer.killer:\n  dataset:\n    - case: {id: k, input: 1, expected: 1}\n"
    )
    code, data = report(root, "--all", "--jobs", "2", CODEMODE_WORKER_LANDLOCK="0")
    statuses = {f["id"]: (f["status"], f.get("message", "")) for f in data["functions"]}
    assert code == 1
    assert statuses["killer.killer"][0] == "error"
    assert "ended without its results" in statuses["killer.killer"][1]
    assert statuses["killer.same"][0] == "ok"  # the other lane's work stands


def test_a_lane_s_records_reach_the_parent_as_they_were() -> None:
    # Lanes pickle their results through report.model's own __reduce__ (#20): records of the
    # same class, equal field by field, nested ones included.
    import pickle

    from codemode.report.model import CaseResult, Check, FunctionResult

    case = CaseResult(
        "c1",
        "drifted",
        3,
        True,
        {"a": [1, 2.5]},
        None,
        "why",
        "diff",
        0.25,
        (Check("expected", False, "expected 1, observed 2"), Check("type", None)),
        True,
        "f(1)",
    )
    result = FunctionResult("m.f", "drifted", "specs/m.yml", 1, (case,), impacted_by=("x",))
    back = pickle.loads(pickle.dumps([result], pickle.HIGHEST_PROTOCOL))[0]
    assert back == result and type(back) is FunctionResult
    assert type(back.cases[0]) is CaseResult and type(back.cases[0].checks[0]) is Check
    assert back.cases[0]._asdict() == case._asdict()
