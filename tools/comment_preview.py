"""See a PR comment as a reviewer does: rendered as GitHub renders it, in a 1000 px window.

    python tools/comment_preview.py comment.md preview.html                 # the page
    python tools/comment_preview.py comment.md preview.html --png shot.png  # and a screenshot
    python tools/comment_preview.py comment.md preview.html --measure       # tables that overflow

The Markdown goes through cmarkgfm (GitHub's renderer, with its extensions), into a page laid
out as a pull request's conversation is at a 1000 px wide window: the sidebar beside the
timeline, the avatar's gutter, the comment box, and the few rules of GitHub's stylesheet that
decide a table's width (a table is a block as wide as its content, at most the box, and
scrolls sideways beyond: a column past the edge is off screen). The comment's body is then
590 px wide, as on github.com.

``--measure`` loads the page in headless Chromium and prints, per table, its header and how
many pixels of it are off screen (0: every column shows); exit 1 when a table overflows.
Chromium is Debian's (`apt-get install chromium`); without it, exit 2.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WINDOW = (1000, 2400)
# The page of a pull request at a 1000 px window (GitHub's "md" layout: 24 px margins, a
# 256 px sidebar after a 16 px gutter, a 56 px avatar column): the comment box is 624 px.
STYLE = """
body { margin: 0; background: #fff; color: #1f2328; font-size: 14px; line-height: 1.5;
  font-family: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial,
  sans-serif; }
.layout { display: flex; gap: 16px; margin: 24px; width: 952px; }
.timeline { width: 680px; flex: none; }
.sidebar { width: 256px; flex: none; border-left: 1px solid #d1d9e0; min-height: 400px; }
.comment { margin-left: 56px; border: 1px solid #d1d9e0; border-radius: 6px; }
.comment-head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; }
.markdown-body { padding: 16px; overflow-wrap: break-word; }
.markdown-body table { display: block; width: max-content; max-width: 100%; overflow: auto;
  border-spacing: 0; border-collapse: collapse; margin: 0 0 16px; }
.markdown-body th, .markdown-body td { padding: 6px 13px; border: 1px solid #d1d9e0; }
.markdown-body th { font-weight: 600; }
.markdown-body code { padding: .2em .4em; margin: 0; font-size: 85%; white-space: break-spaces;
  background: rgba(129, 139, 152, .12); border-radius: 6px;
  font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono",
  monospace; }
.markdown-body pre { padding: 16px; overflow: auto; font-size: 85%; line-height: 1.45;
  background: #f6f8fa; border-radius: 6px; }
.markdown-body pre code { padding: 0; background: transparent; white-space: pre;
  font-size: 100%; }
.markdown-body h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
.markdown-body h3 { font-size: 1.25em; }
.markdown-body a { color: #0969da; text-decoration: none; }
"""
# Run after the page is laid out: each table's header, and how far it reaches past its box.
MEASURE = """
<script>
const out = [...document.querySelectorAll('.markdown-body table')].map(t => ({
  head: [...t.querySelectorAll('th')].map(th => th.textContent.trim()).join('|'),
  hidden: t.scrollWidth - t.clientWidth,
}));
document.getElementById('measure').textContent = JSON.stringify(out);
</script>
"""


def page(markdown: str, *, measure: bool = False) -> str:
    """The comment as a pull request's page shows it."""
    import cmarkgfm
    from cmarkgfm.cmark import Options

    body = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    script = MEASURE if measure else ""
    return (
        f'<!doctype html><html><head><meta charset="utf-8"><style>{STYLE}</style></head><body>'
        '<div class="layout"><div class="timeline"><div class="comment">'
        '<div class="comment-head"><b>codemode</b> commented</div>'
        f'<div class="markdown-body">{body}</div></div></div><div class="sidebar"></div></div>'
        f'<pre id="measure"></pre>{script}</body></html>'
    )


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _run(browser: str, *args: str) -> str:
    with tempfile.TemporaryDirectory(prefix="codemode-chromium-") as profile:
        done = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={profile}",
                f"--window-size={WINDOW[0]},{WINDOW[1]}",
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    if done.returncode:
        raise RuntimeError(f"chromium failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return done.stdout


def overflow(markdown: str) -> list[tuple[str, int]]:
    """(header, pixels off screen) of each table of the comment, measured in Chromium."""
    browser = chromium()
    if browser is None:
        raise FileNotFoundError("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="codemode-preview-") as tmp:
        html = Path(tmp) / "comment.html"
        html.write_text(page(markdown, measure=True), encoding="utf-8")
        dom = _run(browser, "--dump-dom", html.as_uri())
    start = dom.index('<pre id="measure">') + len('<pre id="measure">')
    found = json.loads(dom[start : dom.index("</pre>", start)])
    return [(t["head"], int(t["hidden"])) for t in found]


def screenshot(html: Path, png: Path) -> None:
    browser = chromium()
    if browser is None:
        raise FileNotFoundError("chromium is not installed (apt-get install chromium)")
    _run(browser, f"--screenshot={png.resolve()}", html.resolve().as_uri())


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    markdown = Path(args[0]).read_text(encoding="utf-8")
    html = Path(args[1])
    html.write_text(page(markdown), encoding="utf-8")
    try:
        if "--png" in argv:
            screenshot(html, Path(argv[argv.index("--png") + 1]))
        if "--measure" in argv:
            tables = overflow(markdown)
            for head, hidden in tables:
                print(f"{hidden:5d} px off screen: {head}")
            return 1 if any(hidden > 0 for _, hidden in tables) else 0
    except (FileNotFoundError, RuntimeError) as exc:
        print(f"comment_preview: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
