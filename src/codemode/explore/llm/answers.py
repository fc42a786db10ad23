"""Cache of model answers, keyed by function fingerprint, model and prompt version.

An unchanged function costs no request: its cached snippets are replayed against the real
code (the sandbox is deterministic) and the cached choice picks the same calls. The cache
lives in ``<git-dir>/codemode-cache`` beside the diff analyzer's (never committed), or in
``.codemode-cache/`` outside a git repository.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from codemode.errors import FatalError
from codemode.explore.llm.prompts import PROMPT_VERSION


def cache_dir(root: Path) -> Path:
    from codemode.change import git

    try:
        _, git_dir = git.locate(root)
    except FatalError:  # not a repository (or no git): keep it in the project
        return root / ".codemode-cache"
    return git_dir / "codemode-cache"


def cache_key(function_id: str, fingerprint: str | None, model: str, rounds: int) -> str:
    raw = json.dumps([function_id, fingerprint, model, PROMPT_VERSION, rounds])
    return hashlib.sha256(raw.encode()).hexdigest()[:32]


class AnswerCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def get(self, key: str) -> dict[str, Any] | None:
        path = self.directory / f"{key}.json"
        try:
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data

    def put(self, key: str, value: dict[str, Any]) -> None:
        from codemode.atomic import write_atomic

        write_atomic(self.directory / f"{key}.json", json.dumps(value))
