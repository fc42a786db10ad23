"""One verdict per case, whatever runs with it (#12): function A's case mutates a module-level
table that function B reads; `check --all`, `check FILE`, `check --staged` and `accept` agree."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codemode.check.run import run_check
from codemode.config import load_config
from codemode.explore.writing.accept import run_accept
from codemode.scope import Scope
from codemode.worker.pool import Worker
from codemode.worker.python import find_python
from gitkit import git

TABLE = """\
RATES = {"std": 10}


def set_rate(name: str, value: int) -> int:
    RATES[name] = value
    return len(RATES)


def rate(name: str) -> int:
    return RATES.get(name, 0)
"""

# Two files: a.yml runs first under --all, and its case changes RATES before b.yml reads it.
SPEC_A = """\
app.table.set_rate:
  dataset:
    - case: {id: raise_std, inputs: [std, 99], expected: 1}
"""
SPEC_B = """\
app.table.rate:
  dataset:
    - case: {id: std, input: std, expected: 10}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "app").mkdir(parents=True)
    (root / "specs").mkdir()
    (root / "src" / "app" / "__init__.py").write_text("")
    (root / "src" / "app" / "table.py").write_text(TABLE)
    (root / "specs" / "a.yml").write_text(SPEC_A)
    (root / "specs" / "b.yml").write_text(SPEC_B)
    (root / "pyproject.toml").write_text('[project]\nname = "app"\n')
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "init")
    return root


def _verdicts(root: Path, scope: Scope) -> dict[str, str]:
    report = run_check(load_config(root), scope)
    return {f"{f.id}[{c.id}]": c.status for f in report.functions for c in f.cases}


