"""A user project in a temp git repository, driven through real git and real pre-commit.

The hook repository is a fresh git repo holding a copy of this checkout's packaging files and
``src/`` (the work tree, so uncommitted edits are what gets tested). pre-commit installs it by
local path at its commit sha, into a session-wide ``PRE_COMMIT_HOME``: the hook virtualenv (pip
from the package index) is built once per test session and shared by every project.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gitkit import git

REPO_ROOT = Path(__file__).resolve().parents[2]
# What `pip install <hook repo>` needs, nothing more (the checkout also holds node_modules).
HOOK_REPO_FILES = ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml")
# git's identity and dates are the root conftest's (tests/gitkit.py), in os.environ already.
PINNED = {
    "NO_COLOR": "1",
    "PRE_COMMIT_COLOR": "never",
}
# Set when pytest itself runs inside a git hook; they would point our git calls at that repo.
LEAKY = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX")

PRICING = '''\
"""Money."""

from __future__ import annotations


def apply_discount(price: float, rate: float) -> float:
    """Price after a fractional discount."""
    if price < 0:
        raise ValueError("negative price")
    return round(price * (1 - rate), 2)


def describe(price: float) -> str:
    return f"{price:.2f} EUR"
'''

# 20 cases for one function; benchmarks/hook_latency.py times its "one function" run on these.
CASES = [(100.0, 0.1, 90.0), (100.0, 0.5, 50.0), (5.0, 0.0, 5.0), (80.0, 0.25, 60.0)] + [
    (float(10 * n), 0.2, round(10 * n * 0.8, 2)) for n in range(1, 16)
]
SPEC = (
    "shop.pricing.apply_discount:\n  dataset:\n"
    + "".join(
        f"    - case: {{id: c{i:02d}, inputs: [{p}, {r}], expected: {e}}}\n"
        for i, (p, r, e) in enumerate(CASES)
    )
    + '    - case: {id: negative, inputs: [-1.0, 0.1], raises: ValueError, match: "negative"}\n'
)
PYPROJECT = """\
[project]
name = "shop"
version = "0"

[tool.codemode]
specs = ["specs/**/*.yml"]
source_roots = ["src"]
timeout = 5
"""


@dataclass
class Result:
    returncode: int
    output: str


@dataclass
class Project:
    root: Path
    env: dict[str, str]

    def run(self, *cmd: str, env: Mapping[str, str] | None = None) -> Result:
        proc = subprocess.run(
            cmd,
            cwd=self.root,
            env={**self.env, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
        )
        return Result(proc.returncode, proc.stdout)

    def git(self, *args: str) -> str:
        return git(self.root, *args, env=self.env)

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def commit(self, message: str) -> Result:
        """``git commit`` through the installed pre-commit hook, as a user would."""
        return self.run("git", "commit", "-m", message)

    def pre_commit(self, hook: str, *extra: str) -> Result:
        return self.run(sys.executable, "-m", "pre_commit", "run", hook, *extra)

    def check_staged(self) -> Result:
        """``codemode check --staged`` outside pre-commit, from the interpreter running pytest."""
        return self.run(sys.executable, "-m", "codemode", "check", "--staged")

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def state(self) -> dict[str, str]:
        """Everything a hook could modify: the work tree (hashes), the index, HEAD, the status."""
        files = {
            str(p.relative_to(self.root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(self.root.rglob("*"))
            if p.is_file()
            and ".git" not in p.relative_to(self.root).parts
            and "__pycache__" not in p.parts
        }
        return {
            **files,
            "<index>": self.git("ls-files", "--stage"),
            "<HEAD>": self.head(),
            "<status>": self.git("status", "--porcelain", "--untracked-files=all"),
        }


def pre_commit_config(hook_repo: tuple[Path, str]) -> str:
    path, sha = hook_repo
    return textwrap.dedent(
        f"""\
        repos:
          - repo: {path}
            rev: {sha}
            hooks:
              - id: codemode-check
              - id: codemode-regen
        """
    )


def make_project(root: Path, env: dict[str, str], hook_repo: tuple[Path, str]) -> Project:
    root.mkdir(parents=True, exist_ok=True)
    p = Project(root, env)
    p.git("init", "-q")
    p.write("pyproject.toml", PYPROJECT)
    p.write("src/shop/__init__.py", "")
    p.write("src/shop/pricing.py", PRICING)
    p.write("specs/pricing.yml", SPEC)
    p.write(".pre-commit-config.yaml", pre_commit_config(hook_repo))
    p.git("add", ".")
    p.git("commit", "-q", "--no-verify", "-m", "initial")
    out = p.run(sys.executable, "-m", "pre_commit", "install")
    assert out.returncode == 0, out.output
    return p
