"""The Action's inputs, and what they and the event decide: the config, the scope, the plan.

action.yml maps each ``inputs.x`` to an ``INPUT_X`` variable (composite actions do not);
``read_inputs`` reads them into ``Inputs``; ``plan`` turns inputs and the event into what a
run does (scope, notes, whether the regenerated specs are pushed, why no comment is posted).
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codemode.config import Config, load_config, parse_fail_on
from codemode.errors import FatalError
from codemode.github.event import Event
from codemode.report.markdown import COMMENT_ID_PATTERN, DEFAULT_COMMENT_ID, valid_comment_id
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


@dataclass(frozen=True)
class Plan:
    """What one run of the Action does, decided before anything runs."""

    scope: Scope
    notes: tuple[str, ...] = ()
    push_branch: str | None = None  # regen with ``commit: true`` on a same-repository PR
    skip_comment: str = ""  # why no comment is posted ("" when one is)


def _flag(name: str, value: str) -> bool:
    if value.lower() in ("true", "yes", "1", "on"):
        return True
    if value.lower() in ("false", "no", "0", "off"):
        return False
    raise FatalError(f"input `{name}` must be true or false, got {value!r}")


def read_inputs(env: Mapping[str, str]) -> Inputs:
    """Each field of ``Inputs`` from its ``INPUT_*`` variable; empty means the default."""
    values: dict[str, Any] = {}
    for field in dataclasses.fields(Inputs):
        name = field.name.replace("_", "-")
        # Runners name them INPUT_GITHUB-TOKEN for JavaScript actions; action.yml uses _.
        key = name.upper()
        value = env.get(f"INPUT_{key.replace('-', '_')}", env.get(f"INPUT_{key}", "")).strip()
        is_flag = isinstance(field.default, bool)
        if value and not (is_flag and value.lower() == "default"):
            values[field.name] = _flag(name, value) if is_flag else value
    inputs = Inputs(**values)
    if inputs.mode not in ("check", "regen"):
        raise FatalError(f"input `mode` must be check or regen, got {inputs.mode!r}")
    if not valid_comment_id(inputs.comment_id):
        raise FatalError(
            f"input `comment-id` must match {COMMENT_ID_PATTERN.pattern} (it goes into the "
            f"comment's hidden marker), got {inputs.comment_id!r}"
        )
    return inputs


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


def plan(inputs: Inputs, event: Event) -> Plan:
    """The scope, the push and the comment, from the inputs and the event alone.

    The deliver step (which holds the token) decides from these again, never from the report
    file: the verify step ran the project's code, which could have rewritten that file.
    """
    scope, notes = scope_for(inputs, event)
    same_repo_pr = event.pr is not None and not event.is_fork
    push = inputs.mode == "regen" and inputs.commit and same_repo_pr and bool(event.head_ref)
    if inputs.mode == "regen" and inputs.commit and not push:
        notes.append("commit: true ignored: it applies to pull requests from this repository only")
    skip = ""
    if not inputs.comment:
        skip = "the `comment` input is false"
    elif event.pr is None:
        skip = f"not a pull request ({event.name or 'not in GitHub Actions'})"
    elif event.is_fork:
        skip = FORK_NOTE
    return Plan(scope, tuple(notes), event.head_ref if push else None, skip)
