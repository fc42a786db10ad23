"""``codemode action``: the GitHub Action's two steps (see action.yml).

verify: runs the project's code (check or regen) in a step that holds no GitHub token; writes
report.json, the annotations, the job summary, the verdict counts, and exits by the verdicts.
deliver: runs no project code; with the token, pushes the regenerated specs (regen with
``commit: true`` on a same-repository PR) and posts the sticky comment from report.json.
It decides from the inputs and the event, never from the report file, which the verify step's
code could have rewritten. ``all`` does both in one process (the token is then in the process
that runs the project's code: action.yml never uses it).
"""

from __future__ import annotations

import base64
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from codemode.change.git import commit_and_push, commit_or_none, ensure_base, repo_root
from codemode.config import Config
from codemode.errors import FatalError
from codemode.github.delivery import (
    Origin,
    Target,
    links,
    post_comment,
    publish,
    read_report,
    warn,
    write_report,
)
from codemode.github.event import Event, read_event
from codemode.github.inputs import Inputs, Plan, config_for, plan, read_inputs
from codemode.logsafe import log_safe
from codemode.report.model import Report
from codemode.shard import parse_shard

Step = Literal["verify", "deliver", "all"]
STEPS: tuple[Step, ...] = ("verify", "deliver", "all")
TOKEN_VARS = ("INPUT_GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "GITHUB_TOKEN")
BOT_NAME = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"
TOKEN_WARNING = (
    "{names} is set in the step that runs the project's code (a job-level `env:`?): that code "
    "can read it from /proc; give the token to no step but codemode's own (docs/security.md)"
)
TARGET_NOTE = (
    "pull_request_target runs with the base repository's write token and secrets; codemode "
    "checked the base branch's own code only (see docs/security.md)"
)


def run_action(step: Step, env: Mapping[str, str], cwd: Path) -> int:
    env = dict(env)
    inputs = read_inputs(env)
    token = inputs.github_token or env.get("GITHUB_TOKEN", "")
    event = read_event(env)
    code = 0
    if step in ("verify", "all"):
        held = [key for key in TOKEN_VARS if env.get(key)]
        if step == "verify" and held:
            warn(TOKEN_WARNING.format(names=", ".join(held)), env)
        # The user's functions run below; they get no token (action.yml's verify step has
        # none; with `all`, defence in depth: the worker's environment is filtered too).
        for key in TOKEN_VARS:
            os.environ.pop(key, None)
            env.pop(key, None)
        config = config_for(inputs, cwd)
        code = verify(inputs, event, config, env)
        cwd = config.root  # where verify wrote a relative report path
    if step in ("deliver", "all"):
        deliver(inputs, event, cwd, token, env)
    return code


def report_path(inputs: Inputs, root: Path) -> Path:
    path = Path(inputs.report_path)
    return path if path.is_absolute() else root / path


def verify(inputs: Inputs, event: Event, config: Config, env: Mapping[str, str]) -> int:
    """Check or regen, then the report file, the log, annotations, summary and outputs."""
    p = plan(inputs, event)
    notes = list(p.notes) + _pull_request_target(config.root, event, env)
    scope = p.scope
    if scope.kind == "range" and scope.base:
        head = None if scope.head in (None, "HEAD") else scope.head
        notes += ensure_base(config.root, scope.base, head)
    report = _run(inputs, config, p, dry_run=p.push_branch is None)
    report = report._replace(notes=(*report.notes, *notes))
    path = report_path(inputs, config.root)
    origin = Origin(event.repo, event.pr, event.head, inputs.comment_id, event.name)
    write_report(path, report, origin)
    _log(report, env)
    publish(report, path, env, links(event.repo, event.head, env))
    return report.exit_code(config.fail_on)


def deliver(inputs: Inputs, event: Event, cwd: Path, token: str, env: Mapping[str, str]) -> None:
    """Push the regenerated specs and post the comment; the report file is data only.

    No project config is read here (its cache could have been rewritten by the verify step's
    code): action.yml passes the verify step's absolute report path.
    """
    path = report_path(inputs, cwd)
    if not path.is_file():
        raise FatalError(f"{path}: no report to deliver; did the verify step run?")
    report, origin = read_report(path)
    p = plan(inputs, event)
    if p.push_branch:
        notes = push_specs(repo_root(cwd), report, event, p.push_branch, token, env)
        report = report._replace(notes=(*report.notes, *notes))
        write_report(path, report, origin)
    target = Target(
        event.repo, event.pr, inputs.comment_id, token, None, p.skip_comment, event.head
    )
    post_comment(report, target, env)


def _run(inputs: Inputs, config: Config, p: Plan, dry_run: bool) -> Report:
    shard = parse_shard(inputs.shard)
    if inputs.mode == "regen":
        from codemode.flows.regenerating import regen

        return regen(config, p.scope, dry_run=dry_run, shard=shard)
    from codemode.flows.checking import check

    return check(config, p.scope, shard=shard)


def _pull_request_target(root: Path, event: Event, env: Mapping[str, str]) -> list[str]:
    """Refuse to run a pull request's code with the write token of ``pull_request_target``."""
    if event.name != "pull_request_target":
        return []
    head = commit_or_none(root, "HEAD")
    if not head or head != env.get("GITHUB_SHA"):
        raise FatalError(
            "pull_request_target with a checkout of the pull request's code: that code would "
            "run with the base repository's write token and secrets. Use `pull_request` (and "
            "the workflow_run pattern for the comment of a fork's PR): see docs/security.md"
        )
    warn(TARGET_NOTE, env)
    return [TARGET_NOTE]


def _log(report: Report, env: Mapping[str, str]) -> None:
    """The same text report as `codemode check`, for the job log (Actions logs show colour)."""
    from codemode.report.terminal import render

    color = env.get("GITHUB_ACTIONS") == "true" and not env.get("NO_COLOR")
    sys.stdout.write(render(report, color=color))
    sys.stdout.flush()


def push_specs(
    root: Path, report: Report, event: Event, branch: str, token: str, env: Mapping[str, str]
) -> list[str]:
    """Commit the applied spec edits on the PR head and push them to ``branch``."""
    files = sorted({e.file for e in report.edits if e.applied and _inside(root, e.file)})
    if not files:
        return ["commit: true: no spec changed, nothing to push"]
    message = f"codemode: regenerate {len(files)} spec file(s)\n\n" + "\n".join(files)
    git_env = {
        "GIT_AUTHOR_NAME": BOT_NAME,
        "GIT_AUTHOR_EMAIL": BOT_EMAIL,
        "GIT_COMMITTER_NAME": BOT_NAME,
        "GIT_COMMITTER_EMAIL": BOT_EMAIL,
        **_credentials(token, env),
    }
    try:
        sha = commit_and_push(root, files, branch, event.head, message, env=git_env)
    except FatalError as exc:
        warn(f"could not push the specs: {exc}", env)
        return [f"the regenerated specs were not pushed: {exc}"]
    print(log_safe(f"codemode: pushed {sha[:12]} to {branch}"), file=sys.stderr)
    return [f"pushed the regenerated specs as {sha[:12]} to `{branch}`"]


def _inside(root: Path, file: str) -> bool:
    """A spec path from the report names a file in the checkout (the report is data)."""
    path = Path(file)
    if path.is_absolute() or ".." in path.parts or file.startswith("-"):
        return False
    return (root / path).resolve().is_relative_to(root.resolve()) and (root / path).is_file()


def _credentials(token: str, env: Mapping[str, str]) -> dict[str, str]:
    """The token as the push's Authorization header, through the environment (never argv).

    The checkout is made with ``persist-credentials: false``, so git has no credentials of its
    own; the empty value first resets any header a persisted checkout left (git's rule for
    ``http.extraHeader``), so the request never carries two.
    """
    if not token:
        return {}
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    key = f"http.{server}/.extraheader"
    return {
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": key,
        "GIT_CONFIG_VALUE_0": "",
        "GIT_CONFIG_KEY_1": key,
        "GIT_CONFIG_VALUE_1": f"AUTHORIZATION: basic {basic}",
    }
