"""Fixtures (setup callables, generator teardowns, by scope) and serializers, as vowel
defines them. Stdlib only; runs inside the worker."""

from __future__ import annotations

import types
from collections.abc import Callable

from .policy import exc_line, import_object

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs ~4 ms of every start
if TYPE_CHECKING:
    from typing import Any


# The built-in fixture, as pytest's ``tmp_path`` (#31): a fresh, empty folder inside the
# run's scratch folder, the one place the wall lets the code under test write. With an
# argument (``args: [out.txt]``), the path of a file of that name inside it, not created:
# for a function whose parameter is the file it writes.
TMP_PATH = "codemode.tmp_path"


def tmp_path(name: str | None = None) -> tuple[Any, Callable[[], None]]:
    import os
    import shutil
    import tempfile
    from pathlib import Path

    from . import wall

    base = os.path.join(wall.STATE.scratch, "fixtures") if wall.STATE.scratch else None
    if base is not None and not os.path.isdir(base):
        os.makedirs(base, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="tmp_path", dir=base)

    def teardown() -> None:
        shutil.rmtree(folder, ignore_errors=True)

    return (Path(folder) if name is None else os.path.join(folder, str(name))), teardown


class Fixtures:
    """Fixture values by scope: case (per case), eval (per function block), file (per spec file)."""

    def __init__(self) -> None:
        self.file_values: dict[tuple[str, str], Any] = {}
        self.file_teardowns: dict[str, list[Callable[[], None]]] = {}

    def setup(self, spec: dict[str, Any]) -> tuple[Any, Callable[[], None] | None]:
        if spec.get("setup") == TMP_PATH:
            return tmp_path(*spec.get("args", []))
        if spec.get("setup") == "codemode.build":  # a value built as the tests build it (#32)
            from . import construct

            return construct.build(*spec.get("args", []), **spec.get("kwargs", {}))
        if spec.get("cls"):
            value = import_object(spec["cls"])(*spec.get("args", []), **spec.get("kwargs", {}))
        else:
            fn = import_object(spec["setup"])
            value = fn(*spec.get("args", []), **spec.get("kwargs", {}))
        teardown: Callable[[], None] | None = None
        if isinstance(value, types.GeneratorType):
            gen = value
            value = next(gen)

            def teardown() -> None:
                try:
                    next(gen)
                except StopIteration:
                    pass

        elif spec.get("teardown"):
            td = spec["teardown"]
            head, _, meth = td.rpartition(".")
            if head and type(value).__name__ == head.rsplit(".", 1)[-1] and hasattr(value, meth):
                bound = getattr(value, meth)
                teardown = bound
            else:
                fn_td = import_object(td)

                def teardown() -> None:
                    fn_td(value)

        return value, teardown

    def end_file(self, key: str) -> list[str]:
        errors = []
        for td in reversed(self.file_teardowns.pop(key, [])):
            try:
                td()
            except Exception as exc:
                errors.append(exc_line(exc))
        for k in [k for k in self.file_values if k[0] == key]:
            del self.file_values[k]
        return errors


def apply_serializer(
    case: dict[str, Any], serializer: dict[str, Any] | None
) -> tuple[list[Any], dict[str, Any]]:
    """vowel's rules: schema (one type or per-parameter types) or a serializer function."""
    args, kwargs = list(case.get("args", [])), dict(case.get("kwargs", {}))
    if not serializer:
        return args, kwargs
    form, value = case.get("form"), case.get("input")
    if serializer.get("serializer"):
        fn = import_object(serializer["serializer"])
        res = fn({"input": value} if form == "input" else {"inputs": value})
        if isinstance(res, tuple):
            return list(res), {}
        if isinstance(res, dict):
            return [], res
        return [res], {}
    schema = serializer.get("schema")
    if isinstance(schema, str):
        build = _builder(schema)
        if form == "inputs_dict":
            return [_build(build, kwargs)], {}
        return [_build(build, a) for a in args], kwargs
    if isinstance(schema, dict):
        from . import builders as forms

        builders = {k: _builder(v) for k, v in schema.items()}
        kwargs = {
            k: v
            if k not in builders
            else forms.receiver(builders[k], v)
            if k == forms.RECEIVER
            else _build(builders[k], v)
            for k, v in kwargs.items()
        }
        return args, kwargs
    return args, kwargs


def _builder(entry: str) -> Any:
    """A schema entry: an importable name (vowel), or a type expression (``list[mod.Cls]``)."""
    if "[" in entry or "|" in entry:
        from . import builders as forms

        return forms.resolve(entry, import_object)
    return import_object(entry)


def _build(builder: Any, value: Any) -> Any:
    if isinstance(builder, type) or not callable(builder) or hasattr(builder, "__origin__"):
        from . import (
            builders as forms,  # a class or a type expression: fields built by their annotations
        )

        return forms.build(builder, value)
    if isinstance(value, dict):
        validate = getattr(builder, "model_validate", None)
        if callable(validate):
            return validate(value)
        try:
            return builder(**value)
        except TypeError:
            return builder(value)
    return builder(value)
