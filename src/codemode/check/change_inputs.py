"""What a run of a change scope computes once and hands to the check and the behaviour diff.

The change's analysis, its new side (materialized where the work tree is not it) and the spec
files it can affect (each read once, parsed once) are the same for the check, which verifies
the specs, and for the diff, which takes the specs' inputs into its pool and their passing
cases as what was accepted. Computed in each of them, a ``check --staged`` that diffs
materialized the new side in both processes, analyzed twice and read every spec file twice
(#34). ``prepare_change`` computes them before the diff's fork starts; both use the value.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from codemode.config import Config
from codemode.scope import Scope

if TYPE_CHECKING:
    from codemode.change.diff import DiffResult
    from codemode.change.git import StagedChange
    from codemode.specs.spec_read import SpecRead
    from codemode.specs.types import SpecFile


class ChangeInputs:
    """The analysis, the new side and the affected spec files of one change scope. The spec
    files are parsed when first asked for: a check alone starts its worker first, so the
    interpreter starts while the YAML is parsed. Closing it removes the new side's folder."""

    def __init__(
        self,
        config: Config,
        analysis: DiffResult,
        new_side: Path | None,
        reads: list[SpecRead],
        named: int,
        staged: StagedChange | None = None,
    ) -> None:
        self.config, self.analysis, self.new_side = config, analysis, new_side
        self.staged = staged  # git's answer for --staged: the repository, HEAD, the sides
        self.reads = reads  # the spec files the change can affect, read
        self.named = named  # how many changed functions they name (whether lanes pay)
        self._specs: list[SpecFile] | None = None

    @property
    def root(self) -> Path:
        """The tree the new side's code and specs are in."""
        return self.new_side or self.config.root

    def specs(self) -> list[SpecFile]:
        if self._specs is None:
            self._specs = _parse(self.reads, self.config.root)
        return self._specs

    def size(self) -> int:
        return sum(len(r.raw) for r in self.reads)

    def close(self) -> None:
        from codemode.tempdirs import remove

        remove(self.new_side)
        self.new_side = None

    def __enter__(self) -> ChangeInputs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def prepare_change(
    config: Config,
    scope: Scope,
    staged: StagedChange | None = None,
    analysis: DiffResult | None = None,
) -> ChangeInputs:
    """The change's analysis (tests left out; ``analysis``: one computed already), its new
    side, and the spec files it can affect, read."""
    from codemode.change import side_tree

    if analysis is None:
        from codemode.change import diff as diff_mod

        analysis = diff_mod.without_tests(diff_mod.analyze(config, scope, staged=staged), config)
    new_side = side_tree.new_side(config.root, scope)
    try:
        root = new_side or config.root
        reads, named = affected_specs(config, root, analysis)
        if reads and scope.kind != "worktree" and new_side is None:
            # The work tree stands in for the index or the commit only for tracked files.
            known = side_tree.tracked(root, [r.path for r in reads])
            reads = [r for r in reads if r.path in known]
    except BaseException:
        from codemode.tempdirs import remove

        remove(new_side)
        raise
    return ChangeInputs(config, analysis, new_side, reads, named, staged)


def affected_specs(config: Config, root: Path, analysis: DiffResult) -> tuple[list[SpecRead], int]:
    """The spec files that name a function the change touched, or that the change edited,
    and how many such functions they name (a file no quick read understands counts two).

    The others cannot change a verdict; parsing every spec file is most of what a hook pays
    when the staged change touches no spec'd function. Each file is read once: its ids come
    from the bytes without a YAML parser, and the same bytes are parsed if it matters.
    """
    from codemode.check.fastpath import spec_keys
    from codemode.specs.discover import find_spec_files
    from codemode.specs.spec_read import read_spec_file

    wanted = {f.id for f in analysis.functions} | set(analysis.renames)
    edited = set(analysis.changed_files)
    out: list[SpecRead] = []
    named = 0
    for path in find_spec_files(config, root=root):
        read = read_spec_file(path, root)
        rel = path.relative_to(root).as_posix()
        text = read.text()
        keys = spec_keys(text) if text is not None else None  # None: the loader says why
        hits = len(wanted & keys.keys()) if keys is not None else 2
        if keys is None or rel in edited or hits:
            out.append(read)
            named += hits + (rel in edited) * 2
    return out, named


def _parse(reads: list[SpecRead], project: Path) -> list[SpecFile]:
    if not reads:
        return []
    from codemode.specs.parsed_cache import ParsedSpecs
    from codemode.specs.spec_files import parse_spec_read  # yaml: only when a spec matters

    cache = ParsedSpecs(project)  # the project's cache: the new side may be a tree of the index
    return [parse_spec_read(r, cache) for r in reads]
