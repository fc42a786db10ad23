"""Which spec files and cases cover each function id."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from codemode.config import Config
from codemode.specs.discover import find_spec_files

if TYPE_CHECKING:
    from codemode.specs.types import SpecFile


# Not dataclasses: the hook imports this on every commit (see config.Config).
class SpecRef(NamedTuple):
    file: str  # repo-relative
    line: int | None
    cases: tuple[str, ...]


class SpecIndex:
    __slots__ = ("by_function", "files")

    def __init__(
        self,
        files: list[SpecFile] | None = None,
        by_function: dict[str, list[SpecRef]] | None = None,
    ) -> None:
        self.files: list[SpecFile] = files if files is not None else []
        self.by_function: dict[str, list[SpecRef]] = by_function if by_function is not None else {}

    def files_for(self, function_id: str) -> list[str]:
        return [r.file for r in self.by_function.get(function_id, [])]

    def refs_for(self, function_id: str) -> list[SpecRef]:
        return list(self.by_function.get(function_id, []))

    def function_ids(self) -> set[str]:
        return set(self.by_function)


def index_specs(specs: list[SpecFile]) -> SpecIndex:
    idx = SpecIndex(files=specs)
    for spec in specs:
        for f in spec.functions:
            idx.by_function.setdefault(f.id, []).append(
                SpecRef(spec.rel, f.line, tuple(c.id for c in f.cases))
            )
    return idx


def build_index(config: Config, root: Path | None = None) -> SpecIndex:
    from codemode.specs.spec_files import load_spec_files  # yaml: only when specs are parsed

    base = root or config.root
    return index_specs(load_spec_files(find_spec_files(config, root=base), base))
