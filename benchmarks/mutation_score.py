"""Mutation score of the specs the offline explorer writes for the shop example.

Copies examples/shop to a temp dir with an empty specs folder, runs `regen` offline for
every module-level function (the sqlite fixture ones aside), checks that the generated
specs pass, then applies simple mutants one at a time (arithmetic and comparison
operators, constants, boolean operators, returns) and counts the mutants whose function's
spec fails. Equivalent mutants count as survivors, so the score is a lower bound.

    python benchmarks/mutation_score.py
"""

from __future__ import annotations

import ast
import copy
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from codemode.check.run import make_worker
from codemode.check.verify import Verifier
from codemode.config import load_config
from codemode.explore.regen import run_regen
from codemode.scope import Scope
from codemode.specs.index import build_index

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "shop"
SKIP_MODULES = {"store"}  # needs the sqlite fixture, which a generated spec does not know
_SWAPS: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.And: ast.Or,
    ast.Or: ast.And,
}


def function_ids(root: Path) -> list[str]:
    ids = []
    for path in sorted((root / "src" / "shop").glob("*.py")):
        if path.stem in SKIP_MODULES or path.stem == "__init__":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                ids.append(f"shop.{path.stem}.{node.name}")
    return ids


def _mutations(fn: ast.FunctionDef) -> Iterator[tuple[str, ast.AST, str, object]]:
    """(description, node, attribute, new value) for each simple mutant in ``fn``."""
    doc = fn.body[0] if fn.body and isinstance(fn.body[0], ast.Expr) else None
    for node in ast.walk(fn):
        if node is doc:
            continue
        if (isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _SWAPS) or (
            isinstance(node, ast.BoolOp) and type(node.op) in _SWAPS
        ):
            yield (
                f"{type(node.op).__name__}->{_SWAPS[type(node.op)].__name__}",
                node,
                "op",
                _SWAPS[type(node.op)](),
            )
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in _SWAPS:
                    ops = list(node.ops)
                    ops[i] = _SWAPS[type(op)]()
                    yield f"{type(op).__name__}->{type(ops[i]).__name__}", node, "ops", ops
        elif isinstance(node, ast.Constant) and not isinstance(node.value, bool):
            if isinstance(node.value, int):
                yield f"{node.value}->{node.value + 1}", node, "value", node.value + 1
            elif isinstance(node.value, float):
                yield f"{node.value}->{node.value * 2 + 1}", node, "value", node.value * 2 + 1
        elif isinstance(node, ast.Return) and node.value is not None:
            yield "return->None", node, "value", ast.Constant(None)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield "not-removed", node, "op", ast.UAdd()


def mutants(source: str, name: str) -> Iterator[tuple[str, str]]:
    tree = ast.parse(source)
    index = next(
        i for i, n in enumerate(tree.body) if isinstance(n, ast.FunctionDef) and n.name == name
    )
    count = len(list(_mutations(tree.body[index])))  # type: ignore[arg-type]
    for k in range(count):
        t = copy.deepcopy(tree)
        desc, node, attr, value = list(_mutations(t.body[index]))[k]  # type: ignore[arg-type]
        if attr == "op" and isinstance(value, ast.UAdd):
            # `not x` -> `x`: replace the UnaryOp by its operand in the parent
            for parent in ast.walk(t):
                for field, child in ast.iter_fields(parent):
                    if child is node:
                        setattr(parent, field, node.operand)  # type: ignore[attr-defined]
                    elif isinstance(child, list) and node in child:
                        child[child.index(node)] = node.operand  # type: ignore[attr-defined]
        else:
            setattr(node, attr, value)
        yield desc, ast.unparse(ast.fix_missing_locations(t))


def main() -> int:
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="codemode-mutation-"))
    try:
        root = tmp / "shop"
        shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("specs", "__pycache__"))
        (root / "specs").mkdir()
        config = load_config(root)
        ids = function_ids(root)
        report = run_regen(config, Scope("all"), dry_run=False, function_ids=tuple(ids))
        written = [f.id for f in report.functions if f.status == "ok"]
        by_id = {f.id: (s, f) for s in build_index(config).files for f in s.functions}
        worker = make_worker(config)
        passing = []
        try:
            for fid in written:
                s, f = by_id[fid]
                fr, _ = Verifier(config, worker).verify_function(s, f)
                if fr.status == "ok":
                    passing.append(fid)
        finally:
            worker.close()
        print(
            f"functions explored: {len(ids)}; specs written: {len(written)}; passing: {len(passing)}"
        )
        total = killed = 0
        survivors: list[str] = []
        for fid in passing:
            module, name = fid.rsplit(".", 1)
            path = root / "src" / Path(*module.split(".")).with_suffix(".py")
            original = path.read_text(encoding="utf-8")
            s, f = by_id[fid]
            try:
                for desc, text in mutants(original, name):
                    path.write_text(text, encoding="utf-8")
                    worker = make_worker(config.replace(timeout=2.0))
                    try:
                        fr, _ = Verifier(config, worker).verify_function(s, f)
                    finally:
                        worker.close()
                    total += 1
                    if fr.status != "ok":
                        killed += 1
                    else:
                        survivors.append(f"{fid}: {desc}")
            finally:
                path.write_text(original, encoding="utf-8")
        score = killed / total if total else 0.0
        for s_ in survivors:
            print(f"  survived: {s_}")
        print(f"mutants: {total}; killed: {killed}; survived: {total - killed}")
        print(f"mutation score: {score:.1%} (target >= 80%)")
        print(f"elapsed: {time.perf_counter() - started:.1f} s")
        return 0 if score >= 0.8 and len(passing) >= 20 else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
