"""The only module that talks to git.

Everything goes through the ``git`` binary's plumbing (``diff --raw -z``, ``diff -U0``,
``cat-file --batch``, ``ls-tree``, ``ls-files``) rather than GitPython's object model: importing
GitPython alone costs about 90 ms, the whole budget of a pre-commit hook that must feel
instant, and its per-object reads are slower than one streamed ``cat-file --batch``. Paths
are repo-relative posix; ``core.quotePath`` is off so non-ASCII paths come back as they are.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from codemode.errors import FatalError

if TYPE_CHECKING:
    from codemode.scope import Scope

REGULAR_MODES = frozenset({"100644", "100755"})
_FETCH_HINT = (
    "use actions/checkout with fetch-depth: 0, or fetch the base first (git fetch origin {ref})"
)
# Settings a user's config could set that would change the output we parse.
_DIFF_FLAGS = (
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--ignore-submodules=all",
    "-M",
)


def run(
    root: Path,
    *args: str,
    stdin: bytes | None = None,
    check: bool = True,
    env: Mapping[str, str] | None = None,
) -> bytes:
    """``git args`` in ``root``; ``env`` adds to (or overrides) this process's environment."""
    try:
        proc = subprocess.run(
            ["git", "-c", "core.quotePath=false", *args],
            cwd=root,
            input=stdin,
            capture_output=True,
            env={**os.environ, **env} if env else None,
        )
    except FileNotFoundError as exc:
        raise FatalError("git is not installed or not on PATH; install git") from exc
    if check and proc.returncode:
        msg = proc.stderr.decode(errors="replace").strip().splitlines()
        raise FatalError(f"git {_verb(args)} failed: {msg[-1] if msg else proc.returncode}")
    return proc.stdout


