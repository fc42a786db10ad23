"""The leak check by dicts' version tags (worker/dictversions.py, #20), from the CLI under every
supported interpreter: once a worker has run TAGS_AFTER blocks, its children compare dicts by
their tags first, and a block that changes state still ends its child, each way a block can
change one (a module global, a class attribute, an object's attribute, a dict's item, another
module's global, a list, the environment). On 3.13 an object's attribute dict is compared item
by item (its stores bypass the tag): the ``attribute`` kind is the test of that."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from appkit import case, statuses
from codemode.cli.main import main
from codemode.worker import dictversions
from codemode.worker.runner import TAGS_AFTER

PYENV = Path.home() / ".pyenv" / "versions"

# kind: (what the writer does, what the reader returns: 0 while the state is the original)
KINDS = {
    "global": ("globals()['LIMIT'] = 5", "LIMIT"),
    "global_equal_other_type": ("globals()['LIMIT'] = False", "0 if repr(LIMIT) == '0' else 1"),
    "class": ("Box.n += 1", "Box.n"),
    "attribute": ("BOX.label = 'x'", "len(getattr(BOX, 'label', ''))"),
    "attribute_deleted": ("del BOX.size", "0 if hasattr(BOX, 'size') else 1"),
    "item": ("TABLE['k'] = 1", "len(TABLE)"),
    # reordered without a change to its table, which the tag watches: compared item by item
    "reordered": ("ORDER.move_to_end('a')", "0 if list(ORDER) == ['a', 'b'] else 1"),
    "other_module": ("math.pi = 3", "0 if math.pi > 3.1 else 1"),
    "list": ("BOX.items.append(1)", "len(BOX.items)"),
    "environ": ("os.environ['APP_FLAG'] = '1'", "len(os.environ.get('APP_FLAG', ''))"),
}
MODULE = """\
import collections
import gc
import math
import os
import sys

LIMIT = 0
TABLE = {}
ORDER = collections.OrderedDict(a=1, b=2)


class Box:
    n = 0

    def __init__(self):
        self.items = []
        self.size = 3


BOX = Box()


def tags_in_use(x):
    # this child's leak check reads version tags (dictversions.Tags)
    return any(
        type(o).__name__ == "Tags" and type(o).__module__ == "_codemode_worker.dictversions"
        for o in gc.get_objects()
    )
"""


def _project(root: Path) -> Path:
    pads = "".join(f"\n\ndef pad{i}(x):\n    return x\n" for i in range(TAGS_AFTER))
    kinds = "".join(
        f"\n\ndef write_{k}(x):\n    {w}\n    return 0\n\n\ndef read_{k}(x):\n    return {r}\n"
        for k, (w, r) in KINDS.items()
    )
    (root / "app").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "pad.py").write_text(pads)
    # imported after the pads ran: the worker forks a new child for it, with tags
    (root / "app" / "kinds.py").write_text(MODULE + kinds)
    lines = [
        f"app.pad.pad{i}:\n  dataset:\n    - case: {{id: p{i}, input: 1, expected: 1}}\n"
        for i in range(TAGS_AFTER)
    ]
    lines.append(
        "app.kinds.tags_in_use:\n  dataset:\n    - case: {id: tags, input: 1, expected: true}\n"
    )
    for k in KINDS:  # each reader runs after its writer, in the order of the file
        lines.append(
            f"app.kinds.write_{k}:\n  dataset:\n    - case: {{id: w_{k}, input: 1, expected: 0}}\n"
        )
        lines.append(
            f"app.kinds.read_{k}:\n  dataset:\n    - case: {{id: r_{k}, input: 1, expected: 0}}\n"
        )
    (root / "specs").mkdir()
    (root / "specs" / "kinds.yml").write_text("".join(lines))
    (root / "pyproject.toml").write_text('[project]\nname = "app"\n')
    return root


def _interpreters() -> list[Any]:
    found = {m: sorted(PYENV.glob(f"{m}.*/bin/python")) for m in ("3.10", "3.11", "3.12", "3.13")}
    return [pytest.param(str(f[-1]) if f else None, id=m) for m, f in found.items()]


@pytest.mark.slow
@pytest.mark.parametrize("python", _interpreters())
def test_every_kind_of_change_ends_its_child_when_tags_are_read(
    tmp_path: Path, python: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    if python is None:
        pytest.skip("that Python is not installed under ~/.pyenv")
    root = _project(tmp_path / "proj")
    code = main(
        [
            "check",
            "--root",
            str(root),
            "--python",
            python,
            "--jobs",
            "1",
            "--all",
            "--format",
            "json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    statuses = {c["id"]: c["status"] for f in report["functions"] for c in f["cases"]}
    failed = {i: s for i, s in statuses.items() if s != "passed"}
    assert failed == {} and len(statuses) == TAGS_AFTER + 1 + 2 * len(KINDS)
    assert code == 0


def test_a_tag_moves_with_each_change_of_a_dict() -> None:
    d: dict[str, object] = {"a": 1, "b": 2}
    tags = dictversions.watch([d])
    assert tags is not None  # CPython 3.10 to 3.13: the field is there
    for change in (
        lambda: d.__setitem__("a", object()),
        lambda: d.__delitem__("a"),
        lambda: d.update(c=3),
        lambda: d.pop("b"),
        lambda: d.clear(),
    ):
        before = tags.read()
        assert tags.read() == before  # reading is no change
        change()
        assert tags.read() != before
    before = tags.read()
    d.get("x")
    list(d.items())
    assert tags.read() == before  # neither is reading the dict


REGISTRY = """\
TABLE = {}


