"""Test helpers: a loopback GitHub REST API, sample reports, real git projects, Actions envs.

The API implements the endpoints PyGithub calls for the sticky comment, nothing else.

The server keeps issue comments in memory, records every request, and can be told to answer
the next N requests matching a method and path with an error status (403, 500...).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from codemode.report.model import (
    Callout,
    CaseChange,
    CaseResult,
    Cost,
    FunctionResult,
    Problem,
    Report,
    SpecEdit,
    SpecReview,
)
from codemode.scope import Scope
from gitkit import git

REPO = "octo/shop"
# token -> the login it writes as; an app installation token (the workflow's GITHUB_TOKEN)
# cannot read GET /user (403), a personal token can.
TOKENS = {"test-token": "github-actions[bot]", "pat-token": "octo-bot"}
APP_TOKENS = frozenset({"test-token"})
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
    edits: list[tuple[int, str]] = field(default_factory=list)  # (comment id, editor's login)

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
            token = (self.headers.get("Authorization") or "").removeprefix("token ")
            login = TOKENS.get(token)
            if login is None:
                self._send(401, {"message": "Bad credentials"})
                return
            base = f"/repos/{REPO}"
            m = re.fullmatch(rf"{base}/pulls/(\d+)", path)
            if method == "GET" and path == "/user":
                if token in APP_TOKENS:
                    self._send(403, {"message": "Resource not accessible by integration"})
                else:
                    self._send(200, {"login": login, "id": 3, "type": "User"})
            elif method == "GET" and path == base:
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
                    cid = state.add_comment(pr, self._body()["body"], user=login)
                    self._send(201, _public(state.comments[cid]))
            elif (m := re.fullmatch(rf"{base}/issues/comments/(\d+)", path)) and method == "PATCH":
                cid = int(m.group(1))
                with state.lock:
                    state.edits.append((cid, login))
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


def serve(state: FakeGitHub) -> ThreadingHTTPServer:
    """Start the loopback server for ``state`` in a daemon thread; shut it down when done."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    return server