def run_all(root: Path, *commands: Sequence[str]) -> list[bytes]:
    """``run`` of each command in ``root``, all started at once: on a hook's path each git
    run is mostly a process's start-up, and the ones that need nothing of each other's answer
    overlap (#36). Each is waited for; the first that failed (in the order given) raises."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for args in commands:
            procs.append(
                subprocess.Popen(
                    ["git", "-c", "core.quotePath=false", *args],
                    cwd=root,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
            )
    except FileNotFoundError as exc:
        for proc in procs:
            proc.kill()
            proc.communicate()
        raise FatalError("git is not installed or not on PATH; install git") from exc
    answers = [proc.communicate() for proc in procs]
    for args, proc, (_, err) in zip(commands, procs, answers):
        if proc.returncode:
            msg = err.decode(errors="replace").strip().splitlines()
            raise FatalError(f"git {_verb(args)} failed: {msg[-1] if msg else proc.returncode}")
    return [out for out, _ in answers]


def _verb(args: Sequence[str]) -> str:
    """The subcommand in ``args``, past any ``-c name=value``."""
    i = 0
    while i < len(args) - 1 and args[i] == "-c":
        i += 2
    return args[i] if i < len(args) else ""


def repo_root(path: Path) -> Path:
    """The top of the work tree holding ``path``."""
    return locate(path)[0]


def locate(path: Path) -> tuple[Path, Path]:
    """The top of the work tree holding ``path``, and its git directory (one git run)."""
    top, git_dir, _ = locate_at_head(path)
    return top, git_dir


def locate_at_head(path: Path) -> tuple[Path, Path, str | None]:
    """``locate(path)`` and the commit HEAD names (None before the first commit), one git run."""
    try:
        proc = subprocess.run(
            [
                "git",
                "rev-parse",
                "--show-toplevel",
                "--absolute-git-dir",
                "--verify",
                "--quiet",
                "--end-of-options",
                "HEAD^{commit}",
            ],
            cwd=path,
            capture_output=True,
            encoding="utf-8",  # not text=True: that imports locale for its encoding
            errors="surrogateescape",
        )
    except FileNotFoundError as exc:
        raise FatalError("git is not installed or not on PATH; install git") from exc
    except NotADirectoryError as exc:
        raise FatalError(f"not a directory: {path}; pass --root DIR") from exc
    lines = proc.stdout.splitlines()
    if proc.returncode == 0 and len(lines) == 3:
        return Path(lines[0]), Path(lines[1]), lines[2]
    if proc.returncode == 1 and len(lines) == 2:  # --verify: no commit yet (an unborn branch)
        return Path(lines[0]), Path(lines[1]), None
    # --root cannot help here: the project is found already, it is just not under git.
    raise FatalError(
        f"not a git repository: {path}; --staged, --base and --worktree compare git commits, "
        "so run `git init` (and commit) first, or check every spec without a scope: "
        "`codemode check`"
    )


def rev_parse_commits(root: Path, refs: Sequence[str]) -> tuple[Path, Path, tuple[str, ...]] | None:
    """(work tree, absolute git dir, the commit each ref names) in one git run; None if
    anything is unusual (the caller then takes the path that explains what is wrong)."""
    if any(r.startswith("-") for r in refs):
        return None
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--show-toplevel", "--absolute-git-dir"]
            + [f"{r}^{{commit}}" for r in refs],
            cwd=root,
            capture_output=True,
            encoding="utf-8",  # not text=True: that imports locale for its encoding
            errors="surrogateescape",
        )
    except OSError:
        return None
    lines = proc.stdout.splitlines()
    if proc.returncode or len(lines) != 2 + len(refs):
        return None
    if not all(len(c) in (40, 64) and c.isalnum() for c in lines[2:]):
        return None
    return Path(lines[0]), Path(lines[1]), tuple(lines[2:])


def commit_or_none(root: Path, ref: str) -> str | None:
    out = run(
        root,
        "rev-parse",
        "--verify",
        "--quiet",
        "--end-of-options",
        f"{ref}^{{commit}}",
        check=False,
    )
    return out.decode().strip() or None


def empty_tree(root: Path) -> str:
    return run(root, "hash-object", "-t", "tree", "--stdin", stdin=b"").decode().strip()


# -- the two sides of a scope -------------------------------------------------------------------

HeadKind = Literal["commit", "index", "worktree"]


# NamedTuples rather than dataclasses: a dataclass costs ~1 ms at import, and a cached run
# (a pre-commit hook's) imports this module for a few git calls.
class Sides(NamedTuple):
    base: str  # a commit or tree id ("before")
    head: str | None  # a commit id when head_kind == "commit"
    head_kind: HeadKind

    def diff_args(self) -> list[str]:
        if self.head_kind == "commit":
            assert self.head
            return [self.base, self.head]
        if self.head_kind == "index":
            return ["--cached", self.base]
        return [self.base]


def resolve(root: Path, scope: Scope, head: str | None = None) -> Sides:
    """What to compare: ``staged`` index vs HEAD, ``range`` merge-base..head, else work tree vs HEAD.

    ``head``: HEAD's commit when the caller knows it already (``locate_at_head``)."""
    if scope.kind == "range":
        return _resolve_range(root, scope.base or "HEAD", scope.head or "HEAD")
    base = head or commit_or_none(root, "HEAD") or empty_tree(root)  # no commit: all is added
    return Sides(base, None, "index" if scope.kind == "staged" else "worktree")


def _is_shallow(root: Path) -> bool:
    return run(root, "rev-parse", "--is-shallow-repository").decode().strip() == "true"


def _resolve_range(root: Path, base_ref: str, head_ref: str) -> Sides:
    # the common case in two git runs; the diagnosis only when something is missing
    merge_base = run(root, "merge-base", "--end-of-options", base_ref, head_ref, check=False)
    head = commit_or_none(root, head_ref)
    if head is None:
        raise FatalError(f"unknown revision {head_ref!r}; check the name passed to --head")
    if merge_base.strip():
        return Sides(merge_base.decode().strip(), head, "commit")
    base = commit_or_none(root, base_ref)
    if base is None:
        why = "is not in this shallow clone" if _is_shallow(root) else "is not a known revision"
        raise FatalError(f"the base {base_ref!r} {why}; " + _FETCH_HINT.format(ref=base_ref))
    if _is_shallow(root):
        raise FatalError(
            f"no merge base of {base_ref!r} and {head_ref!r} in this shallow clone; "
            + _FETCH_HINT.format(ref=base_ref)
        )
    raise FatalError(f"{base_ref!r} and {head_ref!r} have no common ancestor; pick another --base")


