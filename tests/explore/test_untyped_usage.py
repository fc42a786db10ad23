"""Untyped parameters get values from how the body uses them before generic text (#23): on
toolz, 32 cases passed "Hello World" to parameters nothing typed (``reduceby(key, binop,
seq)``), each a TypeError that says nothing about the function."""

from __future__ import annotations

from pathlib import Path

from projectkit import cases, project, regen, spec

SEQS = '''\
def count_over(seq, limit):
    """How many items of seq are over limit."""
    n = 0
    for item in seq:
        if item > limit:
            n += 1
    return n


def reduceby(key, binop, seq):
    out = {}
    for item in seq:
        k = key(item)
        out[k] = binop(out[k], item) if k in out else item
    return out
'''


def test_an_iterated_parameter_gets_collections_and_a_called_one_no_text(tmp_path: Path) -> None:
    root = project(tmp_path, {"src/pkg/seqs.py": SEQS})
    report = regen(root)
    status = {f["id"]: (f["status"], f["message"]) for f in report["functions"]}  # type: ignore[index, union-attr]
    assert status["pkg.seqs.count_over"][0] == "ok", status
    written = cases(spec(root, "pkg.seqs"), "pkg.seqs.count_over")
    seqs = [
        c["inputs"][0] if isinstance(c["inputs"], list) else c["inputs"]["seq"] for c in written
    ]
    assert any(isinstance(s, list) and s for s in seqs), written
    assert not any(c.get("raises") == "TypeError" for c in written), written
    # a parameter the body calls is a function: no text is passed to it, a fixture is asked for
    assert "reduceby" not in str(spec(root, "pkg.seqs").get("pkg.seqs.reduceby", "")), status
    assert "key" in status["pkg.seqs.reduceby"][1] and "fixture" in status["pkg.seqs.reduceby"][1]
