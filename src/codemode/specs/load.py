"""Load and validate spec files, with the file and line of every problem.

Strict where vowel is loose: unknown keys, duplicate keys and ids, ``input`` with ``inputs``,
``match`` without ``raises`` are errors. Errors are collected, never raised: a bad case is
reported as that case's error, a bad function block as that function's error, a bad file
as a file problem; everything else in the file still runs.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

import yaml

from codemode.specs import RESERVED_KEYS, bounds
from codemode.specs.compose import OverBudget, compose
from codemode.specs.types import (
    SCOPE_ALIASES,
    CaseSpec,
    EvaluatorSpec,
    FixtureSpec,
    FunctionMetaSpec,
    FunctionSpec,
    SerializerSpec,
    SpecFile,
    SpecProblem,
    built,
)
from codemode.specs.validate import (
    EVALUATOR_KINDS,
    EVALUATOR_MODELS,
    Invalid,
    did_you_mean,
    format_validation,
    hint_unknown,
    model_fields,
    validate_as,
    validate_meta,
)
from codemode.specs.yaml_nodes import BUILT, construct, duplicate_keys, key_str, node_line, pairs

_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Characters that reorder how a line reads (the "Trojan Source" controls) or are invisible
# controls: an id holding one would show one thing in a report and be another (#21).
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _id_problem(case_id: str) -> str | None:
    if any(ch in _BIDI for ch in case_id):
        return (
            f"case id {case_id!a} holds a bidirectional control character, which makes "
            "it read differently from what it is; use plain text"
        )
    if not case_id.isprintable():
        return f"case id {case_id!a} holds a control character; use plain text"
    return None


def _nfc(text: str) -> str:
    """Ids in one Unicode form: ``café`` typed two ways is one id, not two twins."""
    import unicodedata  # only for ids beyond ASCII

    return unicodedata.normalize("NFC", text)


# --- validation ------------------------------------------------------------------------
# The pydantic models of model.py are the reference: they word every error and publish the
# JSON schema. Importing pydantic and building them costs about 0.1 s, a tenth of checking
# a 2,000-case spec, so data that is plainly valid is accepted here, with the very values
# ``Model.model_validate(data).model_dump(by_alias=True)`` gives; anything else (a wrong
# type, a missing or unknown key, a broken rule) goes to the model, which says what is wrong.


def _expression_problems(
    match: str | None, pattern: str | None, type_expr: str | None
) -> Iterable[tuple[str, str]]:
    """Regexes that do not compile and types that do not parse, found before anything runs."""
    too_long = bounds.expression_problem("type", type_expr)
    if too_long:
        yield "type", too_long
        return
    for key, regex in (("match", match), ("pattern", pattern)):
        if regex is not None:
            try:
                re.compile(regex)
            except re.error as exc:
                yield (
                    key,
                    (
                        f"invalid regex in {key!r}: {exc} in {regex!r}; escape special characters "
                        "with a backslash (e.g. '\\[' for a literal '[') and single-quote the YAML string"
                    ),
                )
    if type_expr is not None:
        try:
            ast.parse(type_expr.strip(), mode="eval")
        except (SyntaxError, RecursionError, MemoryError, ValueError) as exc:
            yield (
                "type",
                (
                    f"invalid type expression {type_expr!r} ({getattr(exc, 'msg', exc)}); write a Python type such as "
                    "'int', 'list[str]' or 'dict[str, int] | None'"
                ),
            )


def _case_node(item: yaml.Node, default_id: str) -> tuple[yaml.Node, yaml.MappingNode] | CaseSpec:
    """The ``case:`` key and mapping of a dataset item, or the item's error."""
    line = node_line(item)
    if not isinstance(item, yaml.MappingNode):
        return CaseSpec(
            id=default_id, line=line, error="a dataset item must be a mapping `- case: {...}`"
        )
    outer = {key_str(k): (k, v) for k, v in pairs(item)}
    extra = [k for k in outer if k != "case"]
    if "case" not in outer or extra:
        bad = extra[0] if extra else None
        return CaseSpec(
            id=default_id,
            line=line,
            error=f"unknown key {bad!r} in dataset item; write `- case: {{id: ..., ...}}`"
            if bad
            else "a dataset item needs a `case:` mapping",
        )
    case_key, case_node = outer["case"]
    if not isinstance(case_node, yaml.MappingNode):
        return CaseSpec(id=default_id, line=node_line(case_key), error="`case:` must be a mapping")
    return case_key, case_node


