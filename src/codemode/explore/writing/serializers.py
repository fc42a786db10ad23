"""The serializer a generated block's cases need: one ``schema:`` per block, codemode's own
recognised by its name and form, never one added under hand-written cases (#22)."""

from __future__ import annotations

from typing import Any

from codemode.specs.types import FunctionSpec, SpecFile


def serializer_name(fid: str) -> str:
    """The name of the serializer codemode writes for a function block's cases."""
    from codemode.explore.selection.cases import safe_id

    return "codemode_" + safe_id(fid)


def own_schema(fid: str, spec: SpecFile | None, func: FunctionSpec | None) -> dict[str, str] | None:
    """The ``schema:`` of the serializer codemode itself wrote for this block, else None.

    Recognised by its name (``codemode_<id>``) and its form (a per-parameter schema): a
    regen of the block extends it instead of taking it for a hand-written one (#22).
    """
    if spec is None or func is None or func.serializer != serializer_name(fid):
        return None
    ser = spec.serializers.get(func.serializer)
    if ser is None or ser.serializer is not None or not isinstance(ser.schema, dict):
        return None
    return dict(ser.schema)


def choose_serializer(
    fid: str,
    cases: list[dict[str, Any]],
    func: FunctionSpec | None,
    notes: list[str],
    own: dict[str, str] | None = None,
) -> tuple[list[dict[str, Any]], tuple[str, dict[str, str]] | None]:
    """Cases whose inputs need a vowel serializer share one ``schema:`` (param -> builder).

    A block with a serializer codemode wrote (``own``) keeps its schema and may extend it
    with parameters no hand-written case uses; a block with a serializer of its own, or
    hand-written cases and no serializer, gets none: cases that need one are left out (noted).
    """
    from codemode.explore.selection.cases import SCHEMA_KEY

    schema: dict[str, str] = dict(own or {})
    kept: list[dict[str, Any]] = []
    for c in cases:
        need = c.pop(SCHEMA_KEY, {})
        if any(schema.get(k, v) != v for k, v in need.items()):
            notes.append(
                f"{fid}: case {c['id']} builds a parameter another way than the block's "
                "serializer; left out"
            )
            continue  # one schema per function: a conflicting case is left out
        schema.update(need)
        kept.append(c)
    if not schema:
        return kept, None
    hand = [c for c in func.cases if not c.generated] if func is not None else []
    if own is not None:
        used = {k for c in hand if isinstance(c.input_value, dict) for k in c.input_value}
        clash = (set(schema) - set(own)) & used
        if clash:  # a new builder would change how a hand-written case is built: never
            plain = [c for c in kept if not _needs(c, dict.fromkeys(clash, ""))]
            notes.append(
                f"{fid}: {len(kept) - len(plain)} case(s) need a builder for "
                f"{', '.join(sorted(clash))}, which hand-written cases pass as written; left out"
            )
            kept = plain
            schema = {k: v for k, v in schema.items() if k not in clash}
        return kept, (serializer_name(fid), schema)
    # A serializer added under hand-written cases would change how they are built: never.
    if func is not None and (func.serializer or hand):
        plain = [c for c in kept if not _needs(c, schema)]
        what = "its own serializer" if func.serializer else "hand-written cases"
        notes.append(
            f"{fid}: {len(kept) - len(plain)} case(s) need a serializer, and the block has "
            f"{what}; add their builders (`schema:`) to it by hand to keep them"
        )
        return plain, None
    return kept, (serializer_name(fid), schema)


def _needs(case: dict[str, Any], schema: dict[str, str]) -> bool:
    inputs = case.get("inputs")
    return isinstance(inputs, dict) and bool(set(inputs) & set(schema))
