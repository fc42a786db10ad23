"""Delivering a report on GitHub: the report file, annotations, job summary, outputs, comment.

``codemode action`` (in its verify and deliver steps) and ``codemode comment`` (the second half
of the fork-safe pattern) both end here. The summary is written before GitHub is called, so an
API failure cannot lose it; a failed comment is a ``::warning::`` and a line in the summary,
never an exit code. What reaches the job log goes through ``log_safe`` or the toolkit's escapes.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from types import UnionType
from typing import Any, Literal, NamedTuple, Union, get_args, get_origin, get_type_hints

from codemode.config import DEFAULT_FAIL_ON, parse_fail_on
from codemode.errors import FatalError
from codemode.github.event import append_summary, parse_pr, read_event, write_outputs
from codemode.logsafe import emit_command, log_safe
from codemode.report.annotations import escape_data, render_annotations
from codemode.report.links import Links, make_links, server_url
from codemode.report.markdown import (
    COMMENT_ID_PATTERN,
    COMMENT_LIMIT,
    DEFAULT_COMMENT_ID,
    SUMMARY_LIMIT,
    escape_text,
    render_markdown,
    valid_comment_id,
)
from codemode.report.model import Report, merge_reports

GITHUB_KEY = "github"  # extra top-level key in report.json: where the report came from


class Origin(NamedTuple):
    """Where a report was made: the ``github`` block of report.json.

    In a ``workflow_run`` job it was written by the PR's own code: every field is a hint that
    ``from_json`` checks, and the event and flags win over it.
    """

    repo: str | None = None
    pr: int | None = None
    head_sha: str | None = None
    comment_id: str = DEFAULT_COMMENT_ID
    event: str = ""

    def to_json(self) -> dict[str, Any]:
        return self._asdict()

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Origin:
        def text(key: str) -> str | None:
            value = d.get(key)
            return value if isinstance(value, str) and value else None

        return cls(
            repo=text("repo"),
            pr=parse_pr(d.get("pr")),
            head_sha=text("head_sha"),
            comment_id=text("comment_id") or DEFAULT_COMMENT_ID,
            event=text("event") or "",
        )


class Target(NamedTuple):
    """Where the comment goes; ``pr`` None means no comment."""

    repo: str | None
    pr: int | None
    comment_id: str = DEFAULT_COMMENT_ID
    token: str = ""
    expect_head_sha: str | None = None
    skip_reason: str = ""  # why no comment is posted, shown in the log and the summary
    head_sha: str | None = None  # the commit under review: spec and source lines link into it


def read_report(path: Path) -> tuple[Report, Origin | None]:
    """The report and where it came from (PR number, repo, head sha), when it says."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        report = Report.from_dict(data)
        # In a workflow_run job the file is a fork's: every value must have its type, or the
        # renderers would fail on it (exit 3) instead of this one clear line.
        _check_types(report, "report")
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise FatalError(f"{path}: cannot read the report: {exc}") from exc
    block = data.get(GITHUB_KEY) if isinstance(data, dict) else None
    return report, Origin.from_json(block) if isinstance(block, dict) else None


_hints = functools.cache(get_type_hints)  # once per record class, not per case


def _check_types(value: Any, where: str, kind: Any = Report) -> None:
    """``value`` holds what the report model's annotations say, all the way down."""
    origin, args = get_origin(kind), get_args(kind)
    if kind is Any:
        return
    if origin is Literal:
        ok = value in args
    elif origin in (Union, UnionType):
        for arm in args:
            try:
                _check_types(value, where, arm)
                return
            except TypeError:
                pass
        ok = False
    elif origin is tuple:
        if not isinstance(value, tuple):
            raise TypeError(f"{where}: expected a list, got {type(value).__name__}")
        for i, item in enumerate(value):
            _check_types(item, f"{where}[{i}]", args[0])
        return
    elif isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields"):
        if not isinstance(value, kind):
            raise TypeError(f"{where}: expected an object, got {type(value).__name__}")
        for name, hint in _hints(kind).items():
            _check_types(getattr(value, name), f"{where}.{name}", hint)
        return
    elif kind is type(None):
        ok = value is None
    elif kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise TypeError(f"{where}: unexpected value {str(value)[:80]!r}")


def write_report(path: Path, report: Report, origin: Origin | None) -> None:
    from codemode.atomic import write_atomic

    extra = {GITHUB_KEY: origin.to_json()} if origin else None
    write_atomic(path, report.to_json(extra=extra) + "\n")


def checked_comment_id(value: str, where: str) -> str:
    if not valid_comment_id(value):
        raise FatalError(
            f"{where}: the comment id must match {COMMENT_ID_PATTERN.pattern} (it goes into "
            f"the comment's hidden marker), got {value!r}"
        )
    return value