def _parse_case(
    loader: Any, item: yaml.Node, index: int, seen_ids: dict[str, int | None], generated: set[str]
) -> CaseSpec:
    default_id = f"case_{index + 1}"
    found = _case_node(item, default_id)
    if isinstance(found, CaseSpec):
        return found
    case_key, case_node = found
    line = node_line(case_key)
    data = construct(loader, case_node)
    if case_node.tag == BUILT:  # one flow mapping on one line (common_yaml): every key on it
        key_lines = dict.fromkeys(data, node_line(case_node))
    else:
        key_lines = {key_str(k) or "": node_line(k) for k, _ in pairs(case_node)}
    raw_id = data.get("id")
    case_id = str(raw_id) if raw_id is not None else default_id
    if not (case_id.isascii() and case_id.isprintable()):
        bad_id = _id_problem(case_id)
        if bad_id:
            return CaseSpec(id=ascii(case_id), line=key_lines.get("id", line), error=bad_id)
        case_id = _nfc(case_id)
    try:
        c, fields = validate_as("CaseModel", data)
    except Invalid as bad:
        err_line, msg = format_validation(bad.error, key_lines, line)
        if bad.error.errors()[0]["type"] == "extra_forbidden":  # an unknown key: name the known
            msg += hint_unknown(str(bad.error.errors()[0]["loc"][0]), model_fields(bad.model))
        return CaseSpec(id=case_id, line=err_line, error=msg)
    if case_id in seen_ids:
        return CaseSpec(
            id=case_id,
            line=key_lines.get("id", line),
            error=f"duplicate case id {case_id!r} (first at line {seen_ids[case_id]}); ids must be unique",
        )
    seen_ids[case_id] = key_lines.get("id", line)
    for key, problem in _expression_problems(c["match"], c["pattern"], c["type"]):
        return CaseSpec(id=case_id, line=key_lines.get(key, line), error=problem)
    too_long = bounds.expression_problem("assertion", c["assertion"])
    if too_long:
        return CaseSpec(id=case_id, line=key_lines.get("assertion", line), error=too_long)
    return _case_spec(case_id, line, c, fields, case_id in generated)


def _case_spec(
    case_id: str, line: int | None, c: dict[str, Any], fields: set[str], generated: bool
) -> CaseSpec:
    """A validated case's runtime record: ``input``/``inputs`` as arguments, ``raises: X?``."""
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = {}
    form = "none"
    input_value: Any = None
    if "input" in fields:
        args, form, input_value = (c["input"],), "input", c["input"]
    elif "inputs" in fields and c["inputs"] is not None:
        input_value = c["inputs"]
        if isinstance(input_value, dict):
            kwargs, form = dict(input_value), "inputs_dict"
        else:
            args, form = tuple(input_value), "inputs_list"
    raises = c["raises"]
    optional = False
    if raises is not None and raises.endswith("?"):
        raises, optional = raises[:-1], True
    return built(
        CaseSpec,
        id=case_id,
        line=line,
        args=args,
        kwargs=kwargs,
        input_value=input_value,
        input_form=form,
        has_expected="expected" in fields,
        expected=c["expected"],
        raises=raises,
        raises_optional=optional,
        match=c["match"],
        duration_ms=c["duration"],
        has_contains="contains" in fields,
        contains=c["contains"],
        assertion=c["assertion"],
        pattern=c["pattern"],
        case_sensitive=c["case_sensitive"],
        type=c["type"],
        strict_type=c["strict_type"],
        error=None,
        generated=generated,
    )