def test_a_module_table_changed_by_one_function_never_reaches_another(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    whole = _verdicts(project, Scope("all"))
    assert whole == {"app.table.set_rate[raise_std]": "passed", "app.table.rate[std]": "passed"}
    alone = _verdicts(project, Scope("paths", paths=("specs/b.yml",)))
    assert alone == {"app.table.rate[std]": "passed"}
    both = _verdicts(project, Scope("paths", paths=("specs/a.yml", "specs/b.yml")))
    assert both == whole
    # A change to both functions, staged: the same two cases, the same verdicts.
    table = project / "src" / "app" / "table.py"
    table.write_text(
        TABLE.replace("return len(RATES)", "return len(list(RATES))").replace(
            "return RATES.get(name, 0)", "return RATES.get(name) or 0"
        )
    )
    git(project, "add", "-A")
    assert _verdicts(project, Scope("staged")) == whole
    report = run_accept(load_config(project), ["app.table.rate[std]"], dry_run=True)
    assert report.notes == ("app.table.rate[std] already passes; nothing to accept",)


def test_without_fork_the_worker_is_replaced_per_block(project: Path) -> None:
    """The fallback where os.fork is missing: a fresh process per function block."""
    config = load_config(project)
    worker = Worker(
        find_python(project, None),
        project,
        ("src",),
        env={**os.environ, "CODEMODE_WORKER_FORK": "0"},
    )
    from codemode.check.verify import Verifier
    from codemode.specs.spec_files import load_spec_file

    specs = [load_spec_file(project / "specs" / n, project) for n in ("a.yml", "b.yml")]
    try:
        result = Verifier(config, worker).verify(specs)
        assert not worker.forks
    finally:
        worker.close()
    assert [c.status for f in result.functions for c in f.cases] == ["passed", "passed"]


def test_a_crash_in_the_forked_child_is_reported_and_the_rest_still_runs(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    (root / "boom.py").write_text(
        "import os\n\n\ndef die(n: int) -> int:\n    os._exit(0)\n\n\n"
        "def fine(n: int) -> int:\n    return n + 1\n"
    )
    (root / "specs" / "s.yml").write_text(
        "boom.die:\n  dataset:\n    - case: {id: a, input: 1, expected: 1}\n"
        "    - case: {id: b, input: 2, expected: 2}\n"
        "boom.fine:\n  dataset:\n    - case: {id: c, input: 1, expected: 2}\n"
    )
    report = run_check(load_config(root), Scope("all"))
    cases = {c.id: (c.status, c.message) for f in report.functions for c in f.cases}
    assert cases["a"][0] == "error" and "exited with code 0" in cases["a"][1]
    assert cases["b"][0] == "error" and cases["c"] == ("passed", "")


def _statuses(root: Path, files: dict[str, str], spec: str) -> dict[str, str]:
    """Write ``files`` and one spec file under ``root``; ``check --all``'s status per case id."""
    for rel, text in {**files, "specs/s.yml": spec}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    report = run_check(load_config(root), Scope("all"))
    return {c.id: c.status for f in report.functions for c in f.cases}


# One child runs a module's functions in turn while none of them changes state; each of these
# writers changes state a different way, and the reader after it must still see the original.
KINDS = {
    "class_attr": ("K.n += 1", "K.n"),
    "instance": ("BOX.items.append(1)", "len(BOX.items)"),
    "default": ("remember(1)", "len(remember.__defaults__[0])"),
    "environ": ("os.environ['APP_FLAG'] = '1'", "len(os.environ.get('APP_FLAG', ''))"),
    "decimal": ("decimal.getcontext().prec = 3", "decimal.getcontext().prec - 28"),
    "rebind": ("globals()['LIMIT'] = 5", "LIMIT"),
    # an equal value of another type: compared by identity, it is a change
    "rebind_equal": ("globals()['LIMIT'] = False", "0 if repr(LIMIT) == '0' else 1"),
    "stdlib_patch": ("math.pi = 3", "0 if math.pi > 3.1 else 1"),
    "module_swap": (
        "sys.modules['json'] = types.ModuleType('json')",
        "0 if hasattr(sys.modules['json'], 'dumps') else 1",
    ),
}
KINDS_MODULE = """\
import decimal
import json
import math
import os
import sys
import types

LIMIT = 0


class K:
    n = 0


class Box:
    def __init__(self):
        self.items = []


BOX = Box()


def remember(x, seen=[]):
    seen.append(x)
    return len(seen)


def pure(x):
    return x
"""


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_function_that_changes_state_ends_its_child(tmp_path: Path, kind: str) -> None:
    write, read = KINDS[kind]
    statuses = _statuses(
        tmp_path / "proj",
        {
            "kinds.py": KINDS_MODULE
            + f"\n\ndef writer(x):\n    {write}\n    return 0\n"
            + f"\n\ndef reader(x):\n    return {read}\n"
        },
        "kinds.pure:\n  dataset:\n    - case: {id: p, input: 1, expected: 1}\n"
        "kinds.writer:\n  dataset:\n    - case: {id: w, input: 1, expected: 0}\n"
        "kinds.reader:\n  dataset:\n    - case: {id: r, input: 1, expected: 0}\n",
    )
    assert statuses == {"p": "passed", "w": "passed", "r": "passed"}, kind


# The worker brings its snapshot up to date after each import instead of walking every module
# again before each fork (leaks.py, #20): what an import adds to another module's table is
# watched from then on, so a block that changes it still ends its child.
REGISTRY = """\
REGISTRY = []


class Thing:
    def __init__(self):
        self.n = 0


def size(x):
    return len(REGISTRY)
"""
PLUGIN = """\
from app import registry

registry.REGISTRY.append(registry.Thing())


def bump(x):
    registry.REGISTRY[0].n += 1
    return 0


def read(x):
    return registry.REGISTRY[0].n
"""


def test_what_an_import_adds_to_another_module_is_watched(tmp_path: Path) -> None:
    files = {
        "src/app/__init__.py": "",
        "src/app/registry.py": REGISTRY,
        "src/app/plugin.py": PLUGIN,
        "pyproject.toml": '[project]\nname = "app"\n',
    }
    statuses = _statuses(
        tmp_path / "proj",
        files,
        "app.registry.size:\n  dataset:\n    - case: {id: s, input: 1, expected: 0}\n"
        "app.plugin.bump:\n  dataset:\n    - case: {id: b, input: 1, expected: 0}\n"
        "app.plugin.read:\n  dataset:\n    - case: {id: r, input: 1, expected: 0}\n",
    )
    assert statuses == {"s": "passed", "b": "passed", "r": "passed"}


def test_a_global_whose_attributes_raise_does_not_stop_the_check(tmp_path: Path) -> None:
    """An object the leak check cannot read (its ``__dict__`` raises) makes the state opaque:
    a child runs one block, and the verdicts are the function's (they were errors: the
    snapshot's exception ended every child)."""
    weird = (
        "class Weird:\n    @property\n    def __dict__(self):\n        raise RuntimeError('no')\n\n\n"
        "W = Weird()\n\n\ndef f(x):\n    return x + 1\n"
    )
    statuses = _statuses(
        tmp_path / "proj",
        {"weird.py": weird},
        "weird.f:\n  dataset:\n    - case: {id: a, input: 1, expected: 2}\n"
        "    - case: {id: b, input: 2, expected: 3}\n",
    )
    assert statuses == {"a": "passed", "b": "passed"}


# A block's replies come in one write (#20); the replies a crashed or hung child held are lost
# with it, and the block's unanswered cases run again one reply a write, so the error falls on
# the case that caused it and the cases before and after it keep their own verdicts.
TROUBLE = """\
import os
import time


def die_on_two(n):
    if n == 2:
        os._exit(0)
    return n


def hang_on_two(n):
    while n == 2:
        time.sleep(0.01)
    return n
"""


def _block(fid: str) -> str:
    rows = "".join(f"    - case: {{id: c{n}, input: {n}, expected: {n}}}\n" for n in (1, 2, 3))
    return f"{fid}:\n  dataset:\n{rows}"


@pytest.mark.parametrize(
    ("fid", "says"),
    [("trouble.die_on_two", "exited with code 0"), ("trouble.hang_on_two", "timed out after 1 s")],
)
def test_a_crash_or_hang_in_a_block_is_its_own_cases_error(
    tmp_path: Path, fid: str, says: str
) -> None:
    root = tmp_path / "proj"
    (root / "specs").mkdir(parents=True)
    (root / "trouble.py").write_text(TROUBLE)
    (root / "pyproject.toml").write_text('[project]\nname = "t"\n\n[tool.codemode]\ntimeout = 1\n')
    (root / "specs" / "s.yml").write_text(_block(fid))
    report = run_check(load_config(root), Scope("all"))
    cases = {c.id: (c.status, c.message) for f in report.functions for c in f.cases}
    assert cases["c1"] == ("passed", "") and cases["c3"] == ("passed", "")
    assert cases["c2"][0] == "error" and says in cases["c2"][1]
