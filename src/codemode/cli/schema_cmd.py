"""``codemode schema``: the JSON schema of spec files, for editors (yaml-language-server)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser(
        "schema",
        help="print the JSON schema of spec files",
        description="Print the JSON schema of spec files. Point your editor at it, e.g. put\n"
        "  # yaml-language-server: $schema=./codemode.schema.json\n"
        "at the top of a spec after `codemode schema > codemode.schema.json`.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from codemode.specs.model import json_schema

    sys.stdout.write(json.dumps(json_schema(), indent=2) + "\n")
    return 0
