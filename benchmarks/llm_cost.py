"""What the LLM loop costs and what it writes, with a scripted model that behaves like a real one.

The model (tests/explore/realistic.py) explores the 14 functions (13 kinds) of a small billing
project through the real CLI, behind loopback OpenAI and Anthropic servers (the Anthropic
one with a real Claude model name, so the SDK streams as it does for real): round 1 typical
inputs with honest mistakes (a dict where a model object is wanted, text where a Decimal is,
a misspelt name), round 2 aimed at the lines the tool said were not reached, then it chooses
every call it was shown, junk and random picks included. Methods are called in sequence on
one instance; the values are Decimal, dates, Enums, bytes, lists of pydantic models, a frozen
dataclass, a generator, an async function, a clock reader and a 50/50 random pick.

Per run (``--runs``, alternating the two APIs): requests (what the server saw, and the
report's count), bytes of each request split into the fixed part (instructions and tool
schemas, the same on every request) and the variable part, refusals with their reasons,
junk cases written (an error Python raised for a wrong input, a random pick's output), and
``check`` twice. On the first run: the mutation score of the specs written (module-level
functions; benchmarks/mutation_score.py's mutants), a re-run after a behaviour-preserving
edit of every function, a closed port, and vowel 0.4.0's prompt size (installed at run time
into ~/.cache/codemode-bench/vowel-venv; the comparison never skips).

    python benchmarks/llm_cost.py [--runs 10]

Targets (#22): every function a spec that passes check twice, 0 junk cases in every run,
median requests per function <= 3, mutation score >= 90%, the edited re-run all ok, the fixed
part under 40% of request bytes.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pydantic_ai.models

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests" / "explore"), str(REPO / "benchmarks")]

import loopback  # noqa: E402
import realistic  # noqa: E402

from codemode.cli.main import main as cli  # noqa: E402
from codemode.config import load_config  # noqa: E402
from codemode.specs.index import build_index  # noqa: E402

CACHE = Path.home() / ".cache" / "codemode-bench"
VOWEL = "vowel==0.4.0"
VOWEL_ROUNDS = 2  # vowel's default exploration_rounds, each one request with its explorer prompt
APIS = [
    ("openai", "openai:gpt-4.1-mini", lambda url: url),
    ("anthropic", "anthropic:claude-haiku-4-5", lambda url: url.removesuffix("/v1")),
]
# Errors Python raises when an input is of the wrong kind: written as a case, they are junk.
INCIDENTAL = {"TypeError", "AttributeError", "NameError", "KeyError", "IndexError"}


def regen(root: Path, api: int, *extra: str) -> tuple[int, dict[str, Any], list[Any]]:
    _name, model, base = APIS[api]
    with loopback.serve(realistic.script) as (url, seen):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            argv = ["regen", "--root", str(root), "--all", "--model", model]
            code = cli([*argv, "--base-url", base(url), "--format", "json", "-q", *extra])
    if not out.getvalue().strip():  # a run that ended before its report: say why, go on
        print(f"regen exited {code} without a report: {err.getvalue().strip()[-400:]}")
        return code, {"functions": [], "notes": [], "cost": {"requests": -1}}, list(seen)
    return code, json.loads(out.getvalue()), list(seen)


def split_bytes(seen: list[Any]) -> tuple[int, int]:
    """(fixed, total) bytes over the requests: instructions and tool schemas are fixed."""
    fixed = total = 0
    for s in seen:
        body = s.body
        system = body.get("system") or [
            m for m in body.get("messages", []) if m.get("role") in ("system", "developer")
        ]
        fixed += len(json.dumps(system)) + len(json.dumps(body.get("tools", [])))
        total += len(json.dumps(body))
    return fixed, total


def junk(root: Path) -> list[str]:
    """Written cases that are junk: an incidental error, or a random pick among several."""
    out = []
    for spec in build_index(load_config(root)).files:
        for f in spec.functions:
            for c in f.cases:
                if c.raises in INCIDENTAL:
                    out.append(f"{f.id}[{c.id}]: raises {c.raises}")
                if f.id.endswith("pick_reviewer") and _several(c.input_value):
                    out.append(f"{f.id}[{c.id}]: a random pick among several names")
    return out


def _several(inputs: Any) -> bool:
    names = inputs.get("names") if isinstance(inputs, dict) else (inputs or [None])[0]
    return isinstance(names, list) and len(set(names)) > 1


def check_twice(root: Path) -> list[int]:
    codes = []
    for _ in range(2):
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            codes.append(cli(["check", "--root", str(root), "--all", "-q"]))
    return codes


def one_run(tmp: Path, n: int, api: int) -> dict[str, Any]:
    root = realistic.project(tmp / f"run{n}")
    code, report, seen = regen(root, api)
    fixed, total = split_bytes(seen)
    per_function = Counter(realistic._function(s.text) for s in seen)
    refusals = [r["reason"] for f in report["functions"] for r in f.get("refused", ())]
    return {
        "root": root,
        "api": APIS[api][0],
        "exit": code,
        "statuses": Counter(f["status"] for f in report["functions"]),
        "seen": len(seen),
        "counted": report["cost"]["requests"],
        "per_function": sorted(per_function.values()),
        "fixed": fixed,
        "total": total,
        "refusals": refusals,
        "junk": junk(root),
        "check": check_twice(root),
    }


def mutation(root: Path, ops: Any) -> tuple[int, int, list[str], set[str]]:
    """Mutants of every function written, methods (Wallet's) included: killed, made, the
    survivors, and the functions that had a mutant."""
    from mutation_score import mutate_function

    config = load_config(root)
    by_id = {f.id: (s, f) for s in build_index(config).files for f in s.functions}
    killed = total = 0
    survivors: list[str] = []
    mutated: set[str] = set()
    for fid, pair in sorted(by_id.items()):
        for desc, dead in mutate_function(config, root, fid, pair, 25, ops, methods=True):
            mutated.add(fid.removeprefix(f"{realistic.MODULE}."))
            total += 1
            killed += dead
            if not dead:
                survivors.append(f"{fid}: {desc}")
    return killed, total, survivors, mutated


class _Preserve(ast.NodeTransformer):
    """A behaviour-preserving edit of every function: its body starts with a no-op statement."""

    def _visit(self, node: Any) -> Any:
        self.generic_visit(node)
        node.body.insert(0, ast.parse("_unused = None").body[0])
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _visit


def edited_rerun(root: Path) -> tuple[int, Counter[str], list[int]]:
    path = root / "src" / "billing" / "accounts.py"
    tree = _Preserve().visit(ast.parse(path.read_text()))
    path.write_text(ast.unparse(ast.fix_missing_locations(tree)) + "\n")
    code, report, _ = regen(root, 0)
    return code, Counter(f["status"] for f in report["functions"]), check_twice(root)


def vowel_prompt_chars() -> tuple[int, int]:
    venv = CACHE / "vowel-venv"
    py = venv / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    probe = subprocess.run([str(py), "-c", "import vowel"], capture_output=True, check=False)
    if probe.returncode != 0:
        subprocess.run([str(py), "-m", "pip", "install", "-q", VOWEL], check=True)
    code = (
        "from vowel.codemode import CodeModeGenerator as G\n"
        "g = G.__new__(G); g.min_snippets = 15; g.additional_context = ''\n"
        "print(len(g._explorer_system_prompt()), len(g._spec_system_prompt()))"
    )
    out = subprocess.run([str(py), "-c", code], capture_output=True, text=True, check=True)
    a, b = out.stdout.split()
    return int(a), int(b)


def closed_port_seconds(root: Path) -> tuple[float, int]:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    started = time.perf_counter()
    url = f"http://127.0.0.1:{port}/v1"
    argv = ["regen", "--root", str(root), "--all", "--model", "openai:x", "--base-url", url]
    out = subprocess.run(
        [sys.executable, "-m", "codemode", *argv], capture_output=True, text=True, check=False
    )
    return time.perf_counter() - started, out.returncode


def report_runs(runs: list[dict[str, Any]]) -> bool:
    print(
        f"{'run':>3} {'api':9} {'exit':>4} {'statuses':32} {'seen':>4} {'counted':>7} "
        f"{'fixed%':>6} {'junk':>4} {'check':>7}"
    )
    for i, r in enumerate(runs):
        st = ", ".join(f"{n} {k}" for k, n in sorted(r["statuses"].items()))
        print(
            f"{i + 1:>3} {r['api']:9} {r['exit']:>4} {st:32} {r['seen']:>4} {r['counted']:>7} "
            f"{r['fixed'] / r['total']:>6.0%} {len(r['junk']):>4} {r['check']!s:>7}"
        )
    per = [n for r in runs for n in r["per_function"]]
    fixed, total = sum(r["fixed"] for r in runs), sum(r["total"] for r in runs)
    median = statistics.median(per)
    print(
        f"requests per function: median {median}, max {max(per)}; "
        f"request bytes: {total // sum(r['seen'] for r in runs)} on average, fixed part "
        f"{fixed / total:.0%} (~{fixed // 4 // sum(r['seen'] for r in runs)} tokens of "
        f"~{total // 4 // sum(r['seen'] for r in runs)})"
    )
    # one bucket per kind of reason: the values and counts in it vary from call to call
    reasons = Counter(
        re.sub(r"\d+|\"[^\"]*\"|'[^']*'", "_", x)[:110] for r in runs for x in r["refusals"]
    )
    print(f"refused or left out, over {len(runs)} runs ({sum(reasons.values())}):")
    for why, n in reasons.most_common(8):
        print(f"  {n:>3} x {why}")
    junk = [j for r in runs for j in r["junk"]]
    print(f"junk cases written: {len(junk)} {junk[:5]}")
    every = all(r["statuses"] == Counter({"ok": len(realistic.FUNCTIONS)}) for r in runs)
    counts = all(r["seen"] == r["counted"] for r in runs)
    checks = all(r["check"] == [0, 0] for r in runs)
    print(
        f"every function a spec in every run: {every}; counts = what the server saw: {counts}; "
        f"check twice ok: {checks}"
    )
    return every and counts and checks and not junk and median <= 3 and fixed / total < 0.4


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    pydantic_ai.models.ALLOW_MODEL_REQUESTS = True
    os.environ["NO_PROXY"] = "127.0.0.1,localhost"
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CODEMODE_BASE_URL_KEY"):
        os.environ.pop(key, None)
    tmp = Path(tempfile.mkdtemp(prefix="codemode-llm-cost-"))
    runs = [one_run(tmp, n, n % 2) for n in range(args.runs)]
    ok = report_runs(runs)
    root = runs[0]["root"]
    import _mutmut_ops

    from codemode.worker import mutants as own_ops

    killed, total, survivors, mutated = mutation(root, own_ops)
    score = killed / total if total else 0.0
    print(
        f"mutation score of the specs written (run 1; codemode's operators, worker/mutants.py, "
        f"which the selection aims at): {killed}/{total} = {score:.1%} (target >= 90%); "
        f"survivors: {survivors[:6]}"
    )
    print(f"functions mutated ({len(mutated)}): {', '.join(sorted(mutated))}")
    m_killed, m_total, m_survivors, _ = mutation(root, _mutmut_ops)
    print(
        f"independent operators (mutmut's, benchmarks/_mutmut_ops.py): {m_killed}/{m_total} = "
        f"{m_killed / max(1, m_total):.1%}; survivors: {m_survivors[:6]}"
    )
    code, statuses, checks = edited_rerun(root)
    print(
        f"re-run after a behaviour-preserving edit of every function: exit {code}, "
        f"{dict(statuses)}, check twice {checks}"
    )
    seconds, port_code = closed_port_seconds(root)
    print(f"closed port: exit {port_code} in {seconds:.2f} s (target exit 2, < 2 s)")
    explorer, spec = vowel_prompt_chars()
    ours = statistics.mean(r["total"] / len(realistic.FUNCTIONS) for r in runs) / 4
    src = len((REPO / "tests" / "explore" / "realistic_src" / "accounts.py").read_text()) / 14
    vowel_tokens = (VOWEL_ROUNDS * explorer + spec + 3 * src) / 4
    print(
        f"prompt tokens per function: codemode ~{ours:.0f}, vowel 0.4.0 >= ~{vowel_tokens:.0f} "
        f"(its system prompts alone): {ours / vowel_tokens:.0%}"
    )
    ok = ok and score >= 0.9 and code == 0 and statuses == Counter({"ok": 14})
    ok = ok and checks == [0, 0] and port_code == 2
    print("all targets met" if ok else "TARGETS NOT MET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
