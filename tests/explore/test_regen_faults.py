"""A bug of ours while exploring one function is that function's problem (#23): the others
are explored and written, the report says it in one line, the traceback goes to a log under
the cache; and a run that dies keeps the functions it finished."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from projectkit import project, regen

from codemode.cli.main import main
from codemode.explore.offline import explorer

# toolz 0.12.1's memoize docstring: a dict keyed by a tuple stopped `regen --all` at function
# 36 of 94 with exit 3, and nothing was written.
FUNCTOOLZ = '''\
def memoize(func, cache=None, key=None):
    """Cache a function's result for speedy future evaluation

    >>> @memoize(cache={(1, 2): 3})
    ... def add(x, y):
    ...     return x + y
    >>> memoize(len, cache={(1, 2): 3})  # doctest: +SKIP
    """
    if cache is None:
        cache = {}

    def memof(*args):
        k = key(args) if key else args
        if k not in cache:
            cache[k] = func(*args)
        return cache[k]

    return memof


def identity(x):
    """Identity function. Return x

    >>> identity(3)
    3
    """
    return x
'''

THREE = """\
def first(n: int) -> int:
    return n + 1


def second(n: int) -> int:
    return n * 2


def third(n: int) -> int:
    return n - 3
"""


def test_a_docstring_keying_a_dict_by_a_tuple_is_explored(tmp_path: Path) -> None:
    root = project(tmp_path, {"src/pkg/functoolz.py": FUNCTOOLZ})
    report = regen(root)  # --all: exits 0 or 1, never 3
    status = {f["id"]: (f["status"], f.get("message", "")) for f in report["functions"]}
    assert status["pkg.functoolz.identity"][0] == "ok", status
    assert "internal error" not in status["pkg.functoolz.memoize"][1], status
    spec = yaml.safe_load((root / "specs" / "pkg.functoolz.yml").read_text())
    assert "pkg.functoolz.identity" in spec


def _breaking(fid: str, exc: BaseException, monkeypatch: pytest.MonkeyPatch) -> None:
    real = explorer.explore

    def explore(info: Any, *args: Any, **kwargs: Any) -> Any:
        if info.id == fid:
            raise exc
        return real(info, *args, **kwargs)

    monkeypatch.setattr(explorer, "explore", explore)


def test_an_internal_error_on_one_function_leaves_the_others_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(tmp_path, {"src/pkg/three.py": THREE})
    _breaking("pkg.three.second", KeyError("a bug of ours"), monkeypatch)
    code = main(["regen", "--root", str(root), "--all", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    status = {f["id"]: f["status"] for f in report["functions"]}
    assert code == 0, report
    assert status == {
        "pkg.three.first": "ok",
        "pkg.three.second": "missing",
        "pkg.three.third": "ok",
    }
    message = next(f["message"] for f in report["functions"] if f["id"] == "pkg.three.second")
    assert "internal error while exploring (KeyError: 'a bug of ours')" in message
    log = root / ".git" / "codemode-cache" / "regen-errors.log"
    assert str(log) in message
    assert "Traceback" in log.read_text() and "a bug of ours" in log.read_text()
    spec = yaml.safe_load((root / "specs" / "pkg.three.yml").read_text())
    assert {"pkg.three.first", "pkg.three.third"} <= set(spec)
    assert "pkg.three.second" not in spec


def test_a_run_that_dies_keeps_the_functions_it_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path, {"src/pkg/three.py": THREE})
    (root / "pyproject.toml").write_text(
        '[tool.codemode]\nsource_roots = ["src"]\nconcurrency = 1\n'
    )
    _breaking("pkg.three.third", KeyboardInterrupt(), monkeypatch)
    code = main(["regen", "--root", str(root), "--all", "-q"])
    assert code != 0  # interrupted
    spec = yaml.safe_load((root / "specs" / "pkg.three.yml").read_text())
    assert {"pkg.three.first", "pkg.three.second"} <= set(spec)
    assert "pkg.three.third" not in spec