def run_codemode(
    args: list[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """The real CLI in a subprocess, as the Action runs it: the console script (``python -m``
    would put ``cwd`` on sys.path)."""
    return subprocess.run(
        [str(Path(sys.executable).parent / "codemode"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


# --- sample reports --------------------------------------------------------------------------


def sample_report(mode: str = "check") -> Report:
    """A report with one of everything the comment shows."""
    drift = CaseResult(
        id="basic",
        status="drifted",
        line=12,
        has_expected=True,
        expected=90.0,
        observed=91.0,
        message="expected 90.0, observed 91.0",
        diff="- 90.0\n+ 91.0",
        call="apply_discount(100.0, 0.1)",
    )
    return Report(
        functions=(
            FunctionResult(
                id="shop.pricing.apply_discount",
                status="drifted",
                spec="specs/pricing.yml",
                line=9,
                path="src/shop/pricing.py",
                cases=(
                    drift,
                    CaseResult(id="zero_rate", status="passed", line=14, has_expected=True),
                    CaseResult(
                        id="label",
                        status="drifted",
                        line=16,
                        has_expected=True,
                        expected={"name": "a|b", "tags": ["x"]},
                        observed={"name": "a`b", "tags": []},
                        diff='-  "tags": ["x"]\n+  "tags": []',
                    ),
                ),
            ),
            FunctionResult(
                id="shop.tax.rate_for",
                status="error",
                spec="specs/tax.yml",
                line=3,
                message="ImportError: cannot import name 'TABLE' from 'shop.tax'",
                cases=(CaseResult(id="uk", status="error", line=6, message="import failed"),),
            ),
            FunctionResult(id="shop.cart.total", status="missing", path="src/shop/cart.py"),
            FunctionResult(
                id="shop.cart.old_total",
                status="orphaned",
                spec="specs/cart.yml",
                line=2,
                renamed_to="shop.cart.total_v2",
            ),
            FunctionResult(
                id="shop.pricing.round_price",
                status="ok",
                spec="specs/pricing.yml",
                line=20,
                cases=(CaseResult(id="half_up", status="passed", line=23, has_expected=True),),
            ),
        ),
        problems=(Problem(file="specs/bad.yml", line=4, message="unknown key 'expect'"),),
        edits=(
            SpecEdit(
                file="specs/pricing.yml",
                diff="@@ -12 +12 @@\n-      expected: 90.0\n+      expected: 91.0",
                summary="1 case updated",
            ),
        )
        if mode == "regen"
        else (),
        reviews=(
            SpecReview(
                file="specs/pricing.yml",
                added=("shop.pricing.round_price[half_up]",),
                changed=("shop.pricing.apply_discount[basic]",),
                removed=("shop.pricing.apply_discount[legacy]",),
                cases=(
                    CaseChange(
                        "shop.pricing.apply_discount",
                        "basic",
                        "changed",
                        "drifted",
                        12,
                        ("expected",),
                        call="apply_discount(100.0, 0.1)",
                        expected="90.0",
                        observed="91.0",
                    ),
                    CaseChange(
                        "shop.pricing.apply_discount",
                        "legacy",
                        "removed",
                        "passed",
                        20,
                        call="apply_discount(0.0, 0.5)",
                    ),
                    CaseChange(
                        "shop.pricing.round_price",
                        "half_up",
                        "added",
                        "passed",
                        23,
                        call="round_price(2.5)",
                    ),
                ),
                callouts=(
                    Callout(
                        "contradicted",
                        "warning",
                        "expectation edited with no change to the function, and the code "
                        "contradicts it",
                        "shop.pricing.apply_discount",
                        "basic",
                        12,
                        "apply_discount(100.0, 0.1)",
                    ),
                    Callout(
                        "weakened",
                        "warning",
                        "removed, and it still passes at head: the spec got weaker",
                        "shop.pricing.apply_discount",
                        "legacy",
                    ),
                ),
            ),
        ),
        cost=Cost(
            requests=3,
            input_tokens=5120,
            output_tokens=900,
            usd=0.0042,
            model="openai:gpt-4.1-mini",
        )
        if mode == "regen"
        else None,
        notes=("2 functions skipped: shard 1/2",),
        mode=mode,
        scope=Scope("range", "a1b2c3d", "e4f5a6b"),
    )


def big_report(n: int) -> Report:
    """``n`` drifted cases over ``n // 5`` functions, plus one error function sorted last by id."""
    funcs = [
        FunctionResult(
            id=f"pkg.mod{i:04d}.func",
            status="drifted",
            spec=f"specs/mod{i:04d}.yml",
            line=1,
            cases=tuple(
                CaseResult(
                    id=f"case{j}",
                    status="drifted",
                    line=3 + j,
                    has_expected=True,
                    expected={"value": j, "items": list(range(20))},
                    observed={"value": j + 1, "items": list(range(20))},
                    diff=f"-  value: {j}\n+  value: {j + 1}",
                )
                for j in range(5)
            ),
        )
        for i in range(n // 5)
    ]
    funcs.append(
        FunctionResult(
            id="zzz.last.broken",
            status="error",
            spec="specs/zzz.yml",
            line=1,
            message="ImportError: boom",
            cases=(CaseResult(id="c", status="error", line=2, message="boom"),),
        )
    )
    return Report(functions=tuple(funcs), scope=Scope("range", "main"))


# --- real git repositories and Actions payloads ------------------------------------------------

PAYLOADS = Path(__file__).parent / "payloads"


def payload(name: str, tmp_path: Path, **subst: str) -> Path:
    """A recorded-shape event payload with the placeholder SHAs replaced."""
    text = (PAYLOADS / f"{name}.json").read_text()
    for key, value in subst.items():
        text = text.replace(key, value)
    out = tmp_path / f"event-{name}.json"
    out.write_text(text)
    return out


SPEC = """\
calc.ops.double:
  dataset:
    - case: {id: small, input: 1, expected: 2}
    - case: {id: big, input: 20, expected: 40}
"""
BASE_SRC = "def double(x):\n    return x * 2\n"
HEAD_SRC = (
    "def double(x):\n    # big numbers get a bonus now\n    return x * 2 if x < 10 else x * 2 + 1\n"
)


def make_project(root: Path) -> tuple[str, str]:
    """A small real project in a git repo: base commit, then a head commit that drifts ``big``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "calc"\nversion = "0"\n\n'
        '[tool.codemode]\nspecs = ["specs/**/*.yml"]\nsource_roots = ["src"]\n'
    )
    (root / "src" / "calc").mkdir(parents=True)
    (root / "src" / "calc" / "__init__.py").write_text("")
    (root / "src" / "calc" / "ops.py").write_text(BASE_SRC)
    (root / "specs").mkdir()
    (root / "specs" / "ops.yml").write_text(SPEC)
    return base_and_feature(root, root / "src" / "calc" / "ops.py", HEAD_SRC, "head")


def base_and_feature(root: Path, changed: Path, text: str, message: str) -> tuple[str, str]:
    """Commit the project as it is on `main`, then `changed` rewritten to ``text`` on a
    `feature` branch: the (base, head) shas of a pull request."""
    (root / ".gitignore").write_text("codemode-report.json\n__pycache__/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-qb", "feature")
    changed.write_text(text)
    git(root, "commit", "-qam", message)
    return base, git(root, "rev-parse", "HEAD").strip()


TIERS = """\
def loyalty_tier(points: int) -> str:
    if points >= 5000:
        return "gold"
    return "silver"
"""


def tiers_pull_request(tmp_path: Path) -> tuple[Path, str, str]:
    """A project whose pull request moves a threshold of a function no spec covers (its
    behaviour changes at 5000): the repository, and the PR's (base, head) shas."""
    root = tmp_path / "repo"
    (root / "src" / "shop").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "shop"\nversion = "0"\n\n[tool.codemode]\nsource_roots = ["src"]\n'
    )
    (root / "src" / "shop" / "__init__.py").write_text("")
    tiers = root / "src" / "shop" / "tiers.py"
    tiers.write_text(TIERS)
    base, head = base_and_feature(
        root, tiers, TIERS.replace("points >= 5000", "points > 5000"), "gold from 5001"
    )
    return root, base, head


def actions_env(
    tmp_path: Path, fake: FakeGitHub, event: str, event_path: Path | None, **inputs: str
) -> dict[str, str]:
    """The environment a runner gives a step: event, summary/output files, API URL, inputs."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "RUNNER_"))
    }
    env.update(
        GITHUB_ACTIONS="true",
        GITHUB_API_URL=fake.url,
        GITHUB_REPOSITORY=REPO,
        GITHUB_EVENT_NAME=event,
        GITHUB_STEP_SUMMARY=str(tmp_path / "step_summary.md"),
        GITHUB_OUTPUT=str(tmp_path / "github_output.txt"),
        CODEMODE_GITHUB_BACKOFF="0.01",
    )
    if event_path:
        env["GITHUB_EVENT_PATH"] = str(event_path)
    for name, value in inputs.items():
        env[f"INPUT_{name.upper()}"] = value
    return env


def pr_env(
    tmp_path: Path,
    fake: FakeGitHub,
    base: str,
    head: str,
    name: str = "pull_request",
    **inputs: str,
) -> dict[str, str]:
    """The environment of the Action's step on pull request #7 from ``base`` to ``head`` (the
    payload ``name``), with a token and this interpreter as the project's."""
    event = payload(name, tmp_path, BASE_SHA=base, HEAD_SHA=head)
    inputs = {"github_token": "test-token", "python": sys.executable, **inputs}
    return actions_env(tmp_path, fake, "pull_request", event, **inputs)


def read_outputs(path: Path) -> dict[str, str]:
    """Parse the ``name<<DELIM`` heredocs of $GITHUB_OUTPUT (the last value of a name wins)."""
    out: dict[str, str] = {}
    lines = iter(path.read_text().splitlines())
    for line in lines:
        name, _, delim = line.partition("<<")
        value = []
        for v in lines:
            if v == delim:
                break
            value.append(v)
        out[name] = "\n".join(value)
    return out


# --- action.yml, step by step, as the runner runs it ------------------------------------------

ACTION_YML = Path(__file__).resolve().parents[2] / "action.yml"
EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


@dataclass
class StepRun:
    id: str
    env: dict[str, str]
    done: subprocess.CompletedProcess[str] | None  # None: skipped by its `if`
    outputs: dict[str, str]


def _expand(value: str, inputs: dict[str, str], steps: dict[str, StepRun]) -> str:
    def one(m: re.Match[str]) -> str:
        expr = m.group(1)
        if expr.startswith("inputs."):
            return inputs.get(expr.removeprefix("inputs."), "")
        if expr.startswith("steps."):
            step, _, output = expr.removeprefix("steps.").partition(".outputs.")
            return steps[step].outputs.get(output, "") if step in steps else ""
        if expr == "github.token":
            return inputs.get("github-token", "")
        raise AssertionError(f"the simulated runner cannot evaluate ${{{{ {expr} }}}}")

    return EXPR.sub(one, value)


def _runs(condition: str, steps: dict[str, StepRun]) -> bool:
    """The few `if:` forms action.yml uses: `!cancelled() && steps.X.outputs.Y != ''`."""
    m = re.fullmatch(
        r"\$\{\{ !cancelled\(\) && steps\.(\w+)\.outputs\.([\w-]+) != '' \}\}", condition
    )
    assert m, f"the simulated runner cannot evaluate if: {condition}"
    return bool(steps[m.group(1)].outputs.get(m.group(2)))


def run_action_yml(
    cwd: Path, base_env: dict[str, str], tmp_path: Path, **given: str
) -> dict[str, StepRun]:
    """Run action.yml's steps after the install step (codemode is installed in this venv, so
    its console script is on PATH), each with only the env the step declares, its own
    $GITHUB_OUTPUT, and `if:` conditions honoured. ``given``: inputs by their action.yml name."""
    import yaml

    action = yaml.safe_load(ACTION_YML.read_text())
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs.update({k.replace("_", "-"): v for k, v in given.items()})
    inputs = {k: _expand(v, inputs, {}) for k, v in inputs.items()}
    path = f"{Path(sys.executable).parent}{os.pathsep}{base_env.get('PATH', '')}"
    steps: dict[str, StepRun] = {}
    for i, step in enumerate(action["runs"]["steps"][1:]):
        sid = step.get("id", f"step{i}")
        env = {k: _expand(str(v), inputs, steps) for k, v in step.get("env", {}).items()}
        if "if" in step and not _runs(step["if"], steps):
            steps[sid] = StepRun(sid, env, None, {})
            continue
        output = tmp_path / f"output-{sid}.txt"
        output.write_text("")
        full = {**base_env, **env, "PATH": path, "GITHUB_OUTPUT": str(output)}
        done = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=cwd,
            env=full,
            capture_output=True,
            text=True,
            timeout=120,
        )
        steps[sid] = StepRun(sid, env, done, read_outputs(output))
    return steps
