"""Resolving a spec's function id in the worker (worker/policy.py ``import_path``), in a fresh
interpreter of its own: the policy and the modules it imports are process state."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import importlib.util, json, sys
from codemode.worker import policy
root = sys.argv[1]
sys.path.insert(0, root)
policy.configure(root, [])
searches = []
find_spec = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: searches.append(name) or find_spec(name, *a)
out = {}
for target in sys.argv[2:]:
    before = len(searches)
    try:
        obj, owner, module = policy.import_path(target)
        out[target] = [getattr(obj, "__qualname__", repr(obj)), module.__name__]
    except policy.TargetError as exc:
        out[target] = [exc.kind, str(exc)]
    out[target].append(len(searches) - before)
print(json.dumps(out))
"""


def _resolve(root: Path, *targets: str) -> dict[str, list[object]]:
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(root), *targets],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(run.stdout)  # type: ignore[no-any-return]


def test_functions_of_an_imported_module_resolve_without_a_search(tmp_path: Path) -> None:
    pkg = tmp_path / "shop"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "prices.py").write_text(
        "def total(x):\n    return x\n\n\nclass Cart:\n    def size(self):\n        return 0\n"
    )
    got = _resolve(
        tmp_path, "shop.prices.total", "shop.prices.Cart.size", "shop.prices.gone", "shop.nope.f"
    )
    # The first function of a module finds it (the top package, once); the next ones ask the
    # import system nothing: `shop.prices.Cart` cannot be a module of a plain module (#20).
    assert got["shop.prices.total"] == ["total", "shop.prices", 1]
    assert got["shop.prices.Cart.size"] == ["Cart.size", "shop.prices", 0]
    assert got["shop.prices.gone"][:2] == [
        "missing",
        "shop.prices has no module or attribute 'gone': renamed or removed? Point the spec at "
        "the function's new name, or delete the block",
    ]
    assert got["shop.prices.gone"][2] == 0
    assert got["shop.nope.f"][:2] == [
        "missing",
        "shop has no module or attribute 'nope': renamed or removed? Point the spec at the "
        "function's new name, or delete the block",
    ]
