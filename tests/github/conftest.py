"""A loopback GitHub REST API: the endpoints PyGithub calls for the sticky comment, nothing else.

The server keeps issue comments in memory, records every request, and can be told to answer
the next N requests matching a method and path with an error status (403, 500...).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

REPO = "octo/shop"
HEAD_SHA = "b" * 40
BASE_SHA = "a" * 40


@dataclass
class Fault:
    method: str
    path: str  # regex, searched in the request path
    status: int
    times: int


@dataclass
class FakeGitHub:
    url: str = ""
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)  # id -> comment
    requests: list[tuple[str, str]] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    pulls: dict[int, str] = field(default_factory=lambda: {7: HEAD_SHA})  # number -> head sha
    next_id: int = 1000
    per_page_limit: int = 2  # small pages so pagination (Link headers) is exercised
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail(self, method: str, path: str, status: int, times: int = 1) -> None:
        self.faults.append(Fault(method, path, status, times))

    def add_comment(self, pr: int, body: str, user: str = "someone") -> int:
        with self.lock:
            self.next_id += 1
            cid = self.next_id
            self.comments[cid] = self._comment(cid, pr, body, user)
            return cid

    def pr_comments(self, pr: int) -> list[dict[str, Any]]:
        return [c for c in self.comments.values() if c["_pr"] == pr]

    def _comment(self, cid: int, pr: int, body: str, user: str) -> dict[str, Any]:
        return {
            "_pr": pr,
            "id": cid,
            "body": body,
            "url": f"{self.url}/repos/{REPO}/issues/comments/{cid}",
            "html_url": f"https://github.example/{REPO}/pull/{pr}#issuecomment-{cid}",
            "issue_url": f"{self.url}/repos/{REPO}/issues/{pr}",
            "user": {"login": user, "id": 1, "type": "Bot"},
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        }


def _public(c: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in c.items() if not k.startswith("_")}


def _handler(state: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> dict[str, Any]:
            n = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(n) or b"{}") if n else {}

        def _route(self, method: str) -> None:
            path, _, query = self.path.partition("?")
            with state.lock:
                state.requests.append((method, self.path))
                for fault in state.faults:
                    if fault.times > 0 and fault.method == method and re.search(fault.path, path):
                        fault.times -= 1
                        self._body()
                        msg = {403: "Resource not accessible by integration"}.get(
                            fault.status, "Server Error"
                        )
                        self._send(fault.status, {"message": msg})
                        return
            if self.headers.get("Authorization") != "token test-token":
                self._send(401, {"message": "Bad credentials"})
                return
            base = f"/repos/{REPO}"
            m = re.fullmatch(rf"{base}/pulls/(\d+)", path)
            if method == "GET" and path == base:
                self._send(200, self._repo())
            elif method == "GET" and m:
                number = int(m.group(1))
                if number not in state.pulls:
                    self._send(404, {"message": "Not Found"})
                    return
                self._send(200, self._pull(number))
            elif m := re.fullmatch(rf"{base}/issues/(\d+)/comments", path):
                pr = int(m.group(1))
                if method == "GET":
                    self._list_comments(pr, query)
                elif method == "POST":
                    cid = state.add_comment(pr, self._body()["body"], user="github-actions[bot]")
                    self._send(201, _public(state.comments[cid]))
            elif (m := re.fullmatch(rf"{base}/issues/comments/(\d+)", path)) and method == "PATCH":
                cid = int(m.group(1))
                with state.lock:
                    state.comments[cid]["body"] = self._body()["body"]
                    state.comments[cid]["updated_at"] = "2026-01-02T00:00:00Z"
                self._send(200, _public(state.comments[cid]))
            else:
                self._send(404, {"message": f"fake GitHub has no {method} {path}"})

        def _list_comments(self, pr: int, query: str) -> None:
            page = int(dict(p.split("=", 1) for p in query.split("&") if "=" in p).get("page", 1))
            items = sorted(state.pr_comments(pr), key=lambda c: c["id"])
            size = state.per_page_limit
            chunk = items[(page - 1) * size : page * size]
            headers = {}
            if page * size < len(items):
                nxt = f"{state.url}/repos/{REPO}/issues/{pr}/comments?page={page + 1}"
                headers["Link"] = f'<{nxt}>; rel="next"'
            self._send(200, [_public(c) for c in chunk], headers)

        def _repo(self) -> dict[str, Any]:
            owner, name = REPO.split("/")
            return {
                "id": 1,
                "name": name,
                "full_name": REPO,
                "owner": {"login": owner, "id": 2},
                "url": f"{state.url}/repos/{REPO}",
                "default_branch": "main",
            }

        def _pull(self, number: int) -> dict[str, Any]:
            return {
                "id": 10 + number,
                "number": number,
                "state": "open",
                "url": f"{state.url}/repos/{REPO}/pulls/{number}",
                "issue_url": f"{state.url}/repos/{REPO}/issues/{number}",
                "html_url": f"https://github.example/{REPO}/pull/{number}",
                "head": {"sha": state.pulls[number], "ref": "feature", "repo": self._repo()},
                "base": {"sha": BASE_SHA, "ref": "main", "repo": self._repo()},
            }

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def do_PATCH(self) -> None:
            self._route("PATCH")

    return Handler


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    state = FakeGitHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


def run_codemode(
    args: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess, as the Action runs it."""
    return subprocess.run(
        [sys.executable, "-m", "codemode", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
