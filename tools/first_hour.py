"""Record docs/first-hour.md: a newcomer's first hour with codemode, every command run for real.

    python tools/first_hour.py           # rewrite docs/first-hour.md
    python tools/first_hour.py --check   # exit 1 when the recorded transcript is no longer true

The commands run in a temporary directory with the `codemode` and `pre-commit` of the Python
that runs this script (install the checkout first: `pip install -e '.[dev]'`). Times, temporary
paths and commit hashes are normalised, so the file changes only when what a user sees changes.
tests/cli/test_first_hour.py runs the --check.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "first-hour.md"

PRICES = '''\
"""Prices in cents."""


def with_vat(cents: int, rate: float = 0.2) -> int:
    """Gross price, rounded to the cent.

    >>> with_vat(1000)
    1200
    """
    if cents < 0:
        raise ValueError("a price cannot be negative")
    return round(cents * (1 + rate))


def label(cents: int) -> str:
    """'12.50 EUR' for 1250."""
    return f"{cents // 100}.{cents % 100:02d} EUR"
'''

PYPROJECT = """\
[project]
name = "tinyshop"
version = "0.1.0"
"""

# The published hook (.pre-commit-hooks.yaml: `codemode check --staged`), run from the
# codemode installed here, so that recording builds no hook environment from PyPI.
PRE_COMMIT_CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: codemode-check
        name: codemode check (eval specs of the staged change)
        entry: codemode check --staged
        language: system
        pass_filenames: false
        verbose: true
        files: \\.(py|ya?ml)$
"""

# (heading, prose, commands): each command runs in bash, in the step's folder
STEPS: list[tuple[str, str, list[str]]] = [
    (
        "Try it",
        "In a clone of codemode: install what `check` needs (no `[dev]`), and verify the "
        "example shop. One case drifts on purpose, so the command exits 1.",
        [
            "pip install -e .  # (not re-run by the recording)",
            "codemode check --root examples/shop --all",
        ],
    ),
    (
        "A small project of your own",
        "Two functions and no specs yet: `check` says where it looked and how to start.",
        [
            "cat src/tinyshop/prices.py",
            "git init -q -b main && git add -A && git commit -q -m 'tinyshop'",
            "codemode check",
        ],
    ),
    (
        "The bootstrap",
        "`codemode regen --all` writes a first spec for every function without one. With no "
        "model configured the offline explorer picks inputs from the signature, the docstring "
        "and the code's own literals; every expected value is what the function returned.",
        [
            "codemode regen --all",
            "codemode check",
            "git add specs && git commit -q -m 'specs' && echo committed",
        ],
    ),
    (
        "The hook",
        "The pre-commit hook re-verifies the specs the staged change affects. A project uses "
        "the published hook (`repo: https://github.com/<owner>/codemode-action`, "
        "`id: codemode-check`, see docs/pre-commit.md); this recording runs the same command "
        "from a local hook, so that it builds no hook environment.",
        [
            "cat > .pre-commit-config.yaml <<'EOF'\n" + PRE_COMMIT_CONFIG + "EOF",
            "pre-commit install",
            "git add .pre-commit-config.yaml && git commit -q -m 'hook' && echo committed",
        ],
    ),
    (
        "A drift",
        "VAT goes up from 20 % to 21 %, on purpose. `check` shows what changed, case by case.",
        [
            "sed -i 's/rate: float = 0.2)/rate: float = 0.21)/' src/tinyshop/prices.py",
            "codemode check",
        ],
    ),
    (
        "Accept",
        "The new behaviour is intended: take the observed outputs as the new expectations "
        "(the command `check` printed, pasted as is), and commit the code with its specs.",
        [
            "codemode accept tinyshop.prices.with_vat",
            "codemode check",
            "git add -A && git commit -q -m 'VAT 21 %' && echo committed",
        ],
    ),
    (
        "The hook blocks a commit",
        "A refactoring that was meant to change nothing rounds down instead of to the nearest "
        "cent. The commit is refused, with the cases that drifted.",
        [
            "sed -i 's/return round(cents \\* (1 + rate))/return int(cents * (1 + rate))/' "
            "src/tinyshop/prices.py",
            "git commit -q -am 'simpler rounding'",
            "git log --oneline | head -1",
        ],
    ),
    (
        "Deleting the failing cases does not help",
        "Removing the cases that drifted, instead of fixing the code, would hide the behaviour "
        "change: the review of the spec edit calls each one out as `hides_change`, a word of "
        "`fail_on` that blocks by default (as `contradicted` does: an expectation edited to "
        "what the code does not do).",
        [
            "sed -i '/docstring_example_minus_one\\|three_cents\\|cents_minus_one_rate/d' "
            "specs/tinyshop.prices.yml",
            "git commit -q -am 'simpler rounding, fewer cases'",
            "git checkout -q -- . && echo 'put back as it was'",
        ],
    ),
    (
        "A weaker spec goes through, and says so",
        "A case removed while it still passes makes the spec weaker (`weakened`): the commit "
        "goes through by default, and the hook (its manifest sets `verbose: true`) shows the "
        "review even so. Add `weakened` and `loosened` to `fail_on` to block such commits too.",
        [
            "sed -i '/id: zero_cents/d' specs/tinyshop.prices.yml",
            "git commit -q -am 'one case fewer' && echo committed",
        ],
    ),
]


