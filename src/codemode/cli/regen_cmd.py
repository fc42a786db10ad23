"""``codemode regen``: explore changed functions and write specs from observed outputs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from codemode.cli.common import (
    add_common_args,
    add_jobs_arg,
    add_scope_args,
    config_from_args,
    jobs_from_args,
    scope_from_args,
)

EXAMPLES = """\
examples:
  codemode regen --staged --dry-run          show the spec edits for the staged change
  codemode regen --all                       bootstrap: a spec for every function without one
  codemode regen src/shop/pricing.py         the functions of one module (or a package folder)
  codemode regen --function shop.pricing.to_cents --model openai:gpt-4.1-mini
  codemode regen --base origin/main --model llama3.1 --base-url http://localhost:11434/v1
  CODEMODE_MODEL=openai:gpt-4.1-mini codemode regen --all --max-model-requests 30 --max-cost 0.5
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "regen",
        help="write specs whose expected values were observed by running the code",
        description="Explore changed (or named) functions, with a model if one is configured "
        "(--model, CODEMODE_MODEL, or `model` in [tool.codemode]) and otherwise offline, and "
        "write the generated cases. Hand-written cases are never changed.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_scope_args(p, "regen")
    add_common_args(p)
    p.add_argument("--dry-run", action="store_true", help="show the edits as a diff, write nothing")
    p.add_argument("--model", help="pydantic-ai model string, e.g. openai:gpt-4.1-mini")
    p.add_argument("--base-url", help="an OpenAI-compatible server (a local Ollama, say)")
    p.add_argument(
        "--max-model-requests", type=int, metavar="N", help="stop asking the model after N requests"
    )
    p.add_argument(
        "--max-cost", type=float, metavar="USD", help="stop when the estimated cost reaches USD"
    )
    p.add_argument(
        "--max-seconds", type=float, metavar="S", help="stop asking the model after S seconds"
    )
    p.add_argument(
        "--concurrency", type=int, metavar="N", help="functions explored at once (default 4)"
    )
    add_jobs_arg(
        p,
        "explore functions in N lanes at once, a module's and a spec file's functions in one "
        "lane (offline; a model's run stays in one process, --concurrency)",
    )
    p.add_argument(
        "--function",
        action="append",
        default=[],
        metavar="ID",
        help="explore this function (repeatable)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from codemode.flows.regenerating import regen

    scope = scope_from_args(args)
    config = config_from_args(
        args,
        model=args.model,
        base_url=args.base_url,
        max_model_requests=args.max_model_requests,
        max_cost=args.max_cost,
        max_seconds=args.max_seconds,
        concurrency=args.concurrency,
        jobs=jobs_from_args(args),
    )

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    report = regen(
        config,
        scope,
        dry_run=args.dry_run,
        function_ids=tuple(args.function),
        progress=None if args.quiet else progress,
    )
    if args.format == "json":
        sys.stdout.write(report.to_json() + "\n")
    else:
        from codemode.report.terminal import render_regen

        sys.stdout.write(render_regen(report))
    return report.exit_code(("error",))  # a function regen could not do fails the run