def _parse_evaluators(
    loader: Any, node: yaml.Node
) -> tuple[list[EvaluatorSpec], str | None, int | None]:
    if not isinstance(node, yaml.MappingNode):
        return [], "`evals:` must be a mapping of name -> evaluator", node_line(node)
    out: list[EvaluatorSpec] = []
    for k, v in pairs(node):
        name = key_str(k) or "?"
        data = construct(loader, v)
        if not isinstance(data, dict):
            return out, f"evaluator {name!r} must be a mapping such as {{type: int}}", node_line(k)
        kinds = [kind for kind in EVALUATOR_KINDS if kind in data]
        if len(kinds) != 1:
            known = ", ".join(EVALUATOR_KINDS)
            what = "has none" if not kinds else f"has several ({', '.join(kinds)})"
            return out, f"evaluator {name!r} {what} of the evaluator keys: {known}", node_line(k)
        try:
            params, _ = validate_as(EVALUATOR_MODELS[kinds[0]], data)
        except Invalid as bad:
            _, msg = format_validation(bad.error, {}, None)
            return out, f"evaluator {name!r}: {msg}", node_line(k)
        for _, problem in _expression_problems(None, params.get("pattern"), params.get("type")):
            return out, f"evaluator {name!r}: {problem}", node_line(k)
        too_long = bounds.expression_problem("assertion", params.get("assertion"))
        if too_long:
            return out, f"evaluator {name!r}: {too_long}", node_line(k)
        out.append(EvaluatorSpec(name=name, kind=kinds[0], params=params, line=node_line(k)))
    return out, None, None


_FUNCTION_KEYS = ("fixture", "serializer", "evals", "dataset")


def _parse_function(
    loader: Any, fid: str, key: yaml.Node, node: yaml.Node, meta: FunctionMetaSpec
) -> FunctionSpec:
    line = node_line(key)
    if not isinstance(node, yaml.MappingNode):
        return FunctionSpec(
            id=fid,
            line=line,
            error=f"{fid!r} must be a mapping with a `dataset:` list (or is it a typo of a reserved "
            f"key: {', '.join(RESERVED_KEYS)}?)",
        )
    children = {key_str(k) or "": (k, v) for k, v in pairs(node)}
    for name, (k, _) in children.items():
        if name not in _FUNCTION_KEYS:
            return FunctionSpec(
                id=fid,
                line=node_line(k),
                error=f"unknown key {name!r}" + hint_unknown(name, _FUNCTION_KEYS),
            )
    if "dataset" not in children:
        return FunctionSpec(
            id=fid, line=line, error="missing `dataset:` (a list of `- case: {...}`)"
        )
    options = _function_options(loader, fid, children)
    if isinstance(options, FunctionSpec):
        return options
    fixtures, serializer, evaluators = options
    ds_key, ds = children["dataset"]
    if not isinstance(ds, yaml.SequenceNode):
        return FunctionSpec(
            id=fid, line=node_line(ds_key), error="`dataset:` must be a list of `- case: {...}`"
        )
    if not ds.value:
        return FunctionSpec(
            id=fid, line=node_line(ds_key), error="`dataset:` is empty; add at least one case"
        )
    seen: dict[str, int | None] = {}
    generated = set(meta.generated)
    cases = tuple(_parse_case(loader, item, i, seen, generated) for i, item in enumerate(ds.value))
    return FunctionSpec(
        id=fid,
        line=line,
        fixtures=fixtures,
        serializer=serializer,
        evaluators=tuple(evaluators),
        cases=cases,
        meta=meta,
    )


def _function_options(
    loader: Any, fid: str, children: dict[str, tuple[yaml.Node, yaml.Node]]
) -> tuple[tuple[str, ...], str | None, list[EvaluatorSpec]] | FunctionSpec:
    """A function block's ``fixture``, ``serializer`` and ``evals``; or the block's error."""
    fixtures: tuple[str, ...] = ()
    if "fixture" in children:
        fx = construct(loader, children["fixture"][1])
        if isinstance(fx, str):
            fx = [fx]
        if not isinstance(fx, list) or not all(isinstance(x, str) for x in fx):
            return FunctionSpec(
                id=fid,
                line=node_line(children["fixture"][0]),
                error="`fixture:` must be a list of fixture names",
            )
        fixtures = tuple(fx)
    serializer = None
    if "serializer" in children:
        s = construct(loader, children["serializer"][1])
        if not isinstance(s, str):
            return FunctionSpec(
                id=fid,
                line=node_line(children["serializer"][0]),
                error="`serializer:` must be the name of an entry under top-level `serializers:`",
            )
        serializer = s
    evaluators: list[EvaluatorSpec] = []
    if "evals" in children:
        evaluators, err, err_line = _parse_evaluators(loader, children["evals"][1])
        if err:
            return FunctionSpec(id=fid, line=err_line, error=err)
    return fixtures, serializer, evaluators