def _env(tmp: Path) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {
        "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tmp / "home"),
        "PRE_COMMIT_HOME": str(tmp / "pre-commit"),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "PRE_COMMIT_COLOR": "never",
        "COLUMNS": "100",
        "LINES": "40",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "New Comer",
        "GIT_AUTHOR_EMAIL": "newcomer@example.invalid",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
        "GIT_COMMITTER_NAME": "New Comer",
        "GIT_COMMITTER_EMAIL": "newcomer@example.invalid",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    }


def _normalise(text: str, tmp: Path) -> str:
    text = text.replace(str(tmp.resolve()), "/tmp/first-hour").replace(str(tmp), "/tmp/first-hour")
    text = re.sub(r"\(\d+\.\d+ s\)", "(0.01 s)", text)
    text = re.sub(r"elapsed \d+\.\d+ s", "elapsed 0.01 s", text)
    text = re.sub(r"^- duration: [\d.]+s$", "- duration: 0.01s", text, flags=re.MULTILINE)
    text = re.sub(r" · ~\d+ (s|min) left$", " · ~1 s left", text, flags=re.M)
    text = re.sub(r" · done in \d+ (s|min)$", " · done in 1 s", text, flags=re.M)
    text = re.sub(r"\b[0-9a-f]{7}\b(?= )", "1234567", text)  # `git log --oneline`
    text = re.sub(r"sha256:[0-9a-f]{64}", "sha256:…", text)
    return _PROGRESS.sub(_sorted_progress, text)


# regen explores functions concurrently: its `[k/N] id: ...` lines come in the order they finish
_PROGRESS = re.compile(r"(?:^\[\d+/\d+\] [^\n]*\n)+", re.MULTILINE)


_WHEN = re.compile(r" · (~\d+ (s|min) left|done in \d+ (s|min))$")  # the estimate: per position


def _sorted_progress(m: re.Match[str]) -> str:
    rows = [line.split("] ", 1)[1] for line in m.group(0).splitlines()]
    tails = [w.group(0) if (w := _WHEN.search(r)) else "" for r in rows]
    lines = sorted(r[: len(r) - len(t)] for r, t in zip(rows, tails, strict=True))
    return "".join(
        f"[{k}/{len(lines)}] {line}{tail}\n"
        for k, (line, tail) in enumerate(zip(lines, tails, strict=True), 1)
    )


def _setup(tmp: Path) -> tuple[Path, Path]:
    clone = tmp / "codemode"
    shutil.copytree(
        ROOT / "examples" / "shop",
        clone / "examples" / "shop",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    project = tmp / "tinyshop"
    (project / "src" / "tinyshop").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT)
    (project / "src" / "tinyshop" / "__init__.py").write_text("")
    (project / "src" / "tinyshop" / "prices.py").write_text(PRICES)
    (tmp / "home").mkdir()
    return clone, project


def _run(command: str, cwd: Path, env: dict[str, str]) -> str:
    if "(not re-run by the recording)" in command:
        return ""
    proc = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    out = proc.stdout
    if proc.returncode:
        out += f"[exit {proc.returncode}]\n"
    return out


def record() -> str:
    parts = [
        "# A newcomer's first hour\n\n"
        "Recorded by `python tools/first_hour.py`: every command below ran as shown, and a test\n"
        "re-runs them to keep this page true (times, temporary paths and hashes normalised).\n"
    ]
    with tempfile.TemporaryDirectory(prefix="first-hour-") as name:
        tmp = Path(name)
        clone, project = _setup(tmp)
        env = _env(tmp)
        for n, (heading, prose, commands) in enumerate(STEPS):
            cwd = clone if n == 0 else project
            block = []
            for command in commands:
                block.append(f"$ {command}\n{_run(command, cwd, env)}")
            parts.append(f"\n## {heading}\n\n{prose}\n\n```console\n{''.join(block)}```\n")
        return _normalise("".join(parts), tmp)


def main(argv: list[str]) -> int:
    text = record()
    if "--check" in argv:
        old = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
        if old != text:
            sys.stdout.writelines(
                difflib.unified_diff(
                    old.splitlines(True), text.splitlines(True), str(DOC), "recorded now"
                )
            )
            print(f"{DOC} is out of date: run python tools/first_hour.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
