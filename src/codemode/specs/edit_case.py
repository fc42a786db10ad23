"""Edit named cases in place: ``accept`` changes ``expected`` / ``raises`` / ``match`` and
nothing else, character for character.

Re-emitting a case (as the first editor did) dropped the comments on and inside it, turned a
CRLF file into LF and lost a YAML anchor that other cases merged (``{<<: *c}``), so the whole
file stopped loading (#21). Here each change is a splice at the node marks PyYAML gives (they
count characters of the decoded text): a value is replaced where it stands, a key is added
after the mapping's last pair or removed with its separator. A case that holds an anchor or an
alias is refused: what other cases share cannot be changed for one of them.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any, NamedTuple

import yaml

from codemode.specs.write import flow

# Where accepted keys go when they are new, after these (vowel's order of a case's keys).
_ORDER = ("id", "input", "inputs", "expected", "raises", "match")


class CaseEditError(ValueError):
    """A case accept cannot edit in place; the message says which and why."""


class _Splice(NamedTuple):
    start: int
    end: int
    text: str


def _pair(node: yaml.MappingNode, key: str) -> tuple[yaml.Node, yaml.Node] | None:
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return k, v
    return None


def _end(node: yaml.Node, text: str) -> int:
    """Where ``node``'s own text ends: a block collection's end mark lies past the comments
    and blank lines that follow it, which belong to what comes next."""
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style:
        last: Any = node.value[-1] if node.value else None
        if last is not None:
            return _end(last[1] if isinstance(last, tuple) else last, text)
    end = int(node.end_mark.index)
    start = int(node.start_mark.index)
    return start + len(text[start:end].rstrip())


def _cases(root: yaml.Node, function_id: str) -> dict[str, yaml.MappingNode]:
    """The case mappings of ``function_id`` by id (the first of a duplicate id)."""
    if not isinstance(root, yaml.MappingNode):
        raise KeyError(function_id)
    block = _pair(root, function_id)
    dataset = (
        _pair(block[1], "dataset") if block and isinstance(block[1], yaml.MappingNode) else None
    )
    if dataset is None or not isinstance(dataset[1], yaml.SequenceNode):
        raise KeyError(function_id)
    out: dict[str, yaml.MappingNode] = {}
    for item in dataset[1].value:
        case = _pair(item, "case") if isinstance(item, yaml.MappingNode) else None
        if case is None or not isinstance(case[1], yaml.MappingNode):
            continue
        cid = _pair(case[1], "id")
        if cid is not None and isinstance(cid[1], yaml.ScalarNode):
            # NFC, as the loader has ids (a file may spell one decomposed)
            out.setdefault(unicodedata.normalize("NFC", str(cid[1].value)), case[1])
    return out


def _shared(text: str, node: yaml.Node) -> bool:
    """Whether the case's text holds an anchor (``&c``) or an alias (``*c``)."""
    start, end = int(node.start_mark.index), int(node.end_mark.index)
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            at = int(token.start_mark.index)
            if at >= end:
                break
            if at >= start and isinstance(token, (yaml.AnchorToken, yaml.AliasToken)):
                return True
    except yaml.YAMLError:
        return True
    return False


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _line_end(text: str, at: int) -> int:
    """Just past the newline of the line that holds ``at`` (or the end of the text)."""
    n = text.find("\n", at)
    return len(text) if n < 0 else n + 1


def _remove(text: str, case: yaml.MappingNode, key: str) -> _Splice:
    pairs = case.value
    i = next(n for n, (k, _) in enumerate(pairs) if getattr(k, "value", None) == key)
    k, v = pairs[i]
    start, end = int(k.start_mark.index), _end(v, text)
    if case.flow_style:
        if i > 0:  # ", key: value" after the previous pair
            return _Splice(_end(pairs[i - 1][1], text), end, "")
        if len(pairs) > 1:  # "key: value, " before the next one
            return _Splice(start, int(pairs[1][0].start_mark.index), "")
        return _Splice(start, end, "")
    if text[_line_start(text, start) : start].strip():
        raise CaseEditError(f"the key {key!r} shares its line with another; edit it by hand")
    return _Splice(_line_start(text, start), _line_end(text, end), "")


def _add(text: str, case: yaml.MappingNode, items: list[tuple[str, Any]], nl: str) -> _Splice:
    last_key, last_value = case.value[-1]
    at = _end(last_value, text)
    if case.flow_style:
        return _Splice(at, at, "".join(f", {k}: {flow(v)}" for k, v in items))
    column = int(last_key.start_mark.column)
    if text[
        _line_start(text, int(last_key.start_mark.index)) : int(last_key.start_mark.index)
    ].strip():
        raise CaseEditError("the case's keys share a line; edit it by hand")
    at = _line_end(text, at)
    lines = "".join(f"{' ' * column}{k}: {flow(v)}{nl}" for k, v in items)
    prefix = "" if text[:at].endswith("\n") else nl
    return _Splice(at, at, prefix + lines)


def _edits(text: str, case: yaml.MappingNode, changes: Mapping[str, Any], nl: str) -> list[_Splice]:
    present = {str(k.value) for k, _ in case.value if isinstance(k, yaml.ScalarNode)}
    removed = [k for k, v in changes.items() if v is None and k in present]
    added = [k for k in _ORDER if k in changes and changes[k] is not None and k not in present]
    added += [
        k for k, v in changes.items() if v is not None and k not in present and k not in added
    ]
    out: list[_Splice] = []
    for key, value in changes.items():
        if value is not None and key in present:
            _, v = _pair(case, key) or (None, None)
            assert v is not None
            out.append(_Splice(int(v.start_mark.index), _end(v, text), flow(value)))
    # `raises: X` becoming `expected: V` (or back): the new key takes the old one's place.
    while removed and added:
        old, new = removed.pop(0), added.pop(0)
        k, v = _pair(case, old) or (None, None)
        assert k is not None and v is not None
        out.append(_Splice(int(k.start_mark.index), _end(v, text), f"{new}: {flow(changes[new])}"))
    out += [_remove(text, case, key) for key in removed]
    if added:
        out.append(_add(text, case, [(k, changes[k]) for k in added], nl))
    return out


def set_expectations(text: str, function_id: str, changes: Mapping[str, Mapping[str, Any]]) -> str:
    """``text`` with the named cases of ``function_id`` changed: each change maps a key to its
    new value (None removes it). Raises KeyError when the function has no dataset, and
    CaseEditError for a case that cannot be edited in place."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if root is None:
        raise KeyError(function_id)
    cases = _cases(root, function_id)
    nl = "\r\n" if "\r\n" in text else "\n"
    splices: list[_Splice] = []
    for cid, change in changes.items():
        case = cases.get(cid)
        if case is None:
            raise KeyError(function_id)
        if _shared(text, case):
            raise CaseEditError(
                f"line {case.start_mark.line + 1}: case {cid!r} holds a YAML anchor or alias "
                "(&name / *name) that other cases may share; accept would change them too: "
                "write the new expectation by hand"
            )
        splices += _edits(text, case, change, nl)
    for s in sorted(splices, key=lambda s: (s.start, s.end), reverse=True):
        text = text[: s.start] + s.text + text[s.end :]
    return text
