"""Record the example PR comment in docs/github-action.md from a real run.

    python tools/example_comment.py           # rewrite the example in docs/github-action.md
    python tools/example_comment.py --check   # exit 1 when the recorded comment is no longer true

The pull request is tests/commentkit.py's: examples/shop with every kind of spec edit a review
tells apart (tests/reviewkit.py), a behaviour change with 100+ witnesses, a refactor and a
missing dependency, in a real git repository in a temporary directory. `codemode check --base
main` runs on it for real (a subprocess), and the comment is rendered from its JSON report as
the Action renders it, with permalinks into the head commit of `octo/shop` on github.com.
Commit dates are pinned, so the commits' SHAs (in the links) are the same on every run; the
comment shows no timing, and the one path of this machine it quotes (the interpreter, in the
import error) is written as a runner's. tests/github/test_review_comment.py runs the --check.
"""

from __future__ import annotations

import difflib
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "github-action.md"
START = "<!-- example-comment:start (tools/example_comment.py writes this part) -->"
END = "<!-- example-comment:end -->"
REPO = "octo/shop"
RUNNER_PYTHON = "/opt/hostedtoolcache/Python/3.12.7/x64/bin/python"  # this machine's, as a runner's


def comment() -> str:
    """The comment of the example pull request, as GitHub would receive it."""
    sys.path.insert(0, str(ROOT / "tests"))
    from codemode.report.links import make_links
    from codemode.report.markdown import render_markdown
    from codemode.report.model import Report
    from commentkit import busy_report, make_busy_pull_request

    with tempfile.TemporaryDirectory() as tmp:
        _, head = make_busy_pull_request(Path(tmp) / "shop")
        report = Report.from_dict(busy_report(Path(tmp) / "shop"))
    markdown = render_markdown(report, links=make_links("https://github.com", REPO, head))
    return markdown.replace(sys.executable, RUNNER_PYTHON)


def section(markdown: str) -> str:
    """The comment quoted, so that its headings stay inside the example."""
    quoted = "\n".join(f"> {line}".rstrip() for line in markdown.rstrip().splitlines())
    return f"{START}\n{quoted}\n{END}"


def rewrite(doc: str, markdown: str) -> str:
    head, _, rest = doc.partition(START)
    _, found, tail = rest.partition(END)
    if not found:
        raise SystemExit(f"{DOC}: no {START!r} ... {END!r} block to rewrite")
    return head + section(markdown) + tail


def main(argv: list[str]) -> int:
    doc = DOC.read_text(encoding="utf-8")
    new = rewrite(doc, comment())
    if "--check" in argv:
        if new == doc:
            return 0
        diff = difflib.unified_diff(
            doc.splitlines(), new.splitlines(), "recorded", "now", lineterm=""
        )
        print("\n".join(diff))
        print(
            f"{DOC.name}: the example comment is out of date; run python tools/example_comment.py"
        )
        return 1
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
