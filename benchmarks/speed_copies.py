"""Do the hook's speed copies earn their keep? (issue #14, "speed copies earn their keep")

The hook's path holds four hand-written stand-ins for a library or a fuller original:

- ``spec-keys``: ``check.fastpath.spec_keys`` reads a spec file's function ids without YAML;
  the original is ``yaml.safe_load`` (the no-op hook reads every spec file this way);
- ``quick-validator``: ``specs.load._quick`` checks case mappings as ``specs.model`` would;
  the original is the pydantic model (the one-function hook parses the changed spec);
- ``config-cache``: ``[tool.codemode]`` from a marshal cache; the original is ``tomllib``;
- ``terminal-size``: ``cli.main._columns``; the original is ``shutil.get_terminal_size``.

For each, this times in fresh interpreters what the hook would pay with the original instead
(import and work, median of ``--repeat`` runs), beside the hook's budget from
``hook_latency.py`` (no-op: at most 2x ``check-ast`` ~ 35 ms). A copy whose original costs
well under a millisecond is not worth its second definition. Run:
``python benchmarks/speed_copies.py [--repeat 15]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO_ROOT / "tests" / "hooks"), str(REPO_ROOT / "tests")]
from hookkit import PYPROJECT, SPEC  # noqa: E402

# Each: (name, setup run untimed, the copy's work, the original's work). Timed in a fresh
# interpreter, imports included: that is what a hook run pays.
PAIRS = [
    (
        "spec-keys",
        "from codemode.check.fastpath import spec_keys",
        "spec_keys(SPEC)",
        "import yaml; yaml.load(SPEC, Loader=getattr(yaml, 'CSafeLoader', yaml.SafeLoader))",
    ),
    (
        "quick-validator",
        "from codemode.specs import load; import yaml; from pathlib import Path",
        "load.parse_spec_text(SPEC, Path('s.yml'), 's.yml')",
        "load._quick = lambda name, data: None; load.parse_spec_text(SPEC, Path('s.yml'), 's.yml')",
    ),
    (
        "config-cache",
        "import marshal, contextlib; blob = marshal.dumps((1, PYPROJECT, {'source_roots': ['src']}))",
        "marshal.loads(blob)",
        "import tomllib; tomllib.loads(PYPROJECT)",
    ),
    (
        "terminal-size",
        "from codemode.cli.main import _columns",
        "_columns()",
        "import shutil; shutil.get_terminal_size()",
    ),
]

_PROGRAM = """
import sys, time
SPEC, PYPROJECT = sys.argv[1], sys.argv[2]
{setup}
t0 = time.perf_counter()
{work}
print(time.perf_counter() - t0)
"""


def once(setup: str, work: str) -> float:
    program = _PROGRAM.format(setup=setup, work=work)
    proc = subprocess.run(
        [sys.executable, "-c", program, SPEC, PYPROJECT],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO_ROOT / "src"), "PYTHONDONTWRITEBYTECODE": "1"},
    )
    if proc.returncode:
        raise SystemExit(f"the measurement failed:\n{proc.stderr}")
    return float(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    print(f"median of {args.repeat} fresh interpreters, milliseconds (imports included)")
    print(f"{'copy':16} {'copy':>8} {'original':>9} {'saved':>8}")
    for name, setup, copy, original in PAIRS:
        a = statistics.median(once(setup, copy) for _ in range(args.repeat)) * 1000
        b = statistics.median(once(setup, original) for _ in range(args.repeat)) * 1000
        print(f"{name:16} {a:8.2f} {b:9.2f} {b - a:8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
