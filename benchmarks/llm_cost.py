"""Model requests and prompt size per function, with a scripted model, against vowel's CodeMode.

The scripted model answers like a real one, with realistic sizes: a plan of a few loop
snippets over planned inputs (about 1,500 characters), and a choice of 6-10 calls with ids
and reasons. Every request is measured as the characters actually sent: instructions, user
prompt and the output tool's JSON schema (tokens ~ characters / 4 for both sides).

Runs, on a temp copy of the shop example (nothing is written to examples/):
  1. no coverage round, 2. one coverage round (the first plan misses branches),
  3. the same functions again with nothing changed.
vowel 0.4.0's prompt sizes are measured from the installed package (/tmp/vowelenv, or
`pip install vowel==0.4.0` into a separate venv): its explorer system prompt, sent on each
of its 2 exploration rounds, and its ~39,000-character spec system prompt.

    python benchmarks/llm_cost.py
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pydantic_ai.models
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from codemode.config import load_config
from codemode.explore.offline import plan_calls
from codemode.explore.regen import run_regen
from codemode.explore.target import load_target
from codemode.scope import Scope

pydantic_ai.models.ALLOW_MODEL_REQUESTS = False
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "shop"
FUNCTIONS = (
    "shop.shipping.parcel_size",
    "shop.shipping.shipping_cost",
    "shop.shipping.delivery_days",
    "shop.inventory.reorder_point",
    "shop.inventory.abc_class",
    "shop.inventory.batch_code",
    "shop.customers.loyalty_tier",
    "shop.customers.display_name",
    "shop.pricing.split_bill",
    "shop.text.slugify",
)
VOWEL_PY = Path("/tmp/vowelenv/bin/python")
VOWEL_ROUNDS = 2  # vowel's default exploration_rounds, each one request with its explorer prompt


class Model:
    """Scripted answers built from the function's planned inputs; counts what each request sends."""

    def __init__(self, root: Path, miss_first: bool) -> None:
        self.config = load_config(root)
        self.miss_first = miss_first
        self.requests: list[tuple[str, int]] = []  # (function id, characters sent)

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        text = "\n".join(
            str(p.content)
            for m in messages
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, UserPromptPart)
        )
        fid = re.search(r"Function `([\w.]+)`", text).group(1)  # type: ignore[union-attr]
        schema = json.dumps([t.parameters_json_schema for t in info.output_tools])
        sent = len(text) + len(schema) + len(info.instructions or "")
        self.requests.append((fid, sent))
        if "Recorded calls:" in text:
            numbers = [int(n) for n in re.findall(r"^#(\d+) ", text, re.M)]
            step = max(1, len(numbers) // 8)
            answer: dict[str, Any] = {
                "cases": [
                    {
                        "call": n,
                        "id": f"case_{n}",
                        "reason": "covers a distinct behaviour of the function",
                    }
                    for n in numbers[::step][:10]
                ]
            }
        else:
            target = load_target(self.config, fid)
            calls = [c for c in plan_calls(target) if not c[1]]
            coverage = "not reached yet" in text
            if self.miss_first and not coverage:
                calls = calls[:2]
            answer = {
                "snippets": [
                    _snippet(target.name, calls[i : i + 12])
                    for i in range(0, min(len(calls), 48), 12)
                ]
            }
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, answer)])


def _snippet(name: str, calls: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> dict[str, str]:
    rows = ",\n    ".join(repr(list(a)) for a, _ in calls)
    code = f"cases = [\n    {rows},\n]\nfor args in cases:\n    try:\n        {name}(*args)\n    except Exception:\n        pass\n"
    return {"purpose": f"typical, boundary and error inputs of {name}", "code": code}


def vowel_prompt_chars() -> tuple[int, int] | None:
    if not VOWEL_PY.exists():
        return None
    code = (
        "from vowel.codemode import CodeModeGenerator as G\n"
        "g = G.__new__(G); g.min_snippets = 15; g.additional_context = ''\n"
        "print(len(g._explorer_system_prompt()), len(g._spec_system_prompt()))"
    )
    out = subprocess.run([str(VOWEL_PY), "-c", code], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return None
    a, b = out.stdout.split()
    return int(a), int(b)


def run(root: Path, rounds: int, miss_first: bool, label: str) -> tuple[float, float]:
    model = Model(root, miss_first)
    config = load_config(root).replace(coverage_rounds=rounds)
    report = run_regen(
        config,
        Scope("all"),
        dry_run=False,
        model=FunctionModel(model, model_name="scripted"),
        function_ids=FUNCTIONS,
    )
    ok = sum(1 for f in report.functions if f.status == "ok")
    n = len(FUNCTIONS)
    chars = sum(c for _, c in model.requests)
    per_fn_req = len(model.requests) / n
    per_fn_tokens = chars / 4 / n
    worst = max((sum(1 for f, _ in model.requests if f == fid) for fid in FUNCTIONS), default=0)
    print(
        f"{label}: {len(model.requests)} requests for {n} functions ({ok} ok): "
        f"{per_fn_req:.2f} requests/function (max {worst}), ~{per_fn_tokens:.0f} prompt tokens/function"
    )
    return per_fn_req, per_fn_tokens


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="codemode-llm-cost-"))
    try:
        results = {}
        for label, rounds, miss in (
            ("no coverage round", 0, False),
            ("one coverage round", 1, True),
        ):
            root = tmp / label.replace(" ", "-")
            shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("specs", "__pycache__"))
            (root / "specs").mkdir()
            results[label] = run(root, rounds, miss, label)
        # unchanged re-run: nothing changed since the coverage run, no function is named
        root = tmp / "one-coverage-round"
        model = Model(root, True)
        config = load_config(root).replace(coverage_rounds=1)
        run_regen(
            config, Scope("all"), dry_run=False, model=FunctionModel(model, model_name="scripted")
        )
        print(f"unchanged re-run: {len(model.requests)} requests")
        # and with the functions named explicitly: the answer cache serves them
        model = Model(root, True)
        run_regen(
            config,
            Scope("all"),
            dry_run=False,
            model=FunctionModel(model, model_name="scripted"),
            function_ids=FUNCTIONS,
        )
        print(f"unchanged re-run, functions named (answer cache): {len(model.requests)} requests")
        vowel = vowel_prompt_chars()
        if vowel is None:
            print("vowel 0.4.0 not found at /tmp/vowelenv: no comparison")
            return 0
        explorer, spec = vowel
        vowel_tokens = (VOWEL_ROUNDS * explorer + spec) / 4
        ours = max(t for _, t in results.values())
        print(
            f"vowel 0.4.0: explorer system prompt {explorer} chars x {VOWEL_ROUNDS} rounds + spec system prompt "
            f"{spec} chars = ~{vowel_tokens:.0f} prompt tokens/function (system prompts alone, a lower bound)"
        )
        print(f"codemode / vowel prompt tokens: {ours / vowel_tokens:.1%} (target <= 25%)")
        ok = (
            results["no coverage round"][0] <= 2
            and results["one coverage round"][0] <= 3
            and ours <= vowel_tokens / 4
        )
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
