"""Permalinks into the head commit: the only live links a comment holds, built by codemode.

A reviewer clicks ``specs/pricing.yml:24`` and lands on that line of the commit under review
(``{server}/{owner}/{repo}/blob/{sha}/{path}#L{line}``, as GitHub's "copy permalink" writes
it). The server is the runner's (``GITHUB_SERVER_URL``: a GitHub Enterprise Server host, say);
the repository and the commit come from the event. Every part is checked before a link is
made, and the path (report data, hostile) is percent-encoded, so nothing in it can end the
link or start another.
"""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import quote

_SERVER = re.compile(r"https?://[A-Za-z0-9.-]+(?::\d{1,5})?(?:/[A-Za-z0-9._~-]+)*")
_REPO = re.compile(r"[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
DEFAULT_SERVER = "https://github.com"


class Links(NamedTuple):
    server: str
    repo: str
    sha: str

    def blob(self, path: str | None, line: int | None = None) -> str | None:
        """The permalink of ``path`` (repo-relative) at ``line``; None for a path that cannot
        name a file of the commit (absolute, ``..``, empty)."""
        if not path or path.startswith("/") or ".." in path.split("/"):
            return None
        anchor = f"#L{line}" if isinstance(line, int) and line > 0 else ""
        return f"{self.server}/{self.repo}/blob/{self.sha}/{quote(path, safe='/')}{anchor}"


def server_url(server: str | None, api: str | None) -> str:
    """The web host: ``GITHUB_SERVER_URL``, or what ``GITHUB_API_URL`` implies (GHES serves
    its API under ``/api/v3``; github.com's is api.github.com)."""
    if server:
        return server.rstrip("/")
    api = (api or "").rstrip("/")
    if not api or api == "https://api.github.com":
        return DEFAULT_SERVER
    return api.removesuffix("/api/v3")


def make_links(server: str, repo: str | None, sha: str | None) -> Links | None:
    """Links for ``repo`` at ``sha``, or None when any part is not what it should be."""
    if not repo or not sha or not _REPO.fullmatch(repo) or ".." in repo:
        return None
    if not _SHA.fullmatch(sha) or not _SERVER.fullmatch(server):
        return None
    return Links(server, repo, sha)