def _named_entries(
    loader: Any,
    top: dict[str, tuple[yaml.Node, yaml.Node]],
    key: str,
    model_name: str,
    what: str,
    example: str,
    problems: list[SpecProblem],
) -> list[tuple[str, int | None, dict[str, Any]]]:
    """The valid ``name: {...}`` entries under a reserved key; each bad one is a problem."""
    if key not in top:
        return []
    k, v = top[key]
    if not isinstance(v, yaml.MappingNode):
        problems.append(
            SpecProblem(node_line(k), f"`{key}:` must be a mapping of name -> {example}")
        )
        return []
    out: list[tuple[str, int | None, dict[str, Any]]] = []
    for ek, ev in pairs(v):
        name = key_str(ek) or "?"
        try:
            data, _ = validate_as(model_name, construct(loader, ev))
        except Invalid as bad:
            _, msg = format_validation(bad.error, {}, None)
            problems.append(SpecProblem(node_line(ek), f"{what} {name!r}: {msg}"))
            continue
        out.append((name, node_line(ek), data))
    return out


def _parse_reserved(
    loader: Any, top: dict[str, tuple[yaml.Node, yaml.Node]], problems: list[SpecProblem]
) -> tuple[dict[str, FixtureSpec], dict[str, SerializerSpec], dict[str, FunctionMetaSpec]]:
    fixtures: dict[str, FixtureSpec] = {}
    serializers: dict[str, SerializerSpec] = {}
    metas: dict[str, FunctionMetaSpec] = {}
    for name, line, fm in _named_entries(
        loader, top, "fixtures", "FixtureModel", "fixture", "{setup: ...}", problems
    ):
        fixtures[name] = FixtureSpec(
            name,
            fm["setup"],
            fm["cls"],
            tuple(fm["args"]),
            fm["kwargs"],
            fm["teardown"],
            SCOPE_ALIASES.get(fm["scope"], fm["scope"]),
            line,
        )
    for name, _line_no, sm in _named_entries(
        loader, top, "serializers", "SerializerModel", "serializer", "{schema: ...}", problems
    ):
        serializers[name] = SerializerSpec(name, sm["schema"], sm["serializer"])
    if "codemode" in top:
        k, v = top["codemode"]
        try:
            functions = validate_meta(construct(loader, v) or {})
        except Invalid as bad:
            _, msg = format_validation(bad.error, {}, None)
            problems.append(SpecProblem(node_line(k), f"codemode metadata: {msg}"))
        else:
            for fid, meta in functions.items():
                metas[fid] = FunctionMetaSpec(
                    meta["fingerprint"],
                    tuple(meta["generated"]),
                    meta["explored_by"],
                    tuple(meta["nondeterministic"]),
                    tuple(meta["deleted"]),
                    tuple(meta["sources"]),
                    meta["mutants"],
                    meta["mutation_score"],
                )
    return fixtures, serializers, metas


def _is_builtin(name: str) -> bool:
    """A bare builtin callable (``len``, ``sorted``): vowel resolves those function ids."""
    import builtins

    return not name.startswith("_") and callable(getattr(builtins, name, None))


def _bare_name(name: str, value: yaml.Node) -> str:
    """A function id is an import path (module.function) or, as in vowel, a bare builtin
    (`len:`). Another bare word is a misspelt reserved key (`fixture:` for `fixtures:`), or
    a function that only vowel's Python API can supply (its `basic_usage/evals.yml` names
    `greet` and `add`, passed to `run_evals(..., functions=...)`): said as vowel's CLI says it."""
    close = did_you_mean(name, RESERVED_KEYS)
    keys = {key_str(kn) for kn, _ in pairs(value)} if isinstance(value, yaml.MappingNode) else set()
    if close or not keys & {"dataset", "evals", "fixture", "serializer"}:
        return (
            f"unknown top-level key {name!r}{close}; top-level keys are codemode, fixtures, "
            "serializers and function import paths such as pkg.module.function"
        )
    return (
        f"function {name!r} not found: a bare name must be a builtin (len, sorted); name it "
        f"by its module path (pkg.module.{name}). vowel's Python API can pass functions by "
        "name, its CLI and codemode import them"
    )


