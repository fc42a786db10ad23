"""A project of side-effecting functions, and the state a run must leave as it found it (#31).

Each function of ``hz.effects`` tries one thing a pre-commit hook must never do to a user's
machine: delete a folder relative to the working directory, write at a path it is given,
append to a log in the repository and under ``$HOME``, grow a sqlite file in the repository,
create a git tag, run a shell command, connect to a non-loopback address, write through
ctypes (past any audit hook), and rewrite files under ``.git/`` (codemode's own cache
included). ``state`` hashes the work tree, the index, ``.git`` and ``$HOME``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from gitkit import git

EFFECTS = """\
import ctypes
import os
import shutil
import socket
import sqlite3
import subprocess


def clear_cache(folder: str = "cache") -> str:
    shutil.rmtree(folder)
    return "cleared"


def save(path: str, text: str) -> int:
    with open(path, "w") as f:
        f.write(text)
    return len(text)


def log_event(message: str, logfile: str = "events.log") -> str:
    with open(logfile, "a") as f:
        f.write(message + "\\n")
    return message.upper()


def log_home(message: str) -> str:
    with open(os.path.expanduser("~/.hz-history"), "a") as f:
        f.write(message + "\\n")
    return message.lower()


def remember(value: int) -> int:
    db = sqlite3.connect("hz.db")
    db.execute("create table if not exists seen(v)")
    db.execute("insert into seen values (?)", (value,))
    db.commit()
    return value + 1


def tag(name: str) -> int:
    return subprocess.run(["git", "tag", "hz-" + name]).returncode


def shell(word: str) -> int:
    return os.system("echo " + word + " > shell.txt")


def ping(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        s.connect(("10.255.255.1", port))
    return True


def poke(text: str) -> int:
    libc = ctypes.CDLL(None)
    fd = libc.open(b"ctypes.txt", 0o101, 0o644)  # O_WRONLY | O_CREAT
    if fd >= 0:
        libc.write(fd, text.encode(), len(text))
        libc.close(fd)
    return fd


def spoil_git(text: str) -> int:
    os.makedirs(".git/codemode-cache/specs", exist_ok=True)
    with open(".git/codemode-cache/specs/planted", "w") as f:
        f.write(text)
    with open(".git/hooks/post-commit", "w") as f:
        f.write("#!/bin/sh\\n" + text)
    return len(text)
"""

# What each function's report must name: the operation the wall stopped.
BLOCKED = {
    "clear_cache": "shutil.rmtree('cache')",
    "save": "open(",
    "log_event": "open('events.log', 'a')",
    "log_home": ".hz-history', 'a')",
    "remember": "sqlite3.connect('hz.db')",
    "tag": "subprocess.Popen(",
    "shell": "os.system(",
    "ping": "socket.connect(('10.255.255.1'",
    "spoil_git": "os.mkdir(",
}

PYPROJECT = """\
[project]
name = "hz"
version = "0"

[tool.codemode]
source_roots = ["src"]
timeout = 5
"""


def make(root: Path, ignore: str = "") -> Path:
    """The project, committed, with an untracked ``cache/`` (gitignored) and a log."""
    (root / "src" / "hz").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "src" / "hz" / "__init__.py").write_text("")
    (root / "src" / "hz" / "effects.py").write_text(EFFECTS)
    (root / ".gitignore").write_text("cache/\n__pycache__/\n" + ignore)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    (root / "cache").mkdir()
    (root / "cache" / "entry.bin").write_bytes(b"precious")
    (root / "events.log").write_text("first\n")
    return root


def change_every_function(root: Path) -> None:
    """A one-line edit in each function: the behaviour diff calls all of them, both sides."""
    path = root / "src" / "hz" / "effects.py"
    text = path.read_text()
    for old, new in (
        ('return "cleared"', 'return "cleared!"'),
        ("return len(text)\n\n\ndef log_event", "return len(text) + 0\n\n\ndef log_event"),
        ("return message.upper()", "return message.upper() + '!'"),
        ("return message.lower()", "return message.lower() + '!'"),
        ("return value + 1", "return value + 2"),
        ('"hz-" + name', '"hz2-" + name'),
        ('" > shell.txt"', '" >> shell.txt"'),
        ("return True", "return False"),
        ("return fd", "return fd + 0"),
        ("return len(text)\n", "return len(text) + 1\n"),
    ):
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text)


def _tree(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    out: dict[str, str] = {}
    if not folder.exists():
        return out
    for p in sorted(folder.rglob("*")):
        rel = str(p.relative_to(folder))
        if any(rel == s or rel.startswith(s + "/") for s in skip) or "__pycache__" in p.parts:
            continue
        if p.is_symlink():
            out[rel] = "-> " + os.readlink(p)
        elif p.is_file():
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
        else:
            out[rel + "/"] = oct(p.stat().st_mode)
    return out


def state(root: Path, home: Path) -> dict[str, object]:
    """The work tree (tracked, untracked and ignored files), ``.git`` byte for byte (but
    codemode's documented cache), the index as git lists it, the tags and ``$HOME``."""
    return {
        "tree": _tree(root, skip=(".git",)),
        "git": _tree(root / ".git", skip=("codemode-cache",)),
        "index": git(root, "ls-files", "--stage"),
        "tags": git(root, "tag"),
        "home": _tree(home),
        "planted": (root / ".git" / "codemode-cache" / "specs" / "planted").exists(),
    }


def run_env(tmp: Path, home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a codemode run in these tests: its own HOME and TMPDIR (so a
    scratch folder left behind is seen), git's identity, no warm worker."""
    tmpdir = tmp / "tmpdir"
    tmpdir.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEMODE_", "GITHUB_"))}
    return {
        **env,
        "HOME": str(home),
        "TMPDIR": str(tmpdir),
        "CODEMODE_WARM": "0",
        "NO_COLOR": "1",
        **(extra or {}),
    }


def leftovers(env: Mapping[str, str]) -> list[str]:
    return sorted(p.name for p in Path(env["TMPDIR"]).glob("codemode-scratch-*"))


def codemode(root: Path, env: Mapping[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The real ``codemode`` command in ``root``, in a subprocess of its own."""
    return subprocess.run(
        [sys.executable, "-m", "codemode", *args],
        cwd=root,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=600,
    )
