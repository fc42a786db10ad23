"""Compose a spec file's YAML node tree from the C parser's events, checking its budgets as
it goes (#11, #20): nesting, alias expansion and integer digits in the same pass.

PyYAML's C composer recurses (some 25,000 levels of flow nesting overflow the C stack: a
segfault, not an exception), and checking its tree afterwards took two more Python walks that
cost as much as composing. Here the events are read iteratively, so no nesting can overflow
anything, and each check is made when its node is built: a problem stops the composition at
once (an alias bomb is refused at its first alias over the budget, never expanded).
The nodes are PyYAML's own (``ScalarNode``, ``SequenceNode``, ``MappingNode`` with the same
tags, marks and styles as ``Loader.get_single_node`` gives), so the rest of the loader is the
same.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import ComposerError

from codemode.specs.bounds import MAX_DEPTH, MAX_INT_DIGITS, MAX_NODES, too_deep
from codemode.specs.types import SpecProblem

_INT_TAG = "tag:yaml.org,2002:int"
_STR_TAG = "tag:yaml.org,2002:str"
_Scalar, _Seq, _Map = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode


class _Open:
    """A collection being composed: its node, the expanded values and height so far, and for
    a mapping (``pairs``) the key waiting for its value."""

    __slots__ = ("anchor", "height", "key", "node", "pairs", "size")

    def __init__(self, node: Any, anchor: str | None, mapping: bool) -> None:
        self.node, self.anchor = node, anchor
        self.size, self.height = 1, 1
        self.key: Any = None
        self.pairs = mapping


class OverBudget(Exception):
    """The document is over a budget: the composition stops with this problem."""

    def __init__(self, problem: SpecProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _line(mark: Any) -> int | None:
    return mark.line + 1 if mark is not None else None


def compose(loader: Any) -> Any:
    """The single document's root node (None for an empty stream), like ``get_single_node``.

    Raises ``yaml.YAMLError`` as PyYAML's composer would, and ``OverBudget`` for a document over
    the bounds.
    """
    get, check = loader.get_event, loader.check_event
    get()  # StreamStart
    root = None
    if not check(yaml.StreamEndEvent):
        get()  # DocumentStart
        root = _document(loader)
        get()  # DocumentEnd
        if not check(yaml.StreamEndEvent):
            event = get()
            raise ComposerError(
                "expected a single document in the stream",
                None,
                "but found another document",
                event.start_mark,
            )
    get()  # StreamEnd
    return root


def _document(loader: Any) -> Any:
    get, resolve = loader.get_event, loader.resolve
    # A plain scalar's tag depends on its text alone (no path resolvers: the safe loader's
    # case), and a spec repeats its keys thousands of times: one resolve per distinct text.
    plain: dict[str, str] = {} if not getattr(loader, "yaml_path_resolvers", None) else _Unkept()
    anchors: dict[str, tuple[Any, int, int]] = {}  # anchor -> (node, size, height)
    open_anchors: set[str] = set()
    stack: list[_Open] = []
    while True:
        event = get()
        kind = type(event)
        if kind is yaml.ScalarEvent:
            node = _scalar(event, resolve, plain, len(stack))
            size, height = 1, 1
            if event.anchor is not None:
                _check_new_anchor(anchors, open_anchors, event)
                anchors[event.anchor] = (node, 1, 1)
        elif kind is yaml.AliasEvent:
            node, size, height = _alias(event, anchors, open_anchors, len(stack))
        elif kind is yaml.SequenceStartEvent or kind is yaml.MappingStartEvent:
            stack.append(_start(event, resolve, anchors, open_anchors, len(stack)))
            continue
        else:  # SequenceEnd or MappingEnd
            top = stack.pop()
            node, size, height = top.node, top.size, top.height
            node.end_mark = event.end_mark
            if top.anchor is not None:
                open_anchors.discard(top.anchor)
                anchors[top.anchor] = (node, size, height)
        if not stack:
            return node
        parent = stack[-1]
        if not parent.pairs and size == 1 and parent.size < MAX_NODES:
            parent.size += 1  # a scalar in a sequence: the common case, without a call
            parent.height = parent.height if parent.height > 1 else 2
            parent.node.value.append(node)
            continue
        _add(parent, node, size, height)


class _Unkept(dict[str, str]):
    """A memo that keeps nothing: with path resolvers, a tag depends on where the scalar is."""

    def __setitem__(self, key: str, value: str) -> None:
        pass


def _scalar(event: Any, resolve: Any, plain: dict[str, str], depth: int) -> Any:
    if depth >= MAX_DEPTH:
        raise OverBudget(too_deep(_line(event.start_mark)))
    tag, value = event.tag, event.value
    if tag is None or tag == "!":
        if event.implicit[0]:
            tag = plain.get(value)
            if tag is None:
                tag = plain[value] = resolve(_Scalar, value, event.implicit)
        else:  # a quoted scalar is a string: what Resolver.resolve answers, without the call
            tag = _STR_TAG
    if tag == _INT_TAG and len(value) > MAX_INT_DIGITS:
        raise OverBudget(
            SpecProblem(
                _line(event.start_mark),
                f"an integer of {len(value):,} digits; integers in a spec are "
                f"limited to {MAX_INT_DIGITS:,} digits (quote it to compare a string)",
            )
        )
    return _Scalar(tag, value, event.start_mark, event.end_mark, style=event.style)


def _alias(
    event: Any, anchors: dict[str, tuple[Any, int, int]], open_anchors: set[str], depth: int
) -> tuple[Any, int, int]:
    if event.anchor in open_anchors:
        raise OverBudget(
            SpecProblem(
                _line(event.start_mark),
                "a value contains itself through an alias; write the data out",
            )
        )
    if event.anchor not in anchors:
        raise ComposerError(None, None, f"found undefined alias {event.anchor!r}", event.start_mark)
    node, size, height = anchors[event.anchor]
    if depth + height > MAX_DEPTH:  # aliases inside aliases nest deeper than the text shows
        raise OverBudget(too_deep(_line(event.start_mark)))
    return node, size, height


def _start(
    event: Any,
    resolve: Any,
    anchors: dict[str, tuple[Any, int, int]],
    open_anchors: set[str],
    depth: int,
) -> _Open:
    if depth >= MAX_DEPTH:
        raise OverBudget(too_deep(_line(event.start_mark)))
    mapping = type(event) is yaml.MappingStartEvent
    cls = _Map if mapping else _Seq
    tag = event.tag
    if tag is None or tag == "!":
        tag = resolve(cls, None, event.implicit)
    node = cls(tag, [], event.start_mark, None, flow_style=event.flow_style)
    if event.anchor is not None:
        _check_new_anchor(anchors, open_anchors, event)
        open_anchors.add(event.anchor)
    return _Open(node, event.anchor, mapping)


def _add(parent: _Open, node: Any, size: int, height: int) -> None:
    parent.size += size
    if parent.size > MAX_NODES:
        raise OverBudget(
            SpecProblem(
                _line(parent.node.start_mark),
                f"aliases expand to more than {MAX_NODES:,} values (an alias bomb?); "
                "write the data out or use fewer nested aliases",
            )
        )
    if height >= parent.height:
        parent.height = height + 1
    if not parent.pairs:
        parent.node.value.append(node)
    elif parent.key is None:
        parent.key = node
    else:
        parent.node.value.append((parent.key, node))
        parent.key = None


def _check_new_anchor(
    anchors: dict[str, tuple[Any, int, int]], open_anchors: set[str], event: Any
) -> None:
    if event.anchor in anchors or event.anchor in open_anchors:
        _duplicate_anchor(anchors, event)


def _duplicate_anchor(anchors: dict[str, tuple[Any, int, int]], event: Any) -> None:
    first = anchors.get(event.anchor)
    raise ComposerError(
        f"found duplicate anchor {event.anchor!r}; first occurrence",
        first[0].start_mark if first else None,
        "second occurrence",
        event.start_mark,
    )
