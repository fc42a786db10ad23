"""The layout holds: imports run downstream through the pipeline's stages, git and GitHub each
have one owner, and no function grows past what a reader takes in at once (issue #14).

Static checks over ``src/codemode``: they start no process and import nothing they inspect.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "codemode"

# Higher stages may import lower ones, never the reverse; the four stages on one rank are peers
# that do not import each other. Top-level modules (config, errors, scope, ...) are the core.
RANK = {
    "cli": 8,
    "github": 7,
    "flows": 6,  # one function per flow, which every delivery calls (#34)
    "behaviour": 5,
    "explore": 4,
    "check": 3,
    "report": 2,
    "change": 2,
    "specs": 2,
    "worker": 2,
}
CORE_RANK = 1
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 600
# Modules of constants that import nothing, which any stage and the core may import: the
# canonical form's tags are written by the worker (a stdlib-only script in the user's
# interpreter) and read by the core's compare, so one module holds them for both.
LEAVES = {"codemode.worker.tags"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC.parent).with_suffix("")
        parts = list(rel.parts)
        if "examples" in parts:
            continue
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in RANK) else "core"


def _rank(module: str) -> int:
    return RANK.get(_stage(module), CORE_RANK)


def _imports(module: str) -> list[tuple[str, int, bool]]:
    """(imported codemode module, line, at module level) for every import in ``module``."""
    tree = ast.parse(MODULES[module].read_text())
    top = {id(node) for node in tree.body}
    out = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            # ``from codemode.change import git`` names a module; ``from x import func`` does not.
            if name in MODULES:
                out.append((name, node.lineno, id(node) in top))
    return out


def test_imports_run_downstream_through_the_stages() -> None:
    wrong = []
    for module in MODULES:
        if module == "codemode.__main__":
            continue
        for target, line, _ in _imports(module):
            if target == module or target == "codemode" or target in LEAVES:
                continue
            same_stage = _stage(target) == _stage(module)
            if not same_stage and _rank(target) >= _rank(module):
                wrong.append(f"{module}:{line} imports {target}")
    assert wrong == []


def test_no_import_cycle_at_module_level() -> None:
    graph = {
        m: {t for t, _, top in _imports(m) if top and t != m and t != "codemode"} for m in MODULES
    }
    seen: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles = []

    def visit(m: str, path: list[str]) -> None:
        seen[m] = 1
        for t in sorted(graph[m]):
            if seen.get(t) == 1:
                cycles.append(" -> ".join([*path[path.index(t) :], t]))
            elif t not in seen:
                visit(t, [*path, t])
        seen[m] = 2

    for m in sorted(graph):
        if m not in seen:
            visit(m, [m])
    assert cycles == []


def test_only_change_git_runs_git() -> None:
    runners = []
    for module, path in MODULES.items():
        text = path.read_text()
        if "subprocess" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Constant) and node.value == "git":
                runners.append(module)
    assert set(runners) <= {"codemode.change.git"}


def test_only_the_github_stage_imports_pygithub() -> None:
    importers = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            if any(n == "github" or n.startswith("github.") for n in names):
                importers.append(module)
    assert set(importers) <= {"codemode.github.api"}


def test_no_function_passes_the_line_limit() -> None:
    long = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                name = f"{module}.{node.name}"
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{name} ({lines} lines)")
    assert sorted(long) == []


def test_no_module_passes_the_line_limit() -> None:
    long = []
    for module, path in MODULES.items():
        lines = len(path.read_text().splitlines())
        if lines > MAX_MODULE_LINES:
            long.append(f"{module} ({lines} lines)")
    assert sorted(long) == []


# Two stages' modules of one name made readers open the wrong one (explore/judge.py beside
# check/judge.py, explore/cache.py beside change/cache.py: #23). The one name kept twice:
# each stage's ``model`` is the data model of that stage (the report's words, the spec file's
# on-disk form), and nothing imports both.
SHARED_NAMES = {"model"}


def test_no_two_modules_share_a_name() -> None:
    by_name: dict[str, list[str]] = {}
    for module in MODULES:
        by_name.setdefault(module.rsplit(".", 1)[-1], []).append(module)
    twice = {n: ms for n, ms in by_name.items() if len(ms) > 1 and n not in SHARED_NAMES}
    assert twice == {}


def test_leaves_import_nothing() -> None:
    for module in LEAVES:
        tree = ast.parse(MODULES[module].read_text())
        assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]


# Where ``Any`` still crosses a stage's border, and why it cannot be narrower (issue #14).
# Each is the user's own data or a JSON document: values of the project's functions, whose
# type nobody knows before they run. Everything else that crosses is a named record.
ANY_AT_THE_BORDER = {
    # the canonical form of whatever the user's function returned (JSON-like, recursive)
    "codemode.worker.canonical.canonical": "return",
    # on-disk case mappings appended by accept: expected values are the user's (#18)
    "codemode.specs.write.add_cases": "cases",
    # the behaviour diff's pool starts from a spec's inputs: the user's values (#18)
    "codemode.explore.offline.input_pool.pool_for": "spec_inputs",
    # the worker's JSON-lines protocol: cases carry the user's arguments, fixtures their kwargs
    "codemode.worker.pool.Worker.run": "cases fixtures serializer",
    # on-disk case mappings: expected values are the user's
    "codemode.specs.edit_case.set_expectations": "changes",
    # the JSON report and the editor's JSON schema are documents, read and written as such
    "codemode.report.model.Report.to_dict": "return",
    "codemode.report.model.Report.from_dict": "d",
    "codemode.report.model.Report.to_json": "extra",
    "codemode.specs.model.json_schema": "return",
    # a call's arguments, shown as Python: the user's values (a spec's inputs, a recorded call)
    "codemode.report.call.format_call": "inputs kwargs",
    # a witness's arguments bound to its function's parameters for a case: the user's (#35)
    "codemode.explore.target.bind_keywords": "args kwargs return",
    # an argument the user's function was called with, turned into its spec form (#22)
    "codemode.specs.forms.to_spec": "value",
    "codemode.specs.forms.receiver": "value",
}


def _signatures() -> dict[tuple[str, str], ast.FunctionDef | ast.AsyncFunctionDef]:
    """Module-level functions and public methods (``__init__`` too), by (module, name)."""
    out: dict[tuple[str, str], ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for module, path in MODULES.items():
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[(module, node.name)] = node
            elif isinstance(node, ast.ClassDef):
                for f in node.body:
                    if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        continue
                    if not f.name.startswith("_") or f.name == "__init__":
                        out[(module, f"{node.name}.{f.name}")] = f
    return out


def _says_any(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and node.id == "Any":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "Any":
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "Any" in node.value:
            return True
    return False


def _any_in(f: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = f.args
    params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]
    found = [p.arg for p in params if _says_any(p.annotation)]
    return [*found, "return"] if _says_any(f.returns) else found


def test_no_value_crosses_a_stage_typed_any() -> None:
    """What one stage imports from another (a function, or a class and its public methods)
    takes and gives typed values: ``Any`` only where ANY_AT_THE_BORDER says why."""
    signatures = _signatures()
    crossing: dict[str, str] = {}
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.ImportFrom) and node.module in MODULES):
                continue
            target = node.module
            if _stage(target) in (_stage(module), "core"):
                continue
            for alias in node.names:
                for (m, name), f in signatures.items():
                    if m == target and (name == alias.name or name.startswith(alias.name + ".")):
                        where = _any_in(f)
                        if where:
                            crossing[f"{m}.{name}"] = " ".join(where)
    assert crossing == ANY_AT_THE_BORDER


TESTS = SRC.parents[1] / "tests"
BENCHMARKS = SRC.parents[1] / "benchmarks"
# Private names one module may still take from another, each with why. Empty: a name another
# module needs is a public name of the module's interface, or lives with its one user (#34).
PRIVATE_IMPORTS: dict[str, str] = {}


def _ours(folder: Path) -> list[Path]:
    """The project's Python files under ``folder``: not those of hidden folders, where the
    benchmarks install what they compare with (benchmarks/.work/.../vowel-venv: a run of
    verify_throughput.py failed this test with 79 private imports of vowel's dependencies)."""
    return [
        p
        for p in folder.rglob("*.py")
        if not any(part.startswith(".") for part in p.relative_to(folder).parts)
    ]


def _project_modules() -> dict[str, Path]:
    """codemode's modules by dotted name, and the tests' and benchmarks' by bare name as tests
    import them (each such folder is on sys.path: ``from gitkit import git``)."""
    found = dict(MODULES)
    for path in sorted([*_ours(TESTS), *_ours(BENCHMARKS)]):
        found.setdefault(path.stem, path)
    return found


def _from(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The dotted module an ``import from`` names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def private_imports(files: dict[str, Path]) -> list[str]:
    """``from M import _name`` where M is another module of this project (src or tests)."""
    project = _project_modules()
    found = []
    for module, path in files.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _from(module, path, node)
            if source not in project or project[source] == path:
                continue
            for alias in node.names:
                name = alias.name
                if name.startswith("_") and not name.startswith("__"):
                    found.append(f"{module}:{node.lineno} imports {source}.{name}")
    return found


def test_no_module_imports_another_modules_private_name() -> None:
    others = [*_ours(TESTS), *_ours(BENCHMARKS)]
    files = {**MODULES, **{str(p.relative_to(SRC.parents[1])): p for p in others}}
    wrong = [w for w in private_imports(files) if w.split(" imports ")[1] not in PRIVATE_IMPORTS]
    assert wrong == []
