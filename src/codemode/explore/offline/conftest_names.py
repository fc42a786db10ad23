"""The fixtures and names a test's ``conftest.py`` files give it, for its harvested calls (#32).

pytest hands a test the fixtures of the ``conftest.py`` in its folder and in every folder
above it (the nearest defining a name wins), and a project's shared inputs live there: a
parsed document, a configured instance, a sample mapping. The carrier of a test file's calls
(explore/offline/test_names.py) looked only in the file, so a test taking ``doc`` from a
conftest fixture was dropped ("a name the test file binds no value to"), and a function
whose tests all did so kept no maintainers' input. Read here, statically as the file's own:
the one-expression fixtures (``return Doc("a, ,b")``), the module-level assignments, and the
absolute imports that bind the names those need (a relative import names a package the
worker's setup does not run in: left out, so a call that needs one is dropped as before).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

from codemode.explore.offline.receivers import fixture_returns
from codemode.explore.offline.row_bindings import Env, assignments

MAX_UP = 8  # folders climbed from a test file: past a project's tests/<area>/<sub>/
# a folder that holds one of these is the project's root, where pytest's rootdir stops the
# search as well
_ROOT_MARKS = ("pyproject.toml", "setup.cfg", "setup.py", "pytest.ini", "tox.ini", ".git")


class Outer(NamedTuple):
    fixtures: Env  # fixture name -> the expression it returns or yields
    env: Env  # module-level ``name = value``
    imports: dict[str, str]  # a name -> the import statement that binds it


EMPTY = Outer({}, {}, {})


def outer_names(test_file: Path | None) -> Outer:
    """What the conftest.py files above ``test_file`` give its tests (the nearest wins)."""
    trees = conftest_trees(test_file)
    if not trees:
        return EMPTY
    fixtures: Env = {}
    env: Env = {}
    imports: dict[str, str] = {}
    for tree in reversed(trees):  # the farthest first: a nearer one's name replaces it
        fixtures.update(fixture_returns(tree))
        env.update(assignments(tree.body))
        imports.update(_imports(tree))
    return Outer(fixtures, env, imports)


def conftest_trees(test_file: Path | None) -> list[ast.Module]:
    """The conftest.py files pytest gives ``test_file``'s tests, parsed, the nearest first."""
    if test_file is None:
        return []
    from codemode.explore.offline.harvest import kept_once

    # once per run and folder: each test file is read for every function it names, by the
    # calls', the instances' and the tables' readers each
    folder = test_file.parent
    return kept_once("conftests", str(folder), lambda: _trees(folder))  # type: ignore[no-any-return]


def _trees(folder: Path) -> list[ast.Module]:
    from codemode.explore.offline.harvest import parsed

    trees: list[ast.Module] = []
    for _ in range(MAX_UP):
        conftest = folder / "conftest.py"
        if conftest.is_file():
            tree = parsed(conftest)[1]
            if tree is not None:
                trees.append(tree)
        if folder.parent == folder or any((folder / m).exists() for m in _ROOT_MARKS):
            break
        folder = folder.parent
    return trees


def _imports(tree: ast.Module) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                out[(a.asname or a.name).split(".")[0]] = ast.unparse(ast.Import([a]))
        elif isinstance(node, ast.ImportFrom) and not node.level:
            for a in node.names:
                if a.name != "*":
                    line = ast.unparse(ast.ImportFrom(node.module, [a], 0))
                    out[a.asname or a.name] = line
    return out