# -- what changed -------------------------------------------------------------------------------


class FileChange(NamedTuple):
    status: str  # A, M, D, R, T (git's letter)
    old_path: str | None
    new_path: str | None
    old_sha: str | None
    new_sha: str | None  # None: the content is in the work tree
    old_mode: str
    new_mode: str


class Hunks(NamedTuple):
    """Line ranges a diff touched: (start, count) per hunk, git's ``@@ -a,b +c,d @@``."""

    old: list[tuple[int, int]]
    new: list[tuple[int, int]]


def _parse_raw(out: bytes) -> list[FileChange]:
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    changes: list[FileChange] = []
    i = 0
    while i < len(fields) - 1:
        meta = fields[i]
        if not meta.startswith(":"):
            i += 1
            continue
        old_mode, new_mode, old_sha, new_sha, status = meta[1:].split(" ")
        letter = status[0]
        if letter in "RC":
            old_path, new_path = fields[i + 1], fields[i + 2]
            i += 3
        else:
            old_path = new_path = fields[i + 1]
            i += 2
        null_old, null_new = set(old_sha) == {"0"}, set(new_sha) == {"0"}
        changes.append(
            FileChange(
                letter,
                None if letter == "A" else old_path,
                None if letter == "D" else new_path,
                None if null_old else old_sha,
                None if null_new else new_sha,
                old_mode,
                new_mode,
            )
        )
    return changes


def _unquote(path: str) -> str:
    """Undo git's C-style quoting of a path in a patch header."""
    if not path.startswith('"'):
        return path
    raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1").decode("utf-8", "surrogateescape")


def _patch_path(line: str) -> str | None:
    path = line[4:].rstrip("\n").rstrip("\t")
    if path == "/dev/null":
        return None
    path = _unquote(path)
    return path[2:] if path[:2] in ("a/", "b/") else path


def _parse_hunks(out: bytes) -> dict[str, Hunks]:
    """Hunks per path (new path, or old path for a deletion)."""
    result: dict[str, Hunks] = {}
    old_path: str | None = None
    current: Hunks | None = None
    in_header = False  # "--- "/"+++ " are headers only before a file's first hunk: after it,
    # they are a removed "-- ..." or an added "++ ..." line of the file itself
    for line in out.decode("utf-8", "surrogateescape").split("\n"):
        if line.startswith("diff --git "):
            current, old_path, in_header = None, None, True
        elif line.startswith("@@ "):  # hunk content starts with " ", "+", "-" or "\\"
            in_header = False
            if current is not None:
                minus, plus = line.split(" ", 3)[1:3]
                current.old.append(_range(minus[1:]))
                current.new.append(_range(plus[1:]))
        elif not in_header:
            continue
        elif line.startswith("--- "):
            old_path = _patch_path(line)
        elif line.startswith("+++ "):
            key = _patch_path(line) or old_path
            if key is not None:
                current = result.setdefault(key, Hunks([], []))
        elif line.startswith("Binary files "):
            current = None
    return result


def _range(spec: str) -> tuple[int, int]:
    start, _, count = spec.partition(",")
    return int(start), int(count) if count else 1


def raw_diff(root: Path, sides: Sides) -> tuple[list[FileChange], bytes]:
    """Every changed file, any kind, and git's raw output (it pins the change exactly)."""
    raw = run(root, "diff", "--raw", "-z", "--no-abbrev", *_DIFF_FLAGS, *sides.diff_args())
    return _parse_raw(raw), raw


class StagedChange(NamedTuple):
    """The staged change as git states it: asked once by the hook's fast path, then handed to
    the diff analysis, so that a commit pays for two git runs here, not four."""

    repo: Path  # the top of the work tree
    git_dir: Path
    sides: Sides
    changes: list[FileChange]
    raw: bytes
    head: str | None = None  # HEAD's commit; None before the first commit (an unborn branch)


