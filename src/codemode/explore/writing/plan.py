"""What a regen run covers: the functions it explores, the ones it skips and why, and the spec
file each one's cases go to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from codemode.config import Config
from codemode.errors import FatalError
from codemode.explore.writing.scan import Scan, scan_sources, spec_rel_for
from codemode.report.model import Refusal
from codemode.scope import Scope
from codemode.specs.discover import find_spec_files
from codemode.specs.index import SpecIndex
from codemode.specs.types import FunctionSpec, SpecFile
from codemode.specs.write import FunctionUpdate
from codemode.verdicts import EDITED, Verdict


@dataclass
class Target:
    id: str
    changed_lines: tuple[int, ...] = ()
    explicit: bool = False
    changed: bool = False  # named by the diff analyzer
    new: bool = False  # no spec yet: found by a bootstrap (--all, a module or a package)


@dataclass
class Done:
    id: str
    status: Verdict
    message: str
    spec_rel: str | None = None
    update: FunctionUpdate | None = None
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    notes: list[str] = field(default_factory=list)
    visible_bytes: int = 0  # what the model was shown of this function (prompt + tool output)
    mutation_score: float | None = None
    quality: tuple[tuple[str, ...], int, float | None] = ((), 0, None)
    quality_text: str = ""
    refused: list[Refusal] = field(default_factory=list)  # chosen calls not written (#22)


def regen_targets(
    config: Config, scope: Scope, function_ids: Sequence[str], index: SpecIndex
) -> tuple[list[Target], Scan | None]:
    """The functions to explore, and (for --all and paths) what the bootstrap searched."""
    if function_ids:
        return [Target(fid, explicit=True) for fid in dict.fromkeys(function_ids)], None
    if scope.is_change:
        from codemode.change import diff

        analysis = diff.without_tests(diff.analyze(config, scope), config)
        return [
            Target(f.id, f.changed_lines, changed=True)
            for f in analysis.functions
            if f.status in EDITED
        ], None
    if scope.kind == "paths":
        spec_paths, source_paths = _split_paths(config, scope.paths)
        wanted = {p.resolve() for p in spec_paths}
        ids = [f.id for s in index.files if s.path.resolve() in wanted for f in s.functions]
        scan = scan_sources(config, source_paths) if source_paths else None
    else:
        ids = sorted(index.function_ids())
        scan = scan_sources(config)
    known = index.function_ids()
    ids += [f.id for f in scan.functions] if scan else []
    return [Target(fid, new=fid not in known) for fid in dict.fromkeys(ids)], scan


def _split_paths(config: Config, paths: Sequence[str]) -> tuple[list[Path], list[Path]]:
    """Spec files (and folders of them), and modules or packages, named on the command line."""
    specs: list[Path] = []
    sources: list[Path] = []
    for p in paths:
        path = Path(p) if Path(p).is_absolute() else Path.cwd() / p
        if path.is_dir():
            specs += find_spec_files(config, (str(path),))
            sources.append(path)
        elif path.is_file() and path.suffix == ".py":
            sources.append(path)
        elif path.is_file():
            specs.append(path)
        else:
            raise FatalError(
                f"{p}: no such file or directory; name spec files, modules or packages that exist"
            )
    return specs, sources


def spec_for(index: SpecIndex, fid: str) -> tuple[SpecFile, FunctionSpec] | None:
    for spec in index.files:
        f = spec.function(fid)
        if f is not None:
            return spec, f
    return None


def new_spec_rel(config: Config, index: SpecIndex, module: str) -> str:
    for spec in index.files:  # next to the module's other functions, when it has some
        if any(f.id.startswith(module + ".") for f in spec.functions):
            return spec.rel
    return spec_rel_for(config, module)


def cases_summary(func: FunctionSpec | None) -> str:
    if func is None:
        return ""
    from codemode.specs.write import flow

    lines = []
    for c in func.cases[:10]:
        inputs = c.input_value if c.input_form != "none" else None
        want = (
            f"raises {c.raises}"
            if c.raises
            else (flow(c.expected) if c.has_expected else "(no expectation)")
        )
        lines.append(f"- {c.id}: {flow(inputs)} -> {want}"[:200])
    return "\n".join(lines)


def skip_reason(
    target: Target, fingerprint: str | None, spec: SpecFile | None, func: FunctionSpec | None
) -> Done | None:
    """Nothing to explore: the function did not change since its cases were generated, or its
    spec is hand-written and nothing asks for more."""
    meta = func.meta if func else None
    rel = spec.rel if spec else None
    if meta and meta.fingerprint == fingerprint and meta.explored_by and not target.explicit:
        return Done(target.id, "ok", "up to date (fingerprint unchanged)", rel)
    if meta and not meta.fingerprint and not (target.explicit or target.changed):
        # --all over a hand-written spec: nothing says it is stale; adding cases is a choice.
        return Done(
            target.id,
            "ok",
            "hand-written spec; name it with --function to add generated cases",
            rel,
        )
    return None
