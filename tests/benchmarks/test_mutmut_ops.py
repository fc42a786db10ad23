"""The independent mutation operators of benchmarks/mutation_score.py (mutmut's, over ast):
each operator's example, and that every mutant differs from the original and compiles."""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import _mutmut_ops as ops

SOURCE = textwrap.dedent(
    '''
    def f(xs, n=2):
        """Docstrings are left alone."""
        out = []
        for x in xs:
            if x is None or x in (1, 2):
                continue
            if x < n and not x == 3:
                break
            out.append(x * 2 + 1.5)
        key = lambda v: v % 3
        return "-".join(map(str, out)), True
    '''
)


def _fn() -> ast.FunctionDef:
    fn = ast.parse(SOURCE).body[0]
    assert isinstance(fn, ast.FunctionDef)
    return fn


def test_each_operator_as_mutmut_writes_it() -> None:
    fn = _fn()
    mutants: dict[str, str] = {}
    for k, (desc,) in enumerate(ops.count(fn)):  # the first site of each description
        mutants.setdefault(desc, ast.unparse(ops.mutate(fn, k)))
    assert "    out = None" in mutants["assignment -> None"]
    assert (
        "continue" not in mutants["keyword continue -> break"].split("for x")[1].split("if x <")[0]
    )
    assert "x is not None" in mutants["comparison Is -> IsNot"]
    assert "x not in (1, 2)" in mutants["comparison In -> NotIn"]
    assert "x <= n" in mutants["comparison Lt -> LtE"]
    assert "x * 2 - 1.5" in mutants["operator Add -> Sub"]
    assert "x / 2" in mutants["operator Mult -> Div"]
    assert "lambda v: None" in mutants["lambda body -> None"]
    assert "x is None and x in (1, 2)" in mutants["keyword Or -> And"]
    assert "'XX-XX'.join" in mutants["string '-' -> 'XX...XX'"]
    assert "False)" in mutants["keyword True -> False"]
    assert "x * 2 + 2.5" in mutants["number 1.5 -> 2.5"]
    assert '"""Docstrings are left alone."""' in mutants["number 1.5 -> 2.5"]


def test_every_mutant_compiles_and_differs() -> None:
    fn = _fn()
    original = ast.unparse(fn)
    sites = ops.count(fn)
    assert len(sites) >= 20
    for k in range(len(sites)):
        text = ast.unparse(ops.mutate(fn, k))
        ast.parse(text)
        assert text != original, sites[k]
    assert ast.unparse(fn) == original  # mutate works on a copy
