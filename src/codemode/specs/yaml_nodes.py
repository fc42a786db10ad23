"""YAML below the document: node lines, duplicate keys (which PyYAML keeps silently), and the
constructor that builds plain documents fast and declines the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

import yaml

from codemode.specs.types import (
    SpecProblem,
)

_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def node_line(node: yaml.Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None else None


def pairs(node: yaml.MappingNode) -> list[tuple[yaml.Node, yaml.Node]]:
    return list(node.value)


def key_str(key: yaml.Node) -> str | None:
    return str(key.value) if isinstance(key, yaml.ScalarNode) else None


def duplicate_keys(node: yaml.Node, problems: list[SpecProblem]) -> None:
    """PyYAML keeps the last of two equal keys silently; we report every duplicate, also those
    equal only once resolved (``1``, ``0x1`` and ``1.0`` are one key of the mapping, #21)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, yaml.MappingNode):
            seen: dict[object, tuple[str, int | None]] = {}
            for k, v in n.value:
                ks = key_str(k)
                if ks is not None and ks != "<<":
                    key = _resolved_key(k, ks)
                    if key in seen:
                        first, at = seen[key]
                        same = "" if first == ks else f" (the same key as {first!r} once resolved)"
                        problems.append(
                            SpecProblem(
                                node_line(k),
                                f"duplicate key {ks!r}{same} (first at line {at}); "
                                "YAML keeps only the last one, so remove or rename one",
                            )
                        )
                    seen.setdefault(key, (ks, node_line(k)))
                stack.append(v)
        elif isinstance(n, yaml.SequenceNode):
            stack.extend(n.value)


def _resolved_key(key: yaml.ScalarNode, text: str) -> object:
    """The value a scalar key becomes in the mapping: its text for a string (nearly every
    key), else the resolved value (an int, float, bool, date...), tagged as not a string."""
    if key.tag == _STR_TAG:
        return text
    try:
        value = _Loader("").construct_object(key)
        hash(value)
    except (yaml.YAMLError, TypeError, ValueError):
        return text
    return ("resolved", value)


_STR_TAG = "tag:yaml.org,2002:str"


_SEQ_TAG = "tag:yaml.org,2002:seq"


_MAP_TAG = "tag:yaml.org,2002:map"


_MERGE_TAG = "tag:yaml.org,2002:merge"

# The tag of a flow collection that specs/common_yaml.py read and built already: its value
# is the node's ``data``, its entries are not nodes.
BUILT = "codemode:built"


class _Slow(Exception):
    """This node needs PyYAML's own constructor (a merge key, a set, an unknown tag...)."""


def construct(loader: Any, node: yaml.Node) -> Any:
    # PyYAML's generic constructor costs about 100 us per case (most of loading a big
    # spec); plain maps, lists and resolved scalars are built directly, same values.
    try:
        return _fast_construct(loader, node)
    except (_Slow, RecursionError):
        return loader.construct_object(node, deep=True)


def _fast_construct(loader: Any, node: yaml.Node) -> Any:
    tag = node.tag
    if isinstance(node, yaml.ScalarNode):
        if tag == _STR_TAG:
            return node.value
        scalar = loader.yaml_constructors.get(tag)
        if scalar is None:
            raise _Slow
        return scalar(loader, node)
    if isinstance(node, yaml.SequenceNode) and tag == _SEQ_TAG:
        return [_fast_construct(loader, item) for item in node.value]
    if isinstance(node, yaml.MappingNode) and tag == _MAP_TAG:
        out = {}
        for k, v in node.value:
            if k.tag == _MERGE_TAG or not isinstance(k, yaml.ScalarNode):
                raise _Slow
            out[_fast_construct(loader, k)] = _fast_construct(loader, v)
        return out
    if tag == BUILT:
        return node.data  # type: ignore[attr-defined]
    raise _Slow
