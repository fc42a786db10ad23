"""Model requests, prompt tokens and model-visible bytes per function, with a scripted model
that writes snippets the way a model does, on functions with rich types; then the mutation
score of the specs written, an unchanged re-run, a closed port, and vowel's prompt size.

The scripted model sees what a real one sees (the prompt and every tool output) and answers
like one: round 1, snippets that import ``decimal`` and ``datetime``, build the project's
dataclasses, Enum members, pydantic models and classes, call methods in sequence on one
instance and catch the project's exceptions; round 2 only when lines were left unreached;
then it chooses one call per distinct outcome. Every request is measured as the characters
sent (instructions, messages, tool schemas; tokens ~ characters / 4).

vowel 0.4.0 is installed at run time into its own venv (~/.cache/codemode-bench/vowel-venv);
its prompt size is measured from the installed package: its explorer system prompt (sent on
each of its 2 exploration rounds) and its spec system prompt, plus the same function source.
When vowel cannot be installed the benchmark fails: the comparison is never skipped.

    python benchmarks/llm_cost.py
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pydantic_ai.models
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from codemode.check.run import make_worker, run_check
from codemode.check.verify import Verifier
from codemode.config import load_config
from codemode.explore.writing.regen import run_regen
from codemode.scope import Scope
from codemode.specs.index import build_index

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False
REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "shop"
BILLING = REPO / "tests" / "explore" / "billing_src" / "core.py"
CACHE = Path.home() / ".cache" / "codemode-bench"
VOWEL = "vowel==0.4.0"
VOWEL_ROUNDS = 2  # vowel's default exploration_rounds, each one request with its explorer prompt

D = "from decimal import Decimal\n"
B = "from billing.core import "
SNIPPETS: dict[str, list[str]] = {
    "billing.core.with_vat": [
        D
        + B
        + "with_vat\nfor a in ['10.00', '0', '99.99', '0.01']:\n    print(a, with_vat(Decimal(a)))\n"
        "print(with_vat(Decimal('100'), rate=Decimal('0.07')))\n"
        "try:\n    with_vat(Decimal('-1'))\nexcept ValueError as e:\n    print('rejected', e)",
    ],
    "billing.core.due_date": [
        "import datetime\n" + B + "due_date\n"
        "for d, n in [(datetime.date(2024, 1, 31), 30), (datetime.date(2024, 2, 28), 1), (datetime.date(2023, 12, 31), 0)]:\n"
        "    r = due_date(d, n)\n    print(r, r.weekday())\n"
        "try:\n    due_date(datetime.date(2024, 1, 1), -1)\nexcept ValueError as e:\n    print(e)",
    ],
    "billing.core.line_total": [
        D + B + "Item, line_total\nfor p, q in [('2.50', 3), ('0.10', 1), ('19.99', 10)]:\n"
        "    print(line_total(Item(sku='A-1', price=Decimal(p), qty=q)))\n"
        "try:\n    line_total(Item('B-2', Decimal('1'), 0))\nexcept ValueError as e:\n    print(e)",
    ],
    "billing.core.status_label": [
        B
        + "Status, status_label\nfor s in (Status.OPEN, Status.PAID):\n    print(s.name, status_label(s))",
    ],
    "billing.core.greeting": [
        B + "Customer, greeting\nprint(greeting(Customer(name='Ada', vip=True)))\n"
        "print(greeting(Customer(name='Bob')))\nprint(greeting(Customer(name='')))",
    ],
    "billing.core.split": [
        D + B + "split\nfor amount, n in [('10', 3), ('10', 1), ('0.05', 2), ('100', 4)]:\n"
        "    parts = split(Decimal(amount), n)\n    print(parts, sum(parts))\n"
        "try:\n    split(Decimal('1'), 0)\nexcept ValueError as e:\n    print(e)",
    ],
    "billing.core.Ledger.withdraw": [
        D + B + "Ledger, InsufficientFunds\nl = Ledger(Decimal('5'))\nl.deposit(Decimal('10'))\n"
        "print(l.withdraw(Decimal('3')), l.balance)\nprint(l.withdraw(Decimal('12')))\n"
        "try:\n    l.withdraw(Decimal('0.01'))\nexcept InsufficientFunds as e:\n    print('caught', e)",
    ],
    "billing.core.invoice_total": [
        D
        + B
        + "Item, invoice_total\nitems = [Item('A', Decimal('2.50'), 2), Item('B', Decimal('1.25'))]\n"
        "print(invoice_total(items), invoice_total(items, Decimal('0.1')))\n"
        "try:\n    invoice_total([])\nexcept ValueError as e:\n    print(e)",
    ],
    "billing.core.overdue_days": [
        "import datetime\n" + B + "overdue_days\nd = datetime.date(2024, 3, 1)\n"
        "for t in [datetime.date(2024, 2, 1), d, datetime.date(2024, 3, 2), datetime.date(2025, 3, 1)]:\n"
        "    print(t, overdue_days(d, t))",
    ],
    "billing.core.parse_amount": [
        B
        + "parse_amount\nfor t in ['12.50', ' 1,234.56 ', '(3.20)', '0', '-7']:\n    print(repr(t), parse_amount(t))\n"
        "for bad in ['', '   ']:\n    try:\n        parse_amount(bad)\n    except ValueError as e:\n        print(e)",
    ],
    "billing.core.next_status": [
        B + "Status, next_status\nprint(next_status(Status.OPEN))\n"
        "try:\n    next_status(Status.PAID)\nexcept ValueError as e:\n    print(e)",
    ],
    "billing.core.credit_limit": [
        B
        + "Customer, credit_limit\nfor c in [Customer(name='Ada', vip=True), Customer(name='Acme Ltd'), Customer(name='Bob')]:\n"
        "    print(c.name, credit_limit(c))",
    ],
    "billing.core.period": [
        "import datetime\n" + B + "period\nstart = datetime.datetime(2024, 1, 1, 9, 0)\n"
        "for end in [datetime.datetime(2024, 1, 1, 17, 30), start, datetime.datetime(2024, 1, 3)]:\n"
        "    p = period(start, end)\n    print(p, p.total_seconds())\n"
        "try:\n    period(start, datetime.datetime(2023, 12, 31))\nexcept ValueError as e:\n    print(e)",
    ],
    "billing.core.checksum": [
        B
        + "checksum\nfor data in [b'', b'abc', b'\\xff\\x01', b'\\x00\\x00']:\n    print(data, checksum(data))",
    ],
    "billing.core.bounds": [
        B
        + "bounds\nfor v in [(3, 1, 2), (5,), (-1, 0, 1)]:\n    lo, hi = bounds(v)\n    print(lo, hi)\n"
        "try:\n    bounds(())\nexcept ValueError as e:\n    print(e)",
    ],
    "shop.dates.add_business_days": [
        "import datetime\nfrom shop.dates import add_business_days\n"
        "for d, n in [(datetime.date(2024, 1, 5), 1), (datetime.date(2024, 1, 6), 0), (datetime.date(2024, 1, 1), 10)]:\n"
        "    r = add_business_days(d, n)\n    print(r, r.weekday())\n"
        "try:\n    add_business_days(datetime.date(2024, 1, 1), -1)\nexcept ValueError as e:\n    print(e)",
    ],
    "shop.dates.quarter": [
        "import datetime\nfrom shop.dates import quarter\n"
        "for m in (1, 3, 4, 6, 7, 9, 10, 12):\n    print(m, quarter(datetime.date(2024, m, 15)))",
    ],
}
FUNCTIONS = tuple(SNIPPETS)


class Model:
    """The scripted model: snippets, then one call per distinct outcome. Counts what it is sent."""

    def __init__(self) -> None:
        self.sent: dict[str, list[int]] = {}  # function id -> characters sent per request
        self.answered: dict[str, int] = {}  # function id -> characters of the model's answers

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        text = "\n".join(
            str(p.content)
            for m in messages
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, (UserPromptPart, ToolReturnPart))
        )
        calls = "".join(
            json.dumps(p.args) if not isinstance(p.args, str) else p.args
            for m in messages
            if isinstance(m, ModelResponse)
            for p in m.parts
            if isinstance(p, ToolCallPart)
        )
        fid = re.search(r"Function `([\w.]+)`", text).group(1)  # type: ignore[union-attr]
        tools = [*info.function_tools, *info.output_tools]
        schema = json.dumps([t.parameters_json_schema for t in tools])
        self.sent.setdefault(fid, []).append(
            len(text) + len(calls) + len(schema) + len(info.instructions or "")
        )
        ran = sum(
            1 for m in messages for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)
        )
        if ran == 0 and info.function_tools:
            args: dict[str, Any] = {"snippets": SNIPPETS[fid]}
            self.answered[fid] = self.answered.get(fid, 0) + len(json.dumps(args))
            return ModelResponse(parts=[ToolCallPart("run_snippets", args)])
        chosen: dict[str, int] = {}
        for m in re.finditer(r"^\s*#(\d+) .*?( -> | raises )(.*)$", text, re.M):
            outcome = m.group(2) + m.group(3)[:60]
            chosen.setdefault(outcome, int(m.group(1)))
        cases = [
            {"call": n, "id": f"case_{n}", "reason": "a distinct outcome"} for n in chosen.values()
        ]
        self.answered[fid] = self.answered.get(fid, 0) + len(json.dumps(cases[:10]))
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, {"cases": cases[:10]})])


def project(tmp: Path) -> Path:
    root = tmp / "project"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("specs", "__pycache__"))
    (root / "specs").mkdir()
    (root / "src" / "billing").mkdir()
    (root / "src" / "billing" / "__init__.py").write_text("")
    shutil.copy(BILLING, root / "src" / "billing" / "core.py")
    return root


def explore(root: Path) -> tuple[Model, Any]:
    model = Model()
    config = load_config(root)
    report = run_regen(
        config,
        Scope("all"),
        dry_run=False,
        model=FunctionModel(model, model_name="scripted"),
        function_ids=FUNCTIONS,
    )
    return model, report


def mutation_score(root: Path, written: list[str]) -> tuple[int, int]:
    sys.path.insert(0, str(Path(__file__).parent))
    from mutation_score import mutants  # the offline benchmark's mutants, one operator each

    config = load_config(root)
    by_id = {f.id: (s, f) for s in build_index(config).files for f in s.functions}
    total = killed = 0
    for fid in written:
        module, name = fid.rsplit(".", 1)
        if module.endswith("Ledger"):
            continue  # methods: the mutant generator takes module-level functions
        path = root / "src" / Path(*module.split(".")).with_suffix(".py")
        original = path.read_text(encoding="utf-8")
        spec, func = by_id[fid]
        try:
            for _desc, text in mutants(original, name):
                path.write_text(text, encoding="utf-8")
                worker = make_worker(config.replace(timeout=2.0))
                try:
                    fr, _ = Verifier(config, worker).verify_function(spec, func)
                finally:
                    worker.close()
                total += 1
                killed += fr.status != "ok"
        finally:
            path.write_text(original, encoding="utf-8")
    return killed, total


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
    named = [a for fid in FUNCTIONS for a in ("--function", fid)]
    started = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "codemode",
            "regen",
            "--root",
            str(root),
            *named,
            "--model",
            "openai:x",
            "--base-url",
            f"http://127.0.0.1:{port}/v1",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return time.perf_counter() - started, out.returncode


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="codemode-llm-cost-"))
    try:
        root = project(tmp)
        model, report = explore(root)
        status = {f.id: f for f in report.functions}
        print(
            f"{'function':34} {'req':>3} {'in tok':>7} {'out tok':>7} {'bytes shown':>11}  result"
        )
        for fid in FUNCTIONS:
            f = status[fid]
            shown = re.search(r"(\d+) bytes shown", f.message)
            req = len(model.sent.get(fid, []))
            tokens = sum(model.sent.get(fid, [])) // 4
            print(
                f"{fid:34} {req:>3} {tokens:>7} {model.answered.get(fid, 0) // 4:>7} {shown.group(1) if shown else '-':>11}  {f.status}: {f.message[:60]}"
            )
        c = report.cost
        requests = [len(model.sent.get(fid, [])) for fid in FUNCTIONS]
        median = statistics.median(requests)
        print(
            f"requests: {c.requests} for {len(FUNCTIONS)} functions, median {median} per function; "
            f"tokens: {c.input_tokens} in / {c.output_tokens} out (pydantic-ai's count)"
        )
        written = [fid for fid, f in status.items() if f.status == "ok"]
        check = run_check(load_config(root), Scope("all"))
        bad = [f.id for f in check.functions if f.status != "ok"]
        print(
            f"specs written: {len(written)} of {len(FUNCTIONS)}; check: {len(check.functions) - len(bad)} ok, {len(bad)} not ({bad})"
        )
        killed, total = mutation_score(root, written)
        score = killed / total if total else 0.0
        print(
            f"mutation score of the specs written: {killed}/{total} = {score:.1%} (target >= 85%)"
        )
        again, _ = explore(root)
        rerun = sum(len(v) for v in again.sent.values())
        print(f"unchanged re-run (functions named, answer cache): {rerun} requests (target 0)")
        seconds, code = closed_port_seconds(root)
        print(
            f"closed port, {len(FUNCTIONS)} functions: exit {code} in {seconds:.2f} s (target exit 2, < 2 s)"
        )
        explorer, spec = vowel_prompt_chars()
        src = statistics.mean(len(s) for s in SNIPPETS.values())  # vowel sends the source too
        vowel_tokens = (VOWEL_ROUNDS * explorer + spec + 3 * src) / 4
        ours = statistics.mean(sum(v) / 4 for v in model.sent.values())
        print(
            f"vowel 0.4.0: explorer prompt {explorer} chars x {VOWEL_ROUNDS} + spec prompt {spec} chars "
            f"= ~{vowel_tokens:.0f} prompt tokens/function (system prompts alone: a lower bound)"
        )
        print(
            f"codemode: ~{ours:.0f} prompt tokens/function = {ours / vowel_tokens:.1%} of vowel's (target <= 25%)"
        )
        ok = median <= 3 and rerun == 0 and score >= 0.85 and ours <= vowel_tokens / 4 and code == 2
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