def links(repo: str | None, sha: str | None, env: Mapping[str, str]) -> Links | None:
    """Permalinks into ``repo`` at ``sha`` on the runner's GitHub (GHES included)."""
    server = server_url(env.get("GITHUB_SERVER_URL"), env.get("GITHUB_API_URL"))
    return make_links(server, repo, sha)


def publish(
    report: Report,
    report_path: Path | None,
    env: Mapping[str, str],
    at: Links | None = None,
) -> None:
    """Annotations (stdout), the job summary and the verdict counts as step outputs; ``at``:
    where the summary's spec and source lines link to."""
    emit_command(render_annotations(report))
    overflow = f"see the report artifact ({report_path.name})" if report_path else ""
    summary = render_markdown(
        report, limit=SUMMARY_LIMIT, overflow=overflow, in_bytes=True, links=at
    )
    append_summary(summary, env)
    outputs = {k: str(v) for k, v in report.counts().items()}
    outputs["report-path"] = str(report_path) if report_path else ""
    write_outputs(outputs, env)


def post_comment(report: Report, target: Target, env: Mapping[str, str]) -> str:
    """The sticky comment, when ``target`` says so; its URL (also the ``comment-url`` output)."""
    url = ""
    if target.pr and target.repo and not target.skip_reason:
        from codemode.github.api import upsert_comment  # PyGithub only when a comment is posted

        at = links(target.repo, target.head_sha, env)
        body = render_markdown(report, comment_id=target.comment_id, limit=COMMENT_LIMIT, links=at)
        result = upsert_comment(
            target.repo,
            target.pr,
            body,
            comment_id=target.comment_id,
            token=target.token,
            expect_head_sha=target.expect_head_sha,
            env=env,
        )
        if result.ok:
            url = result.url or ""
            _say(f"comment {result.action}: {url}")
        else:
            warn(f"PR comment not posted: {result.message}", env)
    elif target.skip_reason:
        _say(f"no PR comment: {target.skip_reason}")
        if target.pr:  # a PR that gets no comment (a fork, comment: false): say so
            note = escape_text(f"codemode: no PR comment: {target.skip_reason}")
            append_summary(f"> [!NOTE]\n> {note}\n", env)
    write_outputs({"comment-url": url}, env)
    return url


def deliver(
    report: Report,
    target: Target,
    fail_on: tuple[str, ...],
    *,
    report_path: Path | None,
    env: Mapping[str, str],
) -> int:
    """Annotations, job summary, outputs and comment, then the exit code of the verdicts."""
    publish(report, report_path, env, links(target.repo, target.head_sha, env))
    post_comment(report, target, env)
    return report.exit_code(fail_on)


def warn(message: str, env: Mapping[str, str]) -> None:
    message = message if len(message) <= 2_000 else message[:1_999] + "…"  # the summary's budget
    emit_command(f"::warning title=codemode::{escape_data(message)}\n")
    append_summary(f"> [!WARNING]\n> {escape_text(f'codemode: {message}')}\n", env)


def _say(message: str) -> None:
    print(log_safe(f"codemode: {message}"), file=sys.stderr, flush=True)


def run_comment(
    report_path: Path,
    *,
    comment_id: str | None,
    pr: str | None,
    repo: str | None,
    fail_on: str | None,
    env: Mapping[str, str],
) -> int:
    """``codemode comment``: deliver a report.json; flags and the event win over the report."""
    report, found = read_report(report_path)
    origin = found or Origin()
    event = read_event(env)
    number = parse_pr(pr) if pr is not None else None
    if pr is not None and number is None:
        raise FatalError(f"--pr must be a pull request number, got {pr!r}")
    # The report's PR number is a fallback only: on a fork it was written by the PR's code.
    number = number or event.pr or origin.pr
    if comment_id is not None:
        chosen = checked_comment_id(comment_id, "--comment-id")
    else:
        chosen = checked_comment_id(origin.comment_id, str(report_path))
    target = Target(
        repo=repo or env.get("GITHUB_REPOSITORY") or origin.repo,
        pr=number,
        comment_id=chosen,
        token=env.get("GITHUB_TOKEN", ""),
        expect_head_sha=event.run_head_sha,
        skip_reason="" if number else "no pull request number (--pr, the event, or the report)",
        # the event's commit first: the report's is the fork's word
        head_sha=event.run_head_sha or event.head or origin.head_sha,
    )
    verdicts = parse_fail_on(fail_on) if fail_on is not None else DEFAULT_FAIL_ON
    return deliver(report, target, verdicts, report_path=report_path, env=env)


def merge_files(paths: list[Path], out: Path) -> Report:
    """``codemode merge``: the reports of sharded jobs as one report file, for one comment."""
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise FatalError(f"no such report: {', '.join(missing)}")
    read = [read_report(p) for p in paths]
    merged = merge_reports([r for r, _ in read])
    # Shards of one run share where they came from; keep the first one that says.
    write_report(out, merged, next((o for _, o in read if o), None))
    return merged