def _root_node(text: str) -> yaml.MappingNode | SpecProblem:
    """The YAML document's top mapping, or why there is none: composed from the parser's
    events with every budget checked on the way (specs/compose.py), never built past one."""
    bad = bounds.size_problem(len(text))
    if bad is not None:
        return bad
    try:
        loader = _Loader(text)
        try:
            root = compose(loader)
        finally:
            loader.dispose()
    except OverBudget as exc:
        return exc.problem
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return SpecProblem(line, f"invalid YAML: {what}")
    if root is None:
        return SpecProblem(1, "the file is empty")
    if not isinstance(root, yaml.MappingNode):
        return SpecProblem(node_line(root), "the top level must be a mapping of function ids")
    return root


def parse_spec_text(text: str, path: Path, rel: str) -> SpecFile:
    from codemode.specs.common_yaml import read_tree

    common = read_tree(text)  # most files, read without the parser's events (#36)
    if common is not None:  # its keys are plain words, each checked once already
        spec = _from_root(common, path, rel, keys_checked=True)
        if not _any_problem(spec):  # a problem is worded by the full loader, as always
            return spec
    return parse_with_events(text, path, rel)


def _any_problem(spec: SpecFile) -> bool:
    return bool(spec.problems) or any(
        f.error is not None or any(c.error is not None for c in f.cases) for f in spec.functions
    )


def parse_with_events(text: str, path: Path, rel: str) -> SpecFile:
    """The full loader: any YAML, every problem with its line."""
    root = _root_node(text)
    if isinstance(root, SpecProblem):
        return SpecFile(path, rel, problems=(root,))
    return _from_root(root, path, rel)


def _from_root(
    root: yaml.MappingNode, path: Path, rel: str, keys_checked: bool = False
) -> SpecFile:
    problems: list[SpecProblem] = []
    if not keys_checked:
        duplicate_keys(root, problems)
    loader = _Loader("")
    top: dict[str, tuple[yaml.Node, yaml.Node]] = {}
    for k, v in pairs(root):
        ks = key_str(k)
        if ks is None:
            problems.append(
                SpecProblem(node_line(k), "top-level keys must be function ids (strings)")
            )
            continue
        top.setdefault(ks, (k, v))
    try:
        fixtures, serializers, metas = _parse_reserved(loader, top, problems)
        functions = _parse_functions(loader, top, fixtures, serializers, metas, problems)
    except yaml.YAMLError as exc:  # a bad tag such as !!python/object
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        return SpecFile(
            path,
            rel,
            problems=(
                *problems,
                SpecProblem(line, f"invalid YAML: {getattr(exc, 'problem', exc)}"),
            ),
        )
    finally:
        loader.dispose()
    return SpecFile(path, rel, tuple(functions), fixtures, serializers, tuple(problems))


def _parse_functions(
    loader: Any,
    top: dict[str, tuple[yaml.Node, yaml.Node]],
    fixtures: dict[str, FixtureSpec],
    serializers: dict[str, SerializerSpec],
    metas: dict[str, FunctionMetaSpec],
    problems: list[SpecProblem],
) -> list[FunctionSpec]:
    functions: list[FunctionSpec] = []
    for name, (k, v) in top.items():
        if name in RESERVED_KEYS:
            continue
        if "." not in name and not _is_builtin(name):
            problems.append(SpecProblem(node_line(k), _bare_name(name, v)))
            continue
        meta = metas.get(name, FunctionMetaSpec())
        functions.append(
            _check_refs(_parse_function(loader, name, k, v, meta), fixtures, serializers)
        )
    return functions


def _check_refs(
    f: FunctionSpec, fixtures: dict[str, FixtureSpec], serializers: dict[str, SerializerSpec]
) -> FunctionSpec:
    if f.error:
        return f
    for name in f.fixtures:
        if name not in fixtures:
            known = ", ".join(fixtures) or "none defined"
            return FunctionSpec(
                id=f.id,
                line=f.line,
                error=f"unknown fixture {name!r}; define it under top-level `fixtures:` (defined: {known})",
            )
    if f.serializer and f.serializer not in serializers:
        known = ", ".join(serializers) or "none defined"
        return FunctionSpec(
            id=f.id,
            line=f.line,
            error=f"unknown serializer {f.serializer!r}; define it under top-level `serializers:` (defined: {known})",
        )
    return f
