"""Pin a range's two revisions from the repository's files, without running git.

A repeat ``codemode diff --base REF`` (or ``check --base``) is answered from the analysis
cache, whose key needs only what pins both sides. Asking ``git rev-parse`` for that costs a
process and, before it, importing ``subprocess``: about a tenth of a cached run. Most
revisions people pass (``HEAD``, ``HEAD~1``, ``main``, ``origin/main``, a tag, a full commit
id) can be pinned by reading ``HEAD``, the loose refs and ``packed-refs`` as git's files
backend stores them: the object id the name resolves to, plus the ``~N``/``^N`` steps after
it, which are a fixed function of that object. Such a pin is a git revision itself
(``<id>~1``), and it names what it names forever, as a key must.

Anything less plain is declined (None), and the caller asks git as before: abbreviated ids,
``@{...}``, ``^{...}``, ``:path``, pseudorefs (``FETCH_HEAD``), reftable repositories,
replace refs and grafts, ``core.worktree``, a repository owned by another user (git would
refuse it), a search that crosses a file system, and any environment variable that changes
where git looks (``GIT_DIR``, ``GIT_NAMESPACE``, ...). A pin is only ever a cache key: a
revision git cannot resolve has no cached answer, and the full path reports it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

# Variables that change which repository, refs or objects git sees: with any of them set,
# only git itself knows what a name means.
_GIT_LOCATION_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_REPLACE_REF_BASE",
    "GIT_NO_REPLACE_OBJECTS",
    "GIT_GRAFT_FILE",
    "GIT_SHALLOW_FILE",
    "GIT_CONFIG",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
)
_OBJECT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")  # SHA-1 or SHA-256
# A name and its ancestry steps. The name is narrower than git's ref format on purpose.
_REVISION = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_./+-]*)((?:[~^][0-9]*)*)")
# git's rules for a short name (``ref_rev_parse_rules``), after ``$GIT_DIR/<name>``
_SHORT_NAME_RULES = (
    "refs/{}",
    "refs/tags/{}",
    "refs/heads/{}",
    "refs/remotes/{}",
    "refs/remotes/{}/HEAD",
)
_BARE = re.compile(rb"^[ \t]*bare[ \t]*(?:=[ \t]*(\w*))?", re.M)
# refs kept per work tree (the rest live in the common dir)
_PER_WORKTREE = ("refs/bisect/", "refs/worktree/", "refs/rewritten/")


class _Repo:
    """A repository's git dir (a work tree's own, for a linked work tree) and common dir."""

    def __init__(self, top: str, git_dir: str, common: str) -> None:
        self.top, self.git_dir, self.common = top, git_dir, common
        self._packed: bytes | None = None

    def packed(self) -> bytes:
        if self._packed is None:
            try:
                with open(os.path.join(self.common, "packed-refs"), "rb") as f:
                    self._packed = b"\n" + f.read()
            except FileNotFoundError:
                self._packed = b""
        return self._packed

    def read_ref(self, name: str, hops: int = 0) -> str | None:
        """The object id a full ref name (or ``HEAD``) holds, following symbolic refs; None
        if it does not exist. Raises ValueError where the answer is unsure."""
        if hops > 5:
            raise ValueError("symbolic refs nested too deep")
        own = name == "HEAD" or name.startswith(_PER_WORKTREE)
        path = os.path.join(self.git_dir if own else self.common, *name.split("/"))
        try:
            with open(path, "rb") as f:
                text = f.read().decode("ascii").strip()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None if own else self._packed_ref(name)
        except UnicodeDecodeError as exc:
            raise ValueError("not a ref file") from exc
        if text.startswith("ref: "):
            target = text[5:].strip()
            if not target.startswith("refs/") or not _plain_name(target):
                raise ValueError("an unusual symbolic ref")
            found = self.read_ref(target, hops + 1)
            if found is None:
                raise ValueError("a symbolic ref to nothing (an unborn branch)")
            return found
        if not _OBJECT_ID.fullmatch(text):
            raise ValueError("not a ref file")
        return text

    def _packed_ref(self, name: str) -> str | None:
        data = self.packed()
        at = data.find(b" " + name.encode() + b"\n")
        while at >= 0:
            start = data.rfind(b"\n", 0, at) + 1
            oid = data[start:at].decode("ascii", "replace")
            if _OBJECT_ID.fullmatch(oid):
                return oid
            at = data.find(b" " + name.encode() + b"\n", at + 1)
        return None

    def resolve(self, name: str) -> str | None:
        """What git's DWIM makes of ``name``: a full object id, a full ref name, or a short
        name tried as ``refs/<name>``, a tag, a branch, a remote branch, in that order."""
        if _OBJECT_ID.fullmatch(name):
            return name
        tried = [rule.format(name) for rule in _SHORT_NAME_RULES]
        if name == "HEAD" or name.startswith("refs/"):
            tried.insert(0, name)
        elif name.isupper() or any(
            os.path.lexists(os.path.join(d, name)) for d in (self.git_dir, self.common)
        ):
            raise ValueError("a pseudoref or a file in the git dir")
        for ref in tried:
            found = self.read_ref(ref)
            if found is not None:
                return found
        return None


def _plain_name(name: str) -> bool:
    parts = name.split("/")
    return ".." not in name and not any(
        not p or p.startswith(".") or p.endswith((".lock", ".")) for p in parts
    )


def _find_repo(start: str) -> _Repo | None:
    """The repository holding ``start``, found as git finds it, or None where git's own
    search could differ (a file system boundary, a bare repository on the way)."""
    here = os.path.abspath(start)
    device = os.stat(here).st_dev
    while True:
        dot_git = os.path.join(here, ".git")
        if os.path.isdir(dot_git):
            git_dir = dot_git
            break
        if os.path.isfile(dot_git):
            with open(dot_git, encoding="utf-8") as f:
                line = f.read().strip()
            if not line.startswith("gitdir: "):
                return None
            git_dir = os.path.join(here, line[8:])
            break
        if os.path.lexists(dot_git):
            return None
        if all(os.path.exists(os.path.join(here, p)) for p in ("HEAD", "objects", "refs")):
            return None  # a bare repository, or a git dir itself
        parent = os.path.dirname(here)
        if parent == here or os.stat(parent).st_dev != device:
            return None
        here = parent
    common = git_dir
    if os.path.isfile(os.path.join(git_dir, "commondir")):
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as f:
            common = os.path.join(git_dir, f.read().strip())
    if not os.path.isfile(os.path.join(git_dir, "HEAD")) or not all(
        os.path.isdir(os.path.join(common, p)) for p in ("objects", "refs")
    ):
        return None  # not a valid git dir: git would go on searching, or fail
    return _Repo(here, os.path.abspath(git_dir), os.path.abspath(common))


def _plain_repository(repo: _Repo) -> bool:
    """Nothing that changes what a name or a commit's parents mean, nor where the work tree
    is, and owned by this user (git refuses another user's repository)."""
    common = repo.common
    if any(os.path.exists(os.path.join(common, p)) for p in ("reftable", "info/grafts")):
        return False
    replace = os.path.join(common, "refs", "replace")
    if (os.path.isdir(replace) and os.listdir(replace)) or b"refs/replace/" in repo.packed():
        return False
    with open(os.path.join(common, "config"), "rb") as f:
        config = f.read().lower()
    # core.worktree, extensions.worktreeConfig, core.bare: git places the work tree itself
    if b"worktree" in config or any(
        v not in (b"false", b"no", b"off", b"0") for v in _BARE.findall(config)
    ):
        return False
    uid = os.geteuid()
    return all(os.stat(p).st_uid == uid for p in (repo.top, repo.git_dir, common))


def pin_revisions(
    root: str | os.PathLike[str], revisions: Sequence[str], env: Mapping[str, str] = os.environ
) -> tuple[str, str, tuple[str, ...]] | None:
    """(work tree, absolute git dir, a pin per revision) from files alone; None when unsure.

    A pin is ``<object id><steps>`` (``HEAD~1`` -> ``1f3c...~1``): a revision that names the
    same commit as the original for as long as the object exists."""
    if any(k in env for k in _GIT_LOCATION_ENV):
        return None
    try:
        repo = _find_repo(os.fspath(root))
        if repo is None or not _plain_repository(repo):
            return None
        pins = []
        for revision in revisions:
            m = _REVISION.fullmatch(revision)
            if m is None or not _plain_name(m.group(1)):
                return None
            oid = repo.resolve(m.group(1))
            if oid is None:
                return None
            pins.append(oid + m.group(2))
    except (OSError, ValueError):
        return None
    return repo.top, repo.git_dir, tuple(pins)
