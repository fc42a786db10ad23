"""Statuses agree with an independent check on a synthetic multi-commit history (acceptance 2).

The independent check parses every file of both commits whole and compares functions by
``ast.unparse`` of a docstring-free copy: a different normalizer from the fingerprint's
serializer, and no chunking, no hunks, no outline. Each commit mixes behaviour edits with
edits that must change nothing (docstrings, comments, formatting), renames, moves, deletions,
new files and renamed files.
"""

from __future__ import annotations

import ast
import copy
import itertools
import random
import subprocess
from dataclasses import dataclass, field

import pytest


@dataclass
class Block:
    kind: str  # "func", "async", "class", "nested", "cached", "prop"
    name: str
    k: list[int] = field(default_factory=lambda: [0, 0])
    style: int = 0
    doc: int = 0

    def render(self) -> str:
        d, k0, k1 = f"Doc {self.doc}.", self.k[0], self.k[1]
        if self.kind in ("func", "async", "cached"):
            head = {"func": "def", "async": "async def", "cached": "@functools.lru_cache\ndef"}
            if self.style == 0:
                return (
                    f'{head[self.kind]} {self.name}(x, y=2):\n    """{d}"""\n'
                    f"    total = x * y + {k0}\n    return total\n"
                )
            return (
                f"{head[self.kind]} {self.name}(\n    x,\n    y=2,\n):\n"
                f'    """{d}\n\n    More words.\n    """\n    # a comment ({self.doc})\n'
                f"    total = (x * y\n             + {k0})  # trailing\n    return total\n"
            )
        if self.kind == "nested":
            gap = "\n" if self.style else ""
            return (
                f"def {self.name}(x):\n    def inner(y):\n        return y + {k0}\n{gap}"
                f"    return inner(x) * {k1}\n"
            )
        if self.kind == "prop":
            return (
                f"class {self.name}:\n    @property\n    def value(self):\n        return {k0}\n\n"
                f"    @value.setter\n    def value(self, v):\n        self._v = v + {k1}\n"
            )
        sep = "\n\n" if self.style else "\n"
        return (
            f'class {self.name}:\n    """{d}"""\n\n    def first(self, a):\n        return a + {k0}\n'
            f"{sep}    async def second(self):\n        return {k1}\n"
        )


def render(blocks: list[Block]) -> str:
    return "import functools\n\n\n" + "\n\n".join(b.render() for b in blocks)


# -- the independent check -------------------------------------------------------------------


def _strip(node: ast.AST) -> None:
    for sub in ast.walk(node):
        body = getattr(sub, "body", None)
        if (
            isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            sub.body = body[1:] or [ast.Pass()]


def independent(files: dict[str, str]) -> dict[str, str]:
    """id -> normalized text for every function in ``files`` (path -> source)."""
    out: dict[str, list[str]] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                clone = copy.deepcopy(node)
                _strip(clone)
                clone.name = "_"
                # a def nested in it is part of it (not importable by an id of its own)
                out.setdefault(f"{prefix}.{node.name}", []).append(ast.unparse(clone))
            elif isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}.{node.name}")

    for path, text in files.items():
        module = path.removeprefix("src/").removesuffix(".py").replace("/", ".")
        walk(ast.parse(text).body, module)
    return {k: "\n".join(v) for k, v in out.items()}


def files_at(repo, commit: str) -> dict[str, str]:
    names = repo.git("ls-tree", "-r", "--name-only", commit).splitlines()
    return {
        n: subprocess.run(
            ["git", "show", f"{commit}:{n}"], cwd=repo.root, capture_output=True, text=True
        ).stdout
        for n in names
        if n.endswith(".py")
    }


# -- the history -------------------------------------------------------------------------------


def mutate(rng: random.Random, modules: dict[str, list[Block]], counter: list[int]) -> None:
    def fresh(prefix: str) -> str:
        counter[0] += 1
        return f"{prefix}{counter[0]}"

    for _ in range(rng.randint(3, 7)):
        path = rng.choice(sorted(modules))
        blocks = modules[path]
        op = rng.choice(
            ["edit"] * 4 + ["doc", "style", "rename", "move", "delete", "add", "file", "rmfile"]
        )
        if not blocks and op not in ("add", "file"):
            op = "add"
        if op == "edit":
            b = rng.choice(blocks)
            b.k[rng.randrange(2)] += 1
        elif op == "doc":
            rng.choice(blocks).doc += 1
        elif op == "style":
            b = rng.choice(blocks)
            b.style ^= 1
        elif op == "rename":
            b = rng.choice(blocks)
            b.name = fresh("C" if b.kind in ("class", "prop") else "f")
        elif op == "move":
            b = blocks.pop(rng.randrange(len(blocks)))
            modules[rng.choice(sorted(modules))].append(b)
        elif op == "delete":
            blocks.pop(rng.randrange(len(blocks)))
        elif op == "add":
            kind = rng.choice(["func", "async", "class", "nested", "cached", "prop"])
            blocks.insert(
                rng.randint(0, len(blocks)),
                Block(kind, fresh("C" if kind in ("class", "prop") else "f")),
            )
        elif op == "file":
            target = f"src/pkg/m{fresh('')}.py"
            if rng.random() < 0.5 and len(modules) > 1:
                modules[target] = modules.pop(path)  # a renamed file
            else:
                modules[target] = [Block("func", fresh("f"))]
        elif op == "rmfile" and len(modules) > 2:
            del modules[path]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_statuses_agree_with_an_independent_ast_comparison(repo, seed: int):
    rng = random.Random(seed)
    counter = [0]
    kinds = ["func", "async", "class", "nested", "cached", "prop"]
    modules = {
        f"src/pkg/m{i}.py": [Block(kinds[(i + j) % 6], f"f{i}_{j}") for j in range(5)]
        for i in range(4)
    }
    repo.write("src/pkg/__init__.py", "")
    commits = []
    for step in range(8):
        if step:
            mutate(rng, modules, counter)
        for path in {p.relative_to(repo.root).as_posix() for p in repo.root.glob("src/pkg/m*.py")}:
            if path not in modules:
                (repo.root / path).unlink()
        for path, blocks in modules.items():
            repo.write(path, render(blocks))
        commits.append(repo.commit(f"step {step}"))

    checked = 0
    for old, new in itertools.pairwise(commits):
        before, after = independent(files_at(repo, old)), independent(files_at(repo, new))
        modified = {i for i in before.keys() & after.keys() if before[i] != after[i]}
        added, removed = after.keys() - before.keys(), before.keys() - after.keys()

        result = repo.range(old, new)
        got = repo.statuses(result)
        assert {i for i, s in got.items() if s == "modified"} == modified
        renamed = {
            i: f.renamed_from for i, f in repo.by_id(result).items() if f.status == "renamed"
        }
        assert {i for i, s in got.items() if s == "added"} | renamed.keys() == added
        assert {i for i, s in got.items() if s == "removed"} | set(renamed.values()) == removed
        for new_id, old_id in renamed.items():
            assert after[new_id] == before[old_id], (old_id, new_id)
        impacted = {i for i, s in got.items() if s == "impacted"}
        assert not impacted & (modified | added | removed)
        assert set(after) <= set(result.head_ids)
        checked += len(got)
    assert checked > 10  # the history did change things