class Thing:
    def __init__(self):
        self.n = 0


def size(x):
    return len(TABLE)
"""
PLUGIN = """\
from app import registry

registry.TABLE["p"] = registry.Thing()  # an import that adds to another module's dict


def bump(x):
    registry.TABLE["p"].n += 1
    return 0


def read(x):
    return registry.TABLE["p"].n
"""


def test_what_an_import_adds_to_a_tagged_dict_is_watched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The worker's snapshot walks again only the dicts whose tags moved since the last fork
    # (_State.still): the one the plugin's import added to must be one of them.
    spec = case("registry.size", "s", "1", "0") + case("plugin.bump", "b", "1", "0")
    spec += case("plugin.read", "r", "1", "0")
    got = _after_pads(tmp_path, {"registry": REGISTRY, "plugin": PLUGIN}, spec, capsys)
    assert set(got.values()) == {"passed"}, got


def _after_pads(
    root: Path, modules: dict[str, str], spec: str, capsys: pytest.CaptureFixture[str]
) -> dict[str, str]:
    """``statuses`` with TAGS_AFTER pure blocks first: the forks after them read tags."""
    pads = "".join(f"\n\ndef pad{i}(x):\n    return x\n" for i in range(TAGS_AFTER))
    first = "".join(case(f"pad.pad{i}", f"p{i}", "1", "1") for i in range(TAGS_AFTER))
    return statuses(root, {"pad": pads, **modules}, first + spec, capsys)


AT_FORK = """\
import os

TABLE = {}
os.register_at_fork(after_in_child=lambda: TABLE.__setitem__("x", []))


def end(x):
    globals()["E"] = x  # a change: the next block gets a fresh child
    return 0


def grow(x):
    TABLE["x"].append(x)
    return len(TABLE["x"])


def read(x):
    return len(TABLE["x"])
"""


def test_what_an_at_fork_handler_puts_in_a_dict_is_never_left_unwatched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The child forked after `end` has tags, and the handler has put a new list into TABLE: the
    # tags keep the worker's baseline, so `grow` changing that list ends the child (taking the
    # fork's tags as the baseline left the list out of sight, and `read` saw 1).
    spec = case("fork.end", "e", "1", "0") + case("fork.grow", "g", "1", "1")
    spec += case("fork.read", "r", "1", "0")
    got = _after_pads(tmp_path, {"fork": AT_FORK}, spec, capsys)
    assert set(got.values()) == {"passed"}, got
