"""``codemode action``: the GitHub Action's entry point (see action.yml).

Reads the action's inputs from ``INPUT_*`` variables (action.yml maps each ``inputs.x`` to
one, since composite actions do not), derives the scope from the event, runs check or
regen, writes report.json, and delivers it: annotations, job summary, outputs, and the
sticky comment (not on forks, whose token is read-only: the workflow_run pattern is for
them). In regen mode, ``commit: true`` on a same-repository PR pushes the regenerated
specs to the PR branch.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codemode.cli.comment_cmd import Target, deliver, write_report
from codemode.cli.common import parse_shard
from codemode.config import Config, load_config, parse_fail_on
from codemode.errors import FatalError
from codemode.github.event import Event, commit_and_push, ensure_base, read_event
from codemode.report.annotations import escape_data
from codemode.report.markdown import DEFAULT_COMMENT_ID
from codemode.report.model import Report
from codemode.scope import Scope

FORK_NOTE = (
    "no PR comment: this pull request comes from a fork, whose token cannot write; "
    "use the workflow_run pattern (docs/github-action.md, 'Pull requests from forks')"
)


@dataclass(frozen=True)
class Inputs:
    mode: str = "check"
    base: str = ""
    head: str = ""
    model: str = ""
    python: str = ""
    github_token: str = ""
    comment: bool = True
    comment_id: str = DEFAULT_COMMENT_ID
    fail_on: str = ""
    max_model_requests: str = ""
    max_cost: str = ""
    shard: str = ""
    args: str = ""
    commit: bool = False
    report_path: str = "codemode-report.json"


def read_inputs(env: Mapping[str, str]) -> Inputs:
    """Each field of ``Inputs`` from its ``INPUT_*`` variable; empty means the default."""

    def get(name: str) -> str:
        # Runners name them INPUT_GITHUB-TOKEN for JavaScript actions; action.yml uses _.
        key = name.upper()
        value = env.get(f"INPUT_{key.replace('-', '_')}", env.get(f"INPUT_{key}", ""))
        return value.strip()

    def flag(name: str, value: str) -> bool:
        if value.lower() in ("true", "yes", "1", "on"):
            return True
        if value.lower() in ("false", "no", "0", "off"):
            return False
        raise FatalError(f"input `{name}` must be true or false, got {value!r}")

    values: dict[str, Any] = {}
    for field in dataclasses.fields(Inputs):
        name = field.name.replace("_", "-")
        value = get(name)
        is_flag = isinstance(field.default, bool)
        if value and not (is_flag and value.lower() == "default"):
            values[field.name] = flag(name, value) if is_flag else value
    inputs = Inputs(**values)
    if inputs.mode not in ("check", "regen"):
        raise FatalError(f"input `mode` must be check or regen, got {inputs.mode!r}")
    return inputs


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "action",
        help="the GitHub Action's entry point (reads INPUT_* variables)",
        description="Run as the GitHub Action: inputs come from INPUT_* environment "
        "variables, the scope from the event payload (GITHUB_EVENT_PATH).",
    )
    p.set_defaults(run=run)


def _number(name: str, value: str, kind: type[int] | type[float]) -> int | float | None:
    if not value:
        return None
    try:
        return kind(value)
    except ValueError:
        raise FatalError(f"input `{name}` must be a number, got {value!r}") from None


def config_for(inputs: Inputs, root: Path) -> Config:
    overrides: dict[str, Any] = {
        "model": inputs.model or None,
        "python": inputs.python or None,
        "max_model_requests": _number("max-model-requests", inputs.max_model_requests, int),
        "max_cost": _number("max-cost", inputs.max_cost, float),
    }
    if inputs.fail_on:
        overrides["fail_on"] = parse_fail_on(inputs.fail_on)
    return load_config(root, overrides)


def scope_for(inputs: Inputs, event: Event) -> tuple[Scope, list[str]]:
    """Explicit inputs first, then the event; the work tree is always what runs."""
    extra = shlex.split(inputs.args)
    if extra:
        unknown = [a for a in extra if a.startswith("-") and a != "--all"]
        if unknown:
            raise FatalError(
                f"input `args`: unsupported {unknown}; give spec paths or --all "
                "(use base/head/shard/fail-on inputs for the rest)"
            )
        if "--all" in extra:
            return Scope("all"), []
        return Scope("paths", paths=tuple(extra)), []
    if inputs.base:
        return Scope("range", base=inputs.base, head=inputs.head or "HEAD"), []
    if event.name in ("pull_request", "pull_request_target") and event.base:
        # HEAD (the checkout: the merge commit, or the PR head) is what the worker runs;
        # its merge base with the PR's base is the base itself for the merge commit.
        return Scope("range", base=event.base, head="HEAD"), []
    if event.name == "push" and event.base:
        return Scope("range", base=event.base, head="HEAD"), []
    if event.name == "push":
        return Scope("all"), ["first push of this branch: no earlier commit, checked every spec"]
    return Scope("all"), []


def _run(inputs: Inputs, config: Config, scope: Scope, dry_run: bool) -> Report:
    shard = parse_shard(inputs.shard)
    if inputs.mode == "regen":
        from codemode.explore.regen import run_regen

        report: Report = run_regen(config, scope, dry_run=dry_run, shard=shard)
        return report
    from codemode.check.run import run_check

    return run_check(config, scope, shard=shard)


def run(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    inputs = read_inputs(env)
    # The user's functions run below; they get no token (defence in depth: the worker strips
    # secrets too).
    for key in ("INPUT_GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "GITHUB_TOKEN"):
        os.environ.pop(key, None)
    token = inputs.github_token or env.get("GITHUB_TOKEN", "")
    event = read_event(env)
    config = config_for(inputs, Path.cwd())
    scope, notes = scope_for(inputs, event)
    if scope.kind == "range" and scope.base:
        head = None if scope.head in (None, "HEAD") else scope.head
        notes += ensure_base(config.root, scope.base, head)
    same_repo_pr = event.pr is not None and not event.is_fork
    commit = inputs.mode == "regen" and inputs.commit and same_repo_pr and bool(event.head_ref)
    if inputs.mode == "regen" and inputs.commit and not commit:
        notes.append("commit: true ignored: it applies to pull requests from this repository only")
    report = _run(inputs, config, scope, dry_run=not commit)
    if commit:
        notes += _commit(config.root, report, event)
    report = report._replace(notes=(*report.notes, *notes))
    report_path = Path(inputs.report_path)
    if not report_path.is_absolute():
        report_path = config.root / report_path
    ctx = {
        "repo": event.repo,
        "pr": event.pr,
        "head_sha": event.head,
        "comment_id": inputs.comment_id,
        "event": event.name,
    }
    write_report(report_path, report, ctx)
    skip = ""
    if not inputs.comment:
        skip = "the `comment` input is false"
    elif event.pr is None:
        skip = f"not a pull request ({event.name or 'not in GitHub Actions'})"
    elif event.is_fork:
        skip = FORK_NOTE
    target = Target(
        repo=event.repo,
        pr=event.pr,
        comment_id=inputs.comment_id,
        token=token,
        skip_reason=skip,
    )
    _log(report, env)
    return deliver(report, target, config.fail_on, report_path=report_path, env=env)


def _log(report: Report, env: Mapping[str, str]) -> None:
    """The same text report as `codemode check`, for the job log (Actions logs show colour)."""
    from codemode.report.terminal import render

    color = env.get("GITHUB_ACTIONS") == "true" and not env.get("NO_COLOR")
    sys.stdout.write(render(report, color=color))
    sys.stdout.flush()


def _commit(root: Path, report: Report, event: Event) -> list[str]:
    files = sorted({e.file for e in report.edits if e.applied})
    if not files:
        return ["commit: true: no spec changed, nothing to push"]
    try:
        sha = commit_and_push(
            root,
            files,
            event.head_ref or "",
            event.head,
            f"codemode: regenerate {len(files)} spec file(s)\n\n" + "\n".join(files),
        )
    except FatalError as exc:
        print(f"::warning title=codemode::{escape_data(f'could not push the specs: {exc}')}")
        return [f"the regenerated specs were not pushed: {exc}"]
    print(f"codemode: pushed {sha[:12]} to {event.head_ref}", file=sys.stderr)
    return [f"pushed the regenerated specs as {sha[:12]} to `{event.head_ref}`"]