def staged_change(path: Path) -> StagedChange:
    repo, git_dir, head = locate_at_head(path)
    sides = Sides(head or empty_tree(repo), None, "index")  # as resolve() has it for --staged
    changes, raw = raw_diff(repo, sides)
    return StagedChange(repo, git_dir, sides, changes, raw, head)


def hunks(root: Path, sides: Sides, pathspec: Sequence[str] = ("*.py",)) -> dict[str, Hunks]:
    """The lines the hunks of ``pathspec`` files touch, by path."""
    args = ["diff", "-U0", "--src-prefix=a/", "--dst-prefix=b/", *_DIFF_FLAGS]
    return _parse_hunks(run(root, *args, *sides.diff_args(), "--", *pathspec))


# -- reading content ----------------------------------------------------------------------------


class Entry(NamedTuple):
    path: str
    sha: str | None  # the blob id of the content; None for an edited work-tree file
    mode: str
    on_disk: bool = False  # read the work tree's copy (the same content, and cheaper)


def list_files(root: Path, sides: Sides, suffix: str = ".py") -> list[Entry]:
    """Every regular ``suffix`` file at the head side (submodules and symlinks left out)."""
    if sides.head_kind == "commit":
        assert sides.head
        out = run(root, "ls-tree", "-r", "-z", "--full-tree", sides.head)
        entries = []
        for rec in out.decode("utf-8", "surrogateescape").split("\0"):
            if not rec:
                continue
            meta, _, path = rec.partition("\t")
            mode, kind, sha = meta.split(" ")
            if kind == "blob" and mode in REGULAR_MODES and path.endswith(suffix):
                entries.append(Entry(path, sha, mode))
        return entries
    # Index and work tree: a file whose work-tree copy equals the index (not "dirty") is read
    # from disk, which is cheaper than decompressing its blob, and keeps the index's blob id
    # as the key of its cached analysis.
    dirty_out = run(root, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff")
    dirty = set(dirty_out.decode("utf-8", "surrogateescape").split("\0"))
    out = run(root, "ls-files", "-s", "-z")
    entries = []
    for rec in out.decode("utf-8", "surrogateescape").split("\0"):
        if not rec:
            continue
        meta, _, path = rec.partition("\t")
        mode, sha, stage = meta.split(" ")
        if stage != "0" or mode not in REGULAR_MODES or not path.endswith(suffix):
            continue
        if path not in dirty:
            entries.append(Entry(path, sha, mode, on_disk=True))
        elif sides.head_kind == "index":
            entries.append(Entry(path, sha, mode))
        else:
            entries.append(Entry(path, None, mode, on_disk=True))
    return entries


def cat_blobs(root: Path, shas: Iterable[str]) -> Iterator[tuple[str, bytes]]:
    """Blob contents in request order through one ``git cat-file --batch``, streamed so
    that git decompresses the next blob while Python works on this one."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return
    proc = subprocess.Popen(
        ["git", "cat-file", "--batch"],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin and proc.stdout
    stdin, stdout = proc.stdin, proc.stdout

    def feed() -> None:
        try:
            stdin.write("".join(f"{s}\n" for s in wanted).encode())
            stdin.close()
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        for sha in wanted:
            header = stdout.readline().split()
            if len(header) < 3:  # "<sha> missing"
                continue
            data = stdout.read(int(header[2]))
            stdout.read(1)  # the newline after the content
            yield sha, data
    finally:
        writer.join()
        stdout.close()
        proc.wait()


def read_worktree(root: Path, path: str) -> bytes | None:
    full = os.path.join(root, path)  # not pathlib: this runs once per module of the repo
    if os.path.islink(full):
        return None
    try:
        with open(full, "rb") as f:
            return f.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None  # deleted in the work tree but still tracked


def read_entries(root: Path, entries: Sequence[Entry]) -> Iterator[tuple[Entry, bytes]]:
    """Contents of ``entries`` (blobs through cat-file, the rest from the work tree)."""
    by_sha: dict[str, list[Entry]] = {}
    for e in entries:
        if e.on_disk or e.sha is None:
            data = read_worktree(root, e.path)
            if data is not None:
                yield e, data
        else:
            by_sha.setdefault(e.sha, []).append(e)
    for sha, data in cat_blobs(root, by_sha):
        for e in by_sha[sha]:
            yield e, data


# -- the runner's checkout (the GitHub Action) ----------------------------------------------------

FETCH_DEPTHS = (50, 1000)
# Hooks and fsmonitor are programs the work tree's config names; code that ran in the job could
# have set them. The commands that write (with a token, in the Action) run none of them.
_NO_PROGRAMS = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


def _has_merge_base(root: Path, base: str, head: str) -> bool:
    out = run(root, "merge-base", "--end-of-options", base, head, check=False)
    return bool(out.strip())


def ensure_base(root: Path, base: str, head: str | None = None) -> list[str]:
    """Fetch ``base`` (and enough history for a merge base) into a shallow checkout.

    Returns notes on what was fetched; raises FatalError naming ``fetch-depth: 0`` when the
    history cannot be had. ``base`` can come from a workflow input: it is never an option.
    """
    head = head or "HEAD"

    def ready() -> bool:
        return commit_or_none(root, base) is not None and _has_merge_base(root, base, head)

    if ready():
        return []
    # Deepen both sides: a depth-1 checkout has the head but none of its parents, so the
    # merge base is out of reach until the head's history is fetched too.
    wanted = [base, commit_or_none(root, head) or head]
    for depth in FETCH_DEPTHS:
        fetch = ("fetch", "--no-tags", f"--depth={depth}", "--end-of-options", "origin")
        run(root, *fetch, *wanted, check=False)
        if ready():
            return [f"fetched {base[:12]} with --depth={depth} (shallow checkout)"]
    if _is_shallow(root):
        run(root, "fetch", "--no-tags", "--unshallow", "--end-of-options", "origin", check=False)
        if ready():
            return [f"fetched the full history to reach {base[:12]}"]
    raise FatalError(
        f"the base commit {base[:12]} (or its merge base with {head[:12]}) is not in this "
        "checkout and could not be fetched from origin; set `fetch-depth: 0` on "
        "actions/checkout, or pass the `base` input"
    )


def commit_and_push(
    root: Path,
    files: Iterable[str],
    branch: str,
    expect_head: str | None,
    message: str,
    env: Mapping[str, str] | None = None,
) -> str:
    """Commit ``files`` on the checked-out head and push to ``branch``; returns the new sha.

    Refuses unless HEAD is ``expect_head``: on a pull_request event actions/checkout checks
    out a merge commit by default, and pushing that would put the base's changes on the PR
    branch. ``env``: the committer's identity and the push's credentials (GIT_CONFIG_*).
    """
    files = [f for f in files if f]
    if not files:
        raise FatalError("nothing to commit: regen applied no spec edits")
    head = commit_or_none(root, "HEAD") or ""
    if expect_head and head != expect_head:
        raise FatalError(
            f"HEAD is {head[:12]}, not the PR head {expect_head[:12]}; check out the PR branch "
            "(actions/checkout with `ref: ${{ github.event.pull_request.head.ref }}`) "
            "to use `commit: true`"
        )
    run(root, *_NO_PROGRAMS, "add", "--", *files, env=env)
    run(root, *_NO_PROGRAMS, "commit", "--no-verify", "-m", message, "--", *files, env=env)
    ref = f"HEAD:refs/heads/{branch}"
    run(root, *_NO_PROGRAMS, "push", "--no-verify", "--end-of-options", "origin", ref, env=env)
    return commit_or_none(root, "HEAD") or ""


def worktree_changes(root: Path, commit: str) -> list[FileChange]:
    """Every tracked file whose work-tree content differs from ``commit``'s, as added,
    deleted, modified or retyped (no renames: each path stands for itself). Untracked and
    ignored files are no part of it, nor submodules' checkouts: the behaviour diff's old side
    keeps them as the work tree has them (#33)."""
    flags = [f for f in _DIFF_FLAGS if f != "-M"]
    return _parse_raw(
        run(root, "diff", "--raw", "-z", "--no-abbrev", "--no-renames", *flags, commit)
    )
